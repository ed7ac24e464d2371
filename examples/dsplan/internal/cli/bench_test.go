package cli

import (
	"io"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkSimulate times "dsplan simulate" on bigFleet(5000): 5,000
// nodes, 30,050 pods, seven DaemonSets. The objects come from an
// Options.Source, so that the figure is the simulation's, not the
// decoding's (package snapshot has its own benchmarks). rollout rolls
// kube-proxy (4 DaemonSets, 20,050 pods in its namespace) out to a new
// image, svg the same with --svg; all simulates every DaemonSet as
// captured.
//
//	go test -run '^$' -bench BenchmarkSimulate -benchtime 3x -benchmem ./examples/dsplan/internal/cli
func BenchmarkSimulate(b *testing.B) {
	s := bigFleet(5000)
	runtime.GC()
	src := Options{Source: func(Flags) (Input, error) { return Input{Snapshot: s, Sources: []string{"bigFleet(5000)"}}, nil }}
	rollout := []string{"simulate", "--daemonset", "kube-system/kube-proxy", "--image", "registry.k8s.io/kube-proxy:v1.36.4", "--now", "2025-06-01T12:00:00Z"}
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"rollout", rollout},
		{"svg", append(append([]string(nil), rollout...), "--svg", filepath.Join(b.TempDir(), "out.svg"))},
		{"all", []string{"simulate", "--now", "2025-06-01T12:00:00Z"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if code := Run(bc.args, nil, io.Discard, io.Discard, src); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
