package daemon_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// clusterHistory changes a generated cluster step by step, the way an
// informer's cache changes between two syncs: an object that changes is
// replaced by a new one with a new resourceVersion (or, in a few steps,
// edited in place with its resourceVersion bumped or cleared, which the
// Planner's identity rule must also serve right).
type clusterHistory struct {
	r  *rand.Rand
	in simulate.Input
	rv int
}

func newClusterHistory(r *rand.Rand, cfg dt.ClusterConfig) *clusterHistory {
	h := &clusterHistory{r: r, in: dt.GenerateCluster(r, cfg).Input()}
	for _, n := range h.in.Nodes {
		if n != nil {
			n.ResourceVersion = h.nextRV()
		}
	}
	sparse := r.IntN(2) == 0 // in half the histories, a few objects have none
	for _, p := range h.in.Pods {
		if p != nil && (!sparse || r.IntN(10) != 0) {
			p.ResourceVersion = h.nextRV()
		}
	}
	for _, rev := range h.in.Options.Revisions {
		if rev != nil && rev.ResourceVersion == "" {
			rev.ResourceVersion = h.nextRV()
		}
	}
	return h
}

func (h *clusterHistory) nextRV() string {
	h.rv++
	return strconv.Itoa(h.rv)
}

// pickNode returns the index of a node picked at random, -1 when none.
func (h *clusterHistory) pickNode() int {
	if len(h.in.Nodes) == 0 || h.in.Nodes[0] == nil {
		return -1
	}
	i := h.r.IntN(len(h.in.Nodes))
	if h.in.Nodes[i] == nil {
		return -1
	}
	return i
}

func (h *clusterHistory) pickPod() int {
	if len(h.in.Pods) == 0 {
		return -1
	}
	i := h.r.IntN(len(h.in.Pods))
	if h.in.Pods[i] == nil {
		return -1
	}
	return i
}

// step makes one change and returns its name.
func (h *clusterHistory) step() string {
	in := &h.in
	switch h.r.IntN(16) {
	case 0: // relabel a node
		if i := h.pickNode(); i >= 0 {
			n := in.Nodes[i].DeepCopy()
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			n.Labels["zone"] = fmt.Sprint("z", h.r.IntN(3))
			n.ResourceVersion = h.nextRV()
			in.Nodes[i] = n
			return "relabel node " + n.Name
		}
	case 1: // taint or untaint a node
		if i := h.pickNode(); i >= 0 {
			n := in.Nodes[i].DeepCopy()
			if len(n.Spec.Taints) > 0 {
				n.Spec.Taints = nil
			} else {
				n.Spec.Taints = []corev1.Taint{{Key: "maintenance", Effect: corev1.TaintEffectNoSchedule}}
			}
			n.ResourceVersion = h.nextRV()
			in.Nodes[i] = n
			return "taint node " + n.Name
		}
	case 2: // a node joins
		n := dt.Node(fmt.Sprintf("joined-%d", h.rv))
		n.ResourceVersion = h.nextRV()
		in.Nodes = append(slices.Clone(in.Nodes), n)
		return "add node " + n.Name
	case 3: // a node leaves
		if i := h.pickNode(); i >= 0 {
			in.Nodes = slices.Delete(slices.Clone(in.Nodes), i, i+1)
			return "remove node"
		}
	case 4: // a pod becomes ready, or not
		if i := h.pickPod(); i >= 0 {
			p := in.Pods[i].DeepCopy()
			ready := corev1.ConditionTrue
			if h.r.IntN(2) == 0 {
				ready = corev1.ConditionFalse
			}
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.NewTime(in.Options.Now.Add(-time.Duration(h.r.IntN(60)) * time.Second))}}
			p.ResourceVersion = h.nextRV()
			in.Pods[i] = p
			return "pod readiness " + p.Name
		}
	case 5: // a pod fails
		if i := h.pickPod(); i >= 0 {
			p := in.Pods[i].DeepCopy()
			p.Status.Phase = corev1.PodFailed
			p.ResourceVersion = h.nextRV()
			in.Pods[i] = p
			return "pod fails " + p.Name
		}
	case 6: // a pod is deleted, or starts being deleted
		if i := h.pickPod(); i >= 0 {
			if h.r.IntN(2) == 0 {
				in.Pods = slices.Delete(slices.Clone(in.Pods), i, i+1)
				return "pod deleted"
			}
			p := in.Pods[i].DeepCopy()
			at := metav1.NewTime(in.Options.Now)
			p.DeletionTimestamp = &at
			p.ResourceVersion = h.nextRV()
			in.Pods[i] = p
			return "pod terminating " + p.Name
		}
	case 7: // the template changes
		ds := in.DaemonSet.DeepCopy()
		if len(ds.Spec.Template.Spec.Containers) > 0 {
			ds.Spec.Template.Spec.Containers[0].Image = fmt.Sprint("registry.example/agent:", h.rv)
		}
		ds.Generation++
		ds.ResourceVersion = h.nextRV()
		in.DaemonSet = ds
		return "template changes"
	case 8: // the placement changes
		ds := in.DaemonSet.DeepCopy()
		if ds.Spec.Template.Spec.NodeSelector == nil {
			ds.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "z1"}
		} else {
			ds.Spec.Template.Spec.NodeSelector = nil
		}
		ds.Generation++
		in.DaemonSet = ds
		return "placement changes"
	case 9: // the clock moves
		in.Options.Now = in.Options.Now.Add(time.Duration(1+h.r.IntN(30)) * time.Second)
		return "clock"
	case 10: // the lister's order changes
		in.Nodes, in.Pods = slices.Clone(in.Nodes), slices.Clone(in.Pods)
		h.r.Shuffle(len(in.Nodes), func(i, j int) { in.Nodes[i], in.Nodes[j] = in.Nodes[j], in.Nodes[i] })
		h.r.Shuffle(len(in.Pods), func(i, j int) { in.Pods[i], in.Pods[j] = in.Pods[j], in.Pods[i] })
		return "reorder"
	case 11: // a node edited in place, its resourceVersion bumped or cleared
		if i := h.pickNode(); i >= 0 {
			n := in.Nodes[i]
			n.Spec.Unschedulable = !n.Spec.Unschedulable
			n.ResourceVersion = ""
			if h.r.IntN(2) == 0 {
				n.ResourceVersion = h.nextRV()
			}
			return "edit node in place " + n.Name
		}
	case 12: // a pod edited in place, the same way
		if i := h.pickPod(); i >= 0 {
			p := in.Pods[i]
			if p.Labels == nil {
				p.Labels = map[string]string{}
			}
			p.Labels[appsv1.ControllerRevisionHashLabelKey] = fmt.Sprint("h", h.r.IntN(3))
			p.ResourceVersion = ""
			if h.r.IntN(2) == 0 {
				p.ResourceVersion = h.nextRV()
			}
			return "edit pod in place " + p.Name
		}
	case 14: // a node's status is written (a heartbeat): a new object, the same spec and labels
		if i := h.pickNode(); i >= 0 {
			n := in.Nodes[i].DeepCopy()
			n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: "Heartbeat", Status: corev1.ConditionTrue})
			n.ResourceVersion = h.nextRV()
			in.Nodes = slices.Clone(in.Nodes)
			in.Nodes[i] = n
			return "heartbeat " + n.Name
		}
	case 15: // nothing changes but the clock, or nothing at all
		if h.r.IntN(2) == 0 {
			in.Options.Now = in.Options.Now.Add(time.Duration(h.r.IntN(3)) * time.Hour)
		}
		return "resync"
	case 13: // a pod moves to another node (a new pod of the same name)
		if i, j := h.pickPod(), h.pickNode(); i >= 0 && j >= 0 {
			p := in.Pods[i].DeepCopy()
			p.Spec.NodeName = in.Nodes[j].Name
			p.ResourceVersion = h.nextRV()
			in.Pods[i] = p
			return "pod moves " + p.Name
		}
	}
	return "nothing"
}

// apply records the revisions a plan creates, as the controller would.
func (h *clusterHistory) apply(plan daemon.Plan) {
	if plan.History.Create == nil {
		return
	}
	r := plan.History.Create.DeepCopy()
	r.ResourceVersion = h.nextRV()
	h.in.Options.Revisions = append(slices.Clone(h.in.Options.Revisions), r)
}

// runHistory drives one Planner through steps changes of one generated
// cluster and checks each plan against Compute's. It returns how many
// plans the Planner reused as kept.
func runHistory(t *testing.T, seed uint64, cfg dt.ClusterConfig, steps int) uint64 {
	t.Helper()
	h := newClusterHistory(rand.New(rand.NewPCG(seed, 0x68697374)), cfg)
	p := daemon.NewPlanner()
	change := "start"
	for s := range steps {
		want := outcomeOf(h.in.Compute())
		got := outcomeOf(p.Compute(h.in.DaemonSet, h.in.Nodes, h.in.Pods, h.in.Options))
		if diff := diffOutcomes(want, got); diff != "" {
			t.Fatalf("seed %d, step %d (after %s): Planner.Compute differs from Compute (-Compute +Planner):\n%s", seed, s, change, diff)
		}
		h.apply(want.plan)
		change = h.step()
	}
	return daemon.PlansReused(p)
}

// TestPlannerHistories checks the Planner against Compute over generated
// cluster histories: nodes added, removed, relabelled and tainted, pods
// becoming ready, failing, deleted and moved, template and placement
// changes, revisions appearing, the clock moving, the lister's order
// changing, and objects edited in place.
func TestPlannerHistories(t *testing.T) {
	n := 60
	if testing.Short() || raceEnabled {
		n = 12
	}
	var reused uint64
	for i := range n {
		cfg := dt.ClusterConfig{}
		switch i % 3 {
		case 1:
			cfg = dt.ClusterConfig{Healthy: true, Nodes: 1 + i%30}
		case 2:
			cfg = dt.ClusterConfig{Healthy: true, Rollout: true, Nodes: 1 + i%30}
		}
		reused += runHistory(t, uint64(i), cfg, 40)
	}
	if reused == 0 {
		t.Errorf("no Planner reused a plan: the histories never checked a kept plan against Compute")
	}
	t.Logf("plans reused: %d of %d", reused, n*40)
}

// FuzzPlannerHistory drives a Planner through a random history of one
// generated cluster: every plan must equal Compute's.
func FuzzPlannerHistory(f *testing.F) {
	for i := range uint64(6) {
		f.Add(i, uint8(i), uint8(20))
	}
	f.Fuzz(func(t *testing.T, seed uint64, kind, steps uint8) {
		cfg := dt.ClusterConfig{}
		switch kind % 3 {
		case 1:
			cfg = dt.ClusterConfig{Healthy: true, Nodes: int(kind/3) % 40}
		case 2:
			cfg = dt.ClusterConfig{Healthy: true, Rollout: true, Nodes: int(kind/3) % 40}
		}
		runHistory(t, seed, cfg, 1+int(steps%48))
	})
}
