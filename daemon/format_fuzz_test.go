package daemon_test

import (
	"bytes"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// FuzzFormat formats the plan Compute makes of a cluster generated from the
// fuzzer's bytes (chaotic, or healthy mid-rollout when the first byte is
// even): Format never panics or fails on a buffer, and prints the same text
// twice and with the nodes reversed.
func FuzzFormat(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte("twelve nodes mid-rollout"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := fnv.New64a()
		h.Write(data)
		cfg := dt.ClusterConfig{}
		if len(data) > 0 && data[0]%2 == 0 {
			cfg = dt.ClusterConfig{Healthy: true, Rollout: true}
		}
		c := dt.GenerateCluster(rand.New(rand.NewPCG(h.Sum64(), uint64(len(data)))), cfg)
		in := c.Input()
		plan, _ := in.Compute()
		opts := daemon.FormatOptions{DaemonSet: in.DaemonSet, Nodes: in.Nodes, Now: in.Options.Now,
			EnableTaintTolerationComparisonOperators: in.Options.EnableTaintTolerationComparisonOperators}
		var first, second, reversed bytes.Buffer
		if err := plan.Format(&first, opts); err != nil {
			t.Fatalf("Format: %v", err)
		}
		if err := plan.Format(&second, opts); err != nil {
			t.Fatalf("Format: %v", err)
		}
		rev := opts
		rev.Nodes = make([]*corev1.Node, len(opts.Nodes))
		for i, n := range opts.Nodes {
			rev.Nodes[len(opts.Nodes)-1-i] = n
		}
		if err := plan.Format(&reversed, rev); err != nil {
			t.Fatalf("Format: %v", err)
		}
		if first.String() != second.String() || first.String() != reversed.String() {
			t.Fatalf("Format is not deterministic:\n%s\n---\n%s\n---\n%s", &first, &second, &reversed)
		}
	})
}
