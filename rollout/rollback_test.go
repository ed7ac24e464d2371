package rollout_test

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

func TestRollbackTo(t *testing.T) {
	v1, v2, v3 := exampleDS("registry.example/agent:v1"), exampleDS("registry.example/agent:v2"), exampleDS("registry.example/agent:v3")
	// Mid-rollout from v1 to v2: revisions 1 (v1) and 2 (v2); v1 again
	// is a rollback to revision 1.
	revs := []*appsv1.ControllerRevision{nil, exampleRevision(v2, "agent-v2", "v2", 2), exampleRevision(v1, "agent-v1", "v1", 1)}
	for _, c := range []struct {
		name string
		ds   *appsv1.DaemonSet
		revs []*appsv1.ControllerRevision
		want int64
	}{
		{"back to the old revision", v1, revs, 1},
		{"the current revision", v2, revs, 2},
		{"a new template", v3, revs, 0},
		{"no history", v1, nil, 0},
	} {
		got, err := rollout.RollbackTo(c.ds, c.revs)
		if err != nil || got != c.want {
			t.Errorf("%s: RollbackTo = %d, %v; want %d", c.name, got, err, c.want)
		}
	}
	if _, err := rollout.RollbackTo(nil, revs); !errors.Is(err, rollout.ErrNilDaemonSet) {
		t.Errorf("nil DaemonSet: error %v, want ErrNilDaemonSet", err)
	}
}
