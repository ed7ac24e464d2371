package syncer

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
)

// TestMessageOf: an event or a log line about a DaemonSet reads a plan's
// error without the DaemonSet, taken from the typed error, not cut out of
// its text.
func TestMessageOf(t *testing.T) {
	budget := field.Invalid(field.NewPath("spec", "updateStrategy", "rollingUpdate", "maxSurge"), "x", "bad")
	planErr := &daemon.Error{DaemonSet: "ns/x", Stage: daemon.StageRollingUpdate, Err: budget}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{name: "nil", err: nil, want: ""},
		{name: "a plan's error loses its DaemonSet, keeps its stage", err: planErr,
			want: `rolling update: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "x": bad`},
		{name: "found through wrapping", err: fmt.Errorf("sync: %w", planErr),
			want: `rolling update: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "x": bad`},
		{name: "another error is kept whole, another DaemonSet's name too", err: errors.New(`daemonset "ns/y": boom`),
			want: `daemonset "ns/y": boom`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, MessageOf(tt.err)); diff != "" {
				t.Errorf("messageOf (-want,+got):\n%s", diff)
			}
		})
	}
	t.Run("keyless", func(t *testing.T) {
		err := fmt.Errorf("daemonset %q: %w", "ns/x", Keyless{Err: planErr})
		want := `daemonset "ns/x": rolling update: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "x": bad`
		if diff := cmp.Diff(want, err.Error()); diff != "" {
			t.Errorf("text (-want,+got):\n%s", diff)
		}
		var de *daemon.Error
		if !errors.As(err, &de) || !errors.Is(err, daemon.ErrInvalidInput) || !IsInvalidSpec(err) {
			t.Errorf("errors.As/Is do not reach the plan's error through keyless")
		}
	})
}
