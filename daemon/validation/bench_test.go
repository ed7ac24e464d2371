package validation_test

import (
	"testing"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/validation"
)

// BenchmarkValidate validates a DaemonSet with a node selector, required
// node affinity and tolerations, as daemon's benchmark fleet's.
func BenchmarkValidate(b *testing.B) {
	ds := dt.DaemonSet("agent", dt.PlacementOptions()...)
	if errs := validation.Validate(ds); len(errs) > 0 {
		b.Fatal(errs)
	}
	b.ReportAllocs()
	for b.Loop() {
		validation.Validate(ds)
	}
}
