package daemontest_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// clusterOf turns a table input into a simulator cluster.
func clusterOf(in simulate.Input) *simulate.Cluster {
	return &simulate.Cluster{DaemonSet: in.DaemonSet, Nodes: in.Nodes, Pods: in.Pods, Revisions: in.Options.Revisions, Now: in.Options.Now}
}

func TestSimulate(t *testing.T) {
	tests := []struct {
		name         string
		in           simulate.Input
		cfg          simulate.Config
		want         simulate.Outcome
		wantDuration time.Duration
		wantCreates  int
		wantNodes    int
	}{
		{name: "a fresh DaemonSet converges in one batch",
			in: fresh(), cfg: simulate.Config{ReadyDelay: 5 * time.Second},
			want: simulate.OutcomeConverged, wantDuration: 5 * time.Second, wantCreates: 3, wantNodes: 4},
		{name: "a settled DaemonSet converges at once",
			in: settled(), want: simulate.OutcomeConverged, wantNodes: 4},
		{name: "maxUnavailable 1 takes one batch (grace, then readiness) per node",
			in: rollingOut(), cfg: simulate.Config{ReadyDelay: 5 * time.Second, GracePeriod: 10 * time.Second},
			want: simulate.OutcomeConverged, wantDuration: 3 * 15 * time.Second, wantCreates: 3, wantNodes: 4},
		{name: "maxUnavailable 100% takes one batch",
			in: rollingOut(dt.WithMaxUnavailable("100%")), cfg: simulate.Config{ReadyDelay: 5 * time.Second, GracePeriod: 10 * time.Second},
			want: simulate.OutcomeConverged, wantDuration: 15 * time.Second, wantCreates: 3, wantNodes: 4},
		{name: "maxSurge 1 takes one readiness per node, then the last grace period",
			in: surging(), cfg: simulate.Config{ReadyDelay: 5 * time.Second, GracePeriod: 10 * time.Second},
			want: simulate.OutcomeConverged, wantDuration: 3*5*time.Second + 10*time.Second, wantCreates: 3, wantNodes: 4},
		{name: "minReadySeconds adds to every batch",
			in: rollingOut(dt.WithMinReadySeconds(30)), cfg: simulate.Config{ReadyDelay: 5 * time.Second},
			want: simulate.OutcomeConverged, wantDuration: 3 * 35 * time.Second, wantCreates: 3, wantNodes: 4},
		{name: "a node that joins gets a pod",
			in: settled(), cfg: simulate.Config{Events: []simulate.Event{{At: time.Minute, Kind: simulate.NodeJoin, Node: dt.Node("n4")}}},
			want: simulate.OutcomeConverged, wantDuration: time.Minute, wantCreates: 1, wantNodes: 5},
		{name: "a node that leaves takes its pod along",
			in: settled(), cfg: simulate.Config{Events: []simulate.Event{{At: time.Minute, Kind: simulate.NodeLeave, NodeName: "n2"}}},
			want: simulate.OutcomeConverged, wantDuration: time.Minute, wantNodes: 3},
		{name: "a template change mid-rollout converges on the newest template",
			in: rollingOut(), cfg: simulate.Config{ReadyDelay: 5 * time.Second,
				Events: []simulate.Event{{At: 7 * time.Second, Kind: simulate.TemplateChange, Image: "registry.example/fluentd:v3"}}},
			// n1 and n2 run v2 pods at 7s; n2's is not ready yet, so it is
			// replaced at once, then n1 and n3 one by one.
			want: simulate.OutcomeConverged, wantDuration: 7*time.Second + 3*5*time.Second, wantCreates: 5, wantNodes: 4},
		{name: "a node NotReady for a minute delays the rollout by as much",
			in: rollingOut(), cfg: simulate.Config{ReadyDelay: 5 * time.Second, Events: []simulate.Event{
				{At: 2 * time.Second, Kind: simulate.NodeNotReady, NodeName: "n1"},
				{At: 62 * time.Second, Kind: simulate.NodeReady, NodeName: "n1"}}},
			want: simulate.OutcomeConverged, wantDuration: 62*time.Second + 2*5*time.Second, wantCreates: 3, wantNodes: 4},
		{name: "pods that always fail never converge",
			in: fresh(), cfg: simulate.Config{FailFraction: 1, MaxSteps: 200},
			want: simulate.OutcomeStepLimit, wantNodes: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Check = dt.Checker(dt.CheckOptions{})
			res := simulate.Run(clusterOf(tt.in), tt.cfg)
			if res.Outcome != tt.want {
				t.Fatalf("Outcome = %s (%s), want %s", res.Outcome, res.Reason, tt.want)
			}
			if tt.want == simulate.OutcomeConverged {
				if err := res.Err(); err != nil {
					t.Fatal(err)
				}
				if got := res.Duration(); got != tt.wantDuration {
					t.Errorf("Duration() = %v, want %v", got, tt.wantDuration)
				}
			}
			creates := 0
			for _, st := range res.Steps {
				creates += st.Creates
				if len(st.Violations) > 0 {
					t.Errorf("step %d: %v", st.Step, st.Violations)
				}
			}
			if tt.want == simulate.OutcomeConverged && creates != tt.wantCreates {
				t.Errorf("%d creates in all, want %d", creates, tt.wantCreates)
			}
			if len(res.Final.Nodes) != tt.wantNodes {
				t.Errorf("%d nodes at the end, want %d", len(res.Final.Nodes), tt.wantNodes)
			}
		})
	}
}

// TestSimulateNotReadyNodeStallsRollout records upstream's behaviour, not
// a bug: a node that turns NotReady while its new pod starts keeps that pod
// (it tolerates the not-ready NoExecute taint) but the pod never becomes
// available; the rolling step counts it against maxUnavailable 1 and
// replaces no other old pod, for as long as the node stays NotReady.
func TestSimulateNotReadyNodeStallsRollout(t *testing.T) {
	cfg := simulate.Config{ReadyDelay: 5 * time.Second, Check: dt.Checker(dt.CheckOptions{}),
		Events: []simulate.Event{{At: 2 * time.Second, Kind: simulate.NodeNotReady, NodeName: "n1"}}}
	res := simulate.Run(clusterOf(rollingOut()), cfg)
	if res.Outcome != simulate.OutcomeStalled {
		t.Fatalf("Outcome = %s (%s), want %s", res.Outcome, res.Reason, simulate.OutcomeStalled)
	}
	if want := `node "n2" runs pod fluentd-n2, which is not updated`; len(res.Reason) < len(want) || res.Reason[:len(want)] != want {
		t.Errorf("Reason = %q, want it to start with %q", res.Reason, want)
	}
	if err := res.Err(); !errors.Is(err, simulate.ErrNotConverged) || errors.Is(err, dt.ErrViolation) {
		t.Errorf("Err() = %v, want ErrNotConverged only", err)
	}
}

// TestSimulateSelectorMismatchLivelock records upstream's behaviour with a
// DaemonSet the API server would refuse: its selector does not match its
// template, so every pod it creates is released by the next sync, which
// creates again, at the same instant, without end.
func TestSimulateSelectorMismatchLivelock(t *testing.T) {
	in := fresh()
	in.DaemonSet.Spec.Template.Labels = map[string]string{"app": "not-fluentd"}
	res := simulate.Run(clusterOf(in), simulate.Config{MaxSteps: 20, Check: dt.Checker(dt.CheckOptions{})})
	if res.Outcome != simulate.OutcomeStepLimit || res.Duration() != 0 {
		t.Fatalf("Outcome = %s after %v, want %s at once", res.Outcome, res.Duration(), simulate.OutcomeStepLimit)
	}
	for _, st := range res.Steps {
		if st.Creates != 3 || len(st.Violations) > 0 {
			t.Errorf("step %d: %d creates, violations %v; want 3 creates in every step", st.Step, st.Creates, st.Violations)
		}
	}
}

// TestSimulateFailedPodBackoff lets every pod fail: the deletions of
// failed pods on one node wait 1s, 2s, 4s, ... after the previous one.
func TestSimulateFailedPodBackoff(t *testing.T) {
	in := fresh()
	in.Nodes = in.Nodes[:1]
	res := simulate.Run(clusterOf(in), simulate.Config{FailFraction: 1, MaxSteps: 60, Check: dt.Checker(dt.CheckOptions{})})
	var at []time.Duration
	for _, st := range res.Steps {
		if len(st.FailedDeletes) > 0 {
			at = append(at, st.At)
		}
	}
	want := []time.Duration{0, 1, 3, 7, 15, 31, 63, 127}
	for i := range want {
		want[i] *= time.Second
	}
	if len(at) > len(want) {
		at = at[:len(want)]
	}
	if diff := cmp.Diff(want, at); diff != "" {
		t.Errorf("failed-pod deletions (-want +got):\n%s", diff)
	}
}

func TestSimulateDeterministic(t *testing.T) {
	cfg := simulate.Config{Seed: 3, ReadyDelay: 3 * time.Second, GracePeriod: time.Second, BindDelay: time.Second, FailFraction: 0.4, MaxSteps: 300}
	a := simulate.Run(clusterOf(rollingOut()), cfg)
	b := simulate.Run(clusterOf(rollingOut()), cfg)
	if diff := cmp.Diff(a, b, allExported); diff != "" {
		t.Errorf("two runs differ (-first +second):\n%s", diff)
	}
}

func TestSimulateInputUnchanged(t *testing.T) {
	c := clusterOf(rollingOut())
	before := c.DeepCopy()
	simulate.Run(c, simulate.Config{ReadyDelay: time.Second, GracePeriod: time.Second})
	if diff := cmp.Diff(before, c, allExported); diff != "" {
		t.Errorf("Run() modified its cluster (-before +after):\n%s", diff)
	}
}

func TestSimulateStepLimit(t *testing.T) {
	res := simulate.Run(clusterOf(rollingOut()), simulate.Config{MaxSteps: 1})
	if res.Outcome != simulate.OutcomeStepLimit || len(res.Steps) != 1 {
		t.Fatalf("Outcome = %s after %d steps, want %s after 1", res.Outcome, len(res.Steps), simulate.OutcomeStepLimit)
	}
	if err := res.Err(); !errors.Is(err, simulate.ErrNotConverged) {
		t.Errorf("Err() = %v, want ErrNotConverged", err)
	}
}

func TestConverged(t *testing.T) {
	in := settled()
	hash := dt.Hash(in.DaemonSet)
	tests := []struct {
		name    string
		change  func(c *simulate.Cluster)
		wantErr bool
	}{
		{name: "every node runs one current available pod", change: func(*simulate.Cluster) {}},
		{name: "a node without a pod", change: func(c *simulate.Cluster) { c.Pods = c.Pods[1:] }, wantErr: true},
		{name: "a node with two pods", change: func(c *simulate.Cluster) {
			c.Pods = append(c.Pods, dt.Pod(c.DaemonSet, "extra", "n1"))
		}, wantErr: true},
		{name: "an old pod", change: func(c *simulate.Cluster) { c.Pods[0] = dt.Pod(c.DaemonSet, "old", "n1", dt.WithHash("old")) }, wantErr: true},
		{name: "an old pod under OnDelete", change: func(c *simulate.Cluster) {
			c.Pods[0] = dt.Pod(c.DaemonSet, "old", "n1", dt.WithHash("old"))
			dt.OnDelete()(c.DaemonSet)
		}},
		{name: "an unready pod", change: func(c *simulate.Cluster) { c.Pods[0] = dt.Pod(c.DaemonSet, "p", "n1", dt.NotReadyPod()) }, wantErr: true},
		{name: "a pod being deleted", change: func(c *simulate.Cluster) {
			c.Pods[0].DeletionTimestamp = &metav1.Time{Time: dt.Epoch}
		}, wantErr: true},
		{name: "a pod on the untolerated control-plane node", change: func(c *simulate.Cluster) {
			c.Pods = append(c.Pods, dt.Pod(c.DaemonSet, "cp-pod", "cp"))
		}},
		{name: "an old pod on the untolerated control-plane node", change: func(c *simulate.Cluster) {
			c.Pods = append(c.Pods, dt.Pod(c.DaemonSet, "cp-pod", "cp", dt.WithHash("old")))
		}, wantErr: true},
		{name: "a pod on a NoExecute-tainted node", change: func(c *simulate.Cluster) {
			c.Nodes = append(c.Nodes, dt.Node("tainted", dt.WithTaint("dedicated", "x", corev1.TaintEffectNoExecute)))
			c.Pods = append(c.Pods, dt.Pod(c.DaemonSet, "t-pod", "tainted"))
		}, wantErr: true},
		{name: "a pod on a missing node", change: func(c *simulate.Cluster) {
			c.Pods = append(c.Pods, dt.Pod(c.DaemonSet, "lost", "gone"))
		}, wantErr: true},
		{name: "a pod of another owner is not judged", change: func(c *simulate.Cluster) {
			c.Pods = append(c.Pods, dt.Pod(dt.DaemonSet("other"), "other", "n1"))
		}},
		{name: "a nil DaemonSet", change: func(c *simulate.Cluster) { c.DaemonSet = nil }, wantErr: true},
		// The next two panicked.
		{name: "a nil node entry", change: func(c *simulate.Cluster) { c.Nodes = append(c.Nodes, nil) }, wantErr: true},
		{name: "a nil pod entry", change: func(c *simulate.Cluster) { c.Pods = append(c.Pods, nil) }, wantErr: true},
		// Was counted on n1 (a second pod) for its UID alone; Compute's
		// claim, like upstream's pod listing, also compares kind and name.
		{name: "a pod whose controller reference has the DaemonSet's UID but another kind is not judged", change: func(c *simulate.Cluster) {
			p := dt.Pod(c.DaemonSet, "rs-pod", "n1")
			p.OwnerReferences[0].Kind = "ReplicaSet"
			c.Pods = append(c.Pods, p)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clusterOf(settled())
			tt.change(c)
			if err := simulate.Converged(c, hash); (err != nil) != tt.wantErr {
				t.Errorf("Converged() = %v, want error %v", err, tt.wantErr)
			}
		})
	}
	if err := simulate.Converged(nil, hash); err == nil {
		t.Errorf("Converged(nil) = nil, want an error")
	}
}

// TestSimulateInvalidCluster: a cluster Compute refuses is not simulated;
// Run reports it instead of panicking (it panicked on all but the nil
// revision).
func TestSimulateInvalidCluster(t *testing.T) {
	tests := []struct {
		name       string
		cluster    func() *simulate.Cluster
		wantReason string
	}{
		{name: "a nil cluster", cluster: func() *simulate.Cluster { return nil }, wantReason: "no cluster"},
		{name: "a nil DaemonSet", cluster: func() *simulate.Cluster {
			c := clusterOf(settled())
			c.DaemonSet = nil
			return c
		}, wantReason: "no DaemonSet"},
		{name: "a nil node entry", cluster: func() *simulate.Cluster {
			c := clusterOf(settled())
			c.Nodes[1] = nil
			return c
		}, wantReason: "nodes[1] is nil"},
		{name: "a nil pod entry", cluster: func() *simulate.Cluster {
			c := clusterOf(settled())
			c.Pods = append(c.Pods, nil)
			return c
		}, wantReason: "pods[3] is nil"},
		{name: "a nil revision entry", cluster: func() *simulate.Cluster {
			c := clusterOf(settled())
			c.Revisions = append(c.Revisions, nil)
			return c
		}, wantReason: "revisions[1] is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.cluster()
			res := simulate.Run(c, simulate.Config{Check: dt.Checker(dt.CheckOptions{})})
			if res.Outcome != simulate.OutcomeStalled || len(res.Steps) != 0 {
				t.Errorf("Outcome = %s after %d steps, want %s after none", res.Outcome, len(res.Steps), simulate.OutcomeStalled)
			}
			if !strings.Contains(res.Reason, tt.wantReason) {
				t.Errorf("Reason = %q, want it to contain %q", res.Reason, tt.wantReason)
			}
			if err := res.Err(); !errors.Is(err, simulate.ErrNotConverged) {
				t.Errorf("Err() = %v, want ErrNotConverged", err)
			}
			if diff := cmp.Diff(c, res.Final, allExported); diff != "" {
				t.Errorf("Final is not a copy of the cluster (-cluster +final):\n%s", diff)
			}
		})
	}
}

// TestSimulateSameNameOtherNamespace: the simulator keyed pods (and their
// timers) by name alone, so an action on the DaemonSet's pod p1 could land
// on a pod p1 of another namespace. Each case puts the pod of the other
// namespace where a name-only lookup finds it first.
func TestSimulateSameNameOtherNamespace(t *testing.T) {
	tests := []struct {
		name string
		// mine is p1 of the DaemonSet's namespace, other p1 of namespace
		// elsewhere, put first when otherFirst; the cluster is settled()
		// with a fourth worker n4, which runs a pod of the DaemonSet
		// unless mine targets it.
		mine, other func(ds *appsv1.DaemonSet) *corev1.Pod
		otherFirst  bool
		cfg         simulate.Config
		// wantMine: "adopted", or "gone"; wantOther: "unchanged" or "gone".
		wantMine, wantOther string
	}{
		{name: "the orphan of the DaemonSet's namespace is adopted",
			mine: func(ds *appsv1.DaemonSet) *corev1.Pod {
				return dt.Pod(ds, "p1", "n4", dt.Orphan())
			},
			other: func(ds *appsv1.DaemonSet) *corev1.Pod {
				return dt.Pod(ds, "p1", "n4", dt.Orphan())
			},
			otherFirst: true, wantMine: "adopted", wantOther: "unchanged"},
		{name: "the younger orphan beside a pod is adopted and deleted",
			mine: func(ds *appsv1.DaemonSet) *corev1.Pod {
				return dt.Pod(ds, "p1", "n1", dt.Orphan(), dt.CreatedAt(dt.Epoch))
			},
			other: func(ds *appsv1.DaemonSet) *corev1.Pod {
				return dt.Pod(ds, "p1", "n1", dt.Orphan(), dt.CreatedAt(dt.Epoch))
			},
			otherFirst: true, cfg: simulate.Config{GracePeriod: 10 * time.Second}, wantMine: "gone", wantOther: "unchanged"},
		{name: "the grace period of a pod of another namespace ends it, not the DaemonSet's",
			mine: func(ds *appsv1.DaemonSet) *corev1.Pod {
				return dt.Pod(ds, "p1", "n4", dt.Orphan())
			},
			other: func(ds *appsv1.DaemonSet) *corev1.Pod {
				return dt.Pod(ds, "p1", "n4", dt.Deleting(dt.Epoch))
			},
			cfg: simulate.Config{GracePeriod: 10 * time.Second}, wantMine: "adopted", wantOther: "gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := settled()
			ds := in.DaemonSet
			in.Nodes = append(in.Nodes, dt.Node("n4"))
			mine, other := tt.mine(ds), tt.other(ds)
			if mine.Spec.NodeName != "n4" {
				in.Pods = append(in.Pods, dt.Pod(ds, "fluentd-n4", "n4"))
			}
			other.Namespace, other.UID = "elsewhere", "uid-elsewhere-p1"
			if tt.otherFirst {
				in.Pods = append([]*corev1.Pod{other, mine}, in.Pods...)
			} else {
				in.Pods = append([]*corev1.Pod{mine, other}, in.Pods...)
			}
			otherBefore := other.DeepCopy()
			tt.cfg.Check = dt.Checker(dt.CheckOptions{})
			res := simulate.Run(clusterOf(in), tt.cfg)
			if err := res.Err(); err != nil {
				t.Fatal(err)
			}
			find := func(namespace string) *corev1.Pod {
				for _, p := range res.Final.Pods {
					if p.Namespace == namespace && p.Name == "p1" {
						return p
					}
				}
				return nil
			}
			switch got := find(ds.Namespace); tt.wantMine {
			case "adopted":
				if got == nil || metav1.GetControllerOf(got) == nil || metav1.GetControllerOf(got).UID != ds.UID {
					t.Errorf("%s/p1 = %v, want it adopted by the DaemonSet", ds.Namespace, got)
				}
			case "gone":
				if got != nil {
					t.Errorf("%s/p1 is still there, want it deleted", ds.Namespace)
				}
			}
			switch got := find("elsewhere"); tt.wantOther {
			case "unchanged":
				if diff := cmp.Diff(otherBefore, got, allExported); diff != "" {
					t.Errorf("elsewhere/p1 changed (-before +after):\n%s", diff)
				}
			case "gone":
				if got != nil {
					t.Errorf("elsewhere/p1 is still there, want its grace period to have removed it")
				}
			}
		})
	}
}

// TestSimulateEventsFarApart: events were sorted by int(a.At - b.At),
// which overflows for events some 300 years apart and put the later one
// first, holding back the earlier.
func TestSimulateEventsFarApart(t *testing.T) {
	const year = 365 * 24 * time.Hour
	cfg := simulate.Config{Check: dt.Checker(dt.CheckOptions{}), Events: []simulate.Event{
		{At: 200 * year, Kind: simulate.NodeJoin, Node: dt.Node("late")},
		{At: -100 * year, Kind: simulate.NodeJoin, Node: dt.Node("n4")},
	}}
	res := simulate.Run(clusterOf(settled()), cfg)
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if got, want := res.Steps[0].Events, []string{"NodeJoin n4"}; !slices.Equal(got, want) {
		t.Errorf("events of the first step = %q, want %q", got, want)
	}
	if got, want := res.Duration(), 200*year; got != want {
		t.Errorf("Duration() = %v, want %v", got, want)
	}
}

// TestSimulateStepErrors: a step's Err is Compute's error without the
// DaemonSet, which the simulation is of (daemon.Error.Message); before the
// one error contract it carried the DaemonSet's key.
func TestSimulateStepErrors(t *testing.T) {
	tests := []struct {
		name string
		in   simulate.Input
		want string
	}{
		{name: "an unparsable maxSurge fails every step's rolling update",
			in:   rollingOut(dt.WithMaxSurge("abc%")),
			want: `rolling update: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "abc%": must be an integer or a percentage such as "25%"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := simulate.Run(clusterOf(tt.in), simulate.Config{MaxSteps: 3})
			if len(res.Steps) == 0 {
				t.Fatalf("no step: %s", res.Reason)
			}
			if diff := cmp.Diff(tt.want, res.Steps[0].Err); diff != "" {
				t.Errorf("Steps[0].Err (-want,+got):\n%s", diff)
			}
		})
	}
}
