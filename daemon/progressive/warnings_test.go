package progressive_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

func TestAnnotationWarnings(t *testing.T) {
	for _, c := range []struct {
		key  string
		want []string
	}{
		{"rollout.deamonplan.io/partition", []string{"metadata.annotations[rollout.deamonplan.io/partition]: ignored, not a rollout annotation: did you mean rollout.daemonplan.io/partition?"}},
		{"rollout.daemon-plan.io/order-by", []string{"metadata.annotations[rollout.daemon-plan.io/order-by]: ignored, not a rollout annotation: did you mean rollout.daemonplan.io/order-by?"}},
		{"rollout.daemonplan.io.partition", []string{"metadata.annotations[rollout.daemonplan.io.partition]: ignored, not a rollout annotation: did you mean rollout.daemonplan.io/partition?"}},
		{"Rollout.DaemonPlan.io/paused", []string{"metadata.annotations[Rollout.DaemonPlan.io/paused]: ignored, not a rollout annotation: did you mean rollout.daemonplan.io/paused?"}},
		// Under the prefix, or refused by ParseAnnotations: not warnings.
		{"rollout.daemonplan.io/partition", nil},
		{"rollouts.daemonplan.io/partition", nil},
		// Far from the prefix.
		{"rollout.example.com/partition", nil},
		{"app.kubernetes.io/name", nil},
		{"rollout.daemonplan.io", nil},
	} {
		got := progressive.AnnotationWarnings(map[string]string{c.key: "1", "app": "x"})
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.key, diff)
		}
	}
}

func TestForDaemonSetWarnings(t *testing.T) {
	ds := dt.DaemonSet("agent")
	ds.Annotations = map[string]string{"rollout.deamonplan.io/partition": "50%"}
	ro, err := progressive.ForDaemonSet(ds)
	if err != nil || ro.Annotations != nil || len(ro.Warnings) != 1 || !strings.Contains(ro.Warnings[0], "did you mean rollout.daemonplan.io/partition?") {
		t.Errorf("ForDaemonSet = %+v, %v: want not opted in, no error, one warning", ro, err)
	}
}

func TestOrderWarnings(t *testing.T) {
	nodes := []*corev1.Node{dt.Node("n1", dt.WithLabel(zone, "a")), nil, dt.Node("n2", dt.WithLabel(zone, "b")), dt.Node("n3")}
	for _, c := range []struct {
		name  string
		order daemon.UpdateOrder
		want  []string
	}{
		{"no order", daemon.UpdateOrder{}, nil},
		{"all values match", daemon.UpdateOrder{Label: zone, Values: []string{"b", "a"}}, nil},
		{"a label no node has", daemon.UpdateOrder{Label: "topology.kubernetes.io/zoen", Values: []string{"a"}},
			[]string{`no node has the order label "topology.kubernetes.io/zoen": it orders nothing`}},
		{"values no node has", daemon.UpdateOrder{Label: zone, Values: []string{"c", "a", "eu-west-1d"}},
			[]string{`no node has the order values "c", "eu-west-1d" of topology.kubernetes.io/zone (the nodes have a, b)`}},
	} {
		p := daemon.RolloutPolicy{Order: c.order}
		if diff := cmp.Diff(c.want, progressive.OrderWarnings(&p, nodes)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// FuzzAnnotationWarnings checks that a warning names its key, suggests a
// key under the prefix, and never comes for a key ParseAnnotations reads
// or refuses.
func FuzzAnnotationWarnings(f *testing.F) {
	for _, k := range []string{"rollout.deamonplan.io/partition", "rollout.daemonplan.io.partition", pfx + "paused", "a/b", "rollout.daemonplan.io."} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		in := map[string]string{k: "1"}
		got := progressive.AnnotationWarnings(in)
		if len(got) == 0 {
			return
		}
		if len(got) != 1 || !strings.Contains(got[0], "["+k+"]") || !strings.Contains(got[0], "did you mean "+progressive.AnnotationPrefix) {
			t.Fatalf("AnnotationWarnings(%q) = %q", k, got)
		}
		if a, err := progressive.ParseAnnotations(in); a != nil || err != nil {
			t.Fatalf("%q is both a warning and parsed: %v, %v", k, a, err)
		}
	})
}
