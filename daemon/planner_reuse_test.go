package daemon_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// reuseInput is a small settled cluster whose objects carry
// resourceVersions, as an informer's do.
type reuseInput struct {
	ds    *appsv1.DaemonSet
	nodes []*corev1.Node
	pods  []*corev1.Pod
	opts  daemon.Options
}

func newReuseInput(opts ...dt.DaemonSetOption) reuseInput {
	ds := dt.DaemonSet("agent", opts...)
	ds.ResourceVersion = "7"
	rev := dt.Revision(ds, 1)
	rev.ResourceVersion = "8"
	in := reuseInput{ds: ds, opts: daemon.Options{Now: dt.Epoch, Revisions: []*appsv1.ControllerRevision{rev}}}
	for i := range 4 {
		n := dt.Node(fmt.Sprintf("node-%d", i))
		n.ResourceVersion = fmt.Sprint(100 + i)
		p := dt.Pod(ds, fmt.Sprintf("agent-%d", i), n.Name)
		p.ResourceVersion = fmt.Sprint(200 + i)
		in.nodes, in.pods = append(in.nodes, n), append(in.pods, p)
	}
	return in
}

// TestPlannerReusesOnlyWhatCannotChange: a Planner returns its last plan
// again, without computing it, exactly when nothing the plan reads
// changed, and that plan is Compute's in every case.
func TestPlannerReusesOnlyWhatCannotChange(t *testing.T) {
	tests := []struct {
		name   string
		start  []dt.DaemonSetOption
		change func(in *reuseInput)
		// reused: the plan after the change is the last one, returned
		// again; nodeChange: only once the Planner reads its objects
		// into entries.
		reused, nodeChange bool
	}{
		{name: "the same objects again", change: func(*reuseInput) {}, reused: true},
		{name: "a later clock", change: func(in *reuseInput) { in.opts.Now = in.opts.Now.Add(time.Hour) }, reused: true},
		{name: "an earlier clock", change: func(in *reuseInput) { in.opts.Now = in.opts.Now.Add(-time.Hour) }},
		{name: "a node's heartbeat: a new object of the same verdict", reused: true, nodeChange: true, change: func(in *reuseInput) {
			n := in.nodes[1].DeepCopy()
			n.ResourceVersion, n.Status.Conditions = "999", append(n.Status.Conditions, corev1.NodeCondition{Type: "Heartbeat"})
			in.nodes = slices.Clone(in.nodes)
			in.nodes[1] = n
		}},
		{name: "a node relabelled, no selector reads the label", reused: true, nodeChange: true, change: func(in *reuseInput) {
			n := in.nodes[2].DeepCopy()
			n.ResourceVersion, n.Labels = "999", map[string]string{"unread": "yes"}
			in.nodes = slices.Clone(in.nodes)
			in.nodes[2] = n
		}},
		{name: "a node tainted: its verdict changes", change: func(in *reuseInput) {
			n := in.nodes[2].DeepCopy()
			n.ResourceVersion = "999"
			n.Spec.Taints = []corev1.Taint{{Key: "maintenance", Effect: corev1.TaintEffectNoExecute}}
			in.nodes = slices.Clone(in.nodes)
			in.nodes[2] = n
		}},
		{name: "a node edited in place, its resourceVersion kept", reused: true, change: func(in *reuseInput) {
			// The caller breaks the identity rule; the verdict is the same
			// (daemon pods tolerate unschedulable), so is the plan.
			in.nodes[0].Spec.Unschedulable = true
		}},
		{name: "a node leaves", change: func(in *reuseInput) { in.nodes = in.nodes[:3] }},
		{name: "a pod becomes not ready", change: func(in *reuseInput) {
			p := in.pods[3].DeepCopy()
			p.ResourceVersion, p.Status.Conditions = "999", nil
			in.pods = slices.Clone(in.pods)
			in.pods[3] = p
		}},
		{name: "the lister's order changes", change: func(in *reuseInput) {
			in.nodes = slices.Clone(in.nodes)
			slices.Reverse(in.nodes)
		}},
		{name: "the DaemonSet edited in place, its resourceVersion kept", change: func(in *reuseInput) {
			in.ds.Spec.Template.Spec.Containers[0].Image = "registry.example/agent:v9"
		}},
		{name: "the DaemonSet's status changes", change: func(in *reuseInput) {
			ds := in.ds.DeepCopy()
			ds.ResourceVersion, ds.Status.NumberReady = "9", 1
			in.ds = ds
		}},
		{name: "a revision, the same content in a new object", change: func(in *reuseInput) {
			r := in.opts.Revisions[0].DeepCopy()
			r.ResourceVersion = "99"
			in.opts.Revisions = []*appsv1.ControllerRevision{r}
		}},
		{name: "a standing asked for", change: func(in *reuseInput) { in.opts.ReportStanding = true }},
		{name: "a policy", change: func(in *reuseInput) { in.opts.Rollout.Paused = true }},
		{name: "another burst", change: func(in *reuseInput) { in.opts.BurstReplicas = 1 }},
		{name: "a pod on its way to available is never kept", start: []dt.DaemonSetOption{dt.WithMinReadySeconds(7200)},
			change: func(in *reuseInput) { in.opts.Now = in.opts.Now.Add(time.Minute) }},
	}
	// heartbeat replaces node i by a new object of its own (a status write).
	heartbeat := func(in *reuseInput, i int, rv string) {
		n := in.nodes[i].DeepCopy()
		n.ResourceVersion = rv
		in.nodes = slices.Clone(in.nodes)
		in.nodes[i] = n
	}
	for _, tt := range tests {
		// After a first plan, a Planner holds only the objects given (see
		// Planner); once they changed, it reads them into entries.
		for _, read := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/entries=%v", tt.name, read), func(t *testing.T) {
				in := newReuseInput(tt.start...)
				p := daemon.NewPlanner()
				if _, err := p.Compute(in.ds, in.nodes, in.pods, in.opts); err != nil {
					t.Fatal(err)
				}
				if read {
					heartbeat(&in, 3, "500")
					if _, err := p.Compute(in.ds, in.nodes, in.pods, in.opts); err != nil {
						t.Fatal(err)
					}
				}
				before := daemon.PlansReused(p)
				tt.change(&in)
				want := outcomeOf(daemon.Compute(in.ds, in.nodes, in.pods, in.opts))
				got := outcomeOf(p.Compute(in.ds, in.nodes, in.pods, in.opts))
				if diff := diffOutcomes(want, got); diff != "" {
					t.Errorf("Planner.Compute differs from Compute (-Compute +Planner):\n%s", diff)
				}
				wantReused := tt.reused && (read || !tt.nodeChange)
				if reused := daemon.PlansReused(p) > before; reused != wantReused {
					t.Errorf("plan reused = %v, want %v", reused, wantReused)
				}
				again := outcomeOf(p.Compute(in.ds, in.nodes, in.pods, in.opts))
				if diff := diffOutcomes(want, again); diff != "" {
					t.Errorf("the next plan differs from Compute (-Compute +Planner):\n%s", diff)
				}
			})
		}
	}
}
