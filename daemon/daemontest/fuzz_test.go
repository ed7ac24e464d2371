package daemontest_test

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// byteSource is a rand.Source that reads the fuzzer's bytes first, eight
// at a time, so that a mutated byte changes one decision of the
// generator, and then continues with a PCG seeded from the bytes (a source
// that ran dry into zeros could make rand.IntN loop forever).
type byteSource struct {
	data []byte
	rest *rand.PCG
}

func newByteSource(data []byte) *byteSource {
	h := fnv.New64a()
	h.Write(data)
	return &byteSource{data: data, rest: rand.NewPCG(h.Sum64(), uint64(len(data)))}
}

func (s *byteSource) Uint64() uint64 {
	if len(s.data) == 0 {
		return s.rest.Uint64()
	}
	var b [8]byte
	n := copy(b[:], s.data)
	s.data = s.data[n:]
	return binary.LittleEndian.Uint64(b[:])
}

// FuzzCompute generates a cluster from the fuzzer's bytes (chaotic, or
// healthy when the first byte is a multiple of 16) and checks every
// invariant of its plan with CheckPlan.
func FuzzCompute(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte("a DaemonSet on twelve nodes, half of them tainted"))
	for seed := range uint64(16) {
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:], seed*0x9e3779b97f4a7c15)
		binary.LittleEndian.PutUint64(b[8:], seed)
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := dt.ClusterConfig{}
		if len(data) > 0 && data[0]%16 == 0 {
			cfg = dt.ClusterConfig{Healthy: true, Rollout: data[0]%32 == 0}
		}
		c := dt.GenerateCluster(rand.New(newByteSource(data)), cfg)
		rep := dt.CheckPlan(c.Input(), dt.CheckOptions{Seed: uint64(len(data))})
		if err := rep.Err(); err != nil {
			t.Fatalf("Compute error %v; %v", rep.ComputeErr, err)
		}
	})
}

// FuzzConformance starts from a recorded upstream scenario or a table case
// of TestCheckPlanHolds (index, modulo their number: the table cases
// first), mutates it as mutation says (see mutate: permute, drop and add
// nodes and pods, flip phases and readiness, shift the clock, change the
// budgets...) and checks every invariant of its plan with CheckPlan.
func FuzzConformance(f *testing.F) {
	bases := fuzzBases(f)
	step := len(bases) / sample(len(bases))
	for i := 0; i < len(bases); i += step {
		f.Add(uint16(i), uint64(i)+1)
	}
	for i := range checkCases() {
		f.Add(uint16(i), uint64(0))
	}
	f.Fuzz(func(t *testing.T, index uint16, mutation uint64) {
		base := bases[int(index)%len(bases)]
		in, did := mutate(base.in, rand.New(rand.NewPCG(mutation, 0x6d7574)))
		rep := dt.CheckPlan(in, dt.CheckOptions{Seed: mutation})
		if err := rep.Err(); err != nil {
			t.Fatalf("%s mutated by %v: Compute error %v; %v", base.name, did, rep.ComputeErr, err)
		}
	})
}

// fuzzBase is an input a fuzz target starts from.
type fuzzBase struct {
	name string
	in   simulate.Input
}

// fuzzBases returns the table cases of TestCheckPlanHolds, then the
// recorded scenarios.
func fuzzBases(tb testing.TB) []fuzzBase {
	var out []fuzzBase
	for _, tt := range checkCases() {
		out = append(out, fuzzBase{tt.name, tt.in()})
	}
	for _, s := range loadScenarios(tb) {
		out = append(out, fuzzBase{s.Name, scenarioInput(s)})
	}
	return out
}
