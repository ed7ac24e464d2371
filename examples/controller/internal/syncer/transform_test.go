package syncer

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/daemon/whatif"
	"github.com/daemonplan/daemonplan/examples/controller/internal/kubetest"
)

// TestPlanningViewKeepsPlans plans generated clusters (chaotic, healthy,
// mid-rollout) twice: with every object padded with the fields the
// transform drops (managedFields, annotations, containers, tolerations,
// volumes, container statuses, more conditions around the Ready one and a
// second, contrary Ready after it, node capacity, images, addresses, …),
// and with the same objects passed through PlanningView, as the informers
// store them. The plans, their errors, the rollout's whole judgement (the
// companion's progress), the gates' hold and the unavailability breakdown
// must be the same: a field the transform drops and a decision reads fails
// here.
func TestPlanningViewKeepsPlans(t *testing.T) {
	for i := range 200 {
		cfg := dt.ClusterConfig{}
		switch i % 4 {
		case 1:
			cfg = dt.ClusterConfig{Healthy: true}
		case 2:
			cfg = dt.ClusterConfig{Healthy: true, Rollout: true, Nodes: 1 + i%30}
		case 3:
			cfg.Nodes = 1 + i%30
		}
		r := rand.New(rand.NewPCG(uint64(i), 0x7472696d))
		c := dt.GenerateCluster(r, cfg)
		kubetest.Pad(r, c)
		thin := c.DeepCopy()
		view(t, thin)
		for _, policy := range []daemon.RolloutPolicy{c.Rollout, {Order: daemon.UpdateOrder{Label: "zone"}}} {
			fat, lean := c.Input(), thin.Input()
			fat.Options.Rollout, lean.Options.Rollout = policy, policy
			name := fmt.Sprintf("generated-%03d/order=%q", i, policy.Order.Label)
			if d := cmp.Diff(verdicts(fat), verdicts(lean), viewOptions); d != "" {
				t.Errorf("%s: padded vs transformed (-padded +transformed):\n%s", name, d)
			}
		}
	}
}

// verdictSet is every decision made from one input.
type verdictSet struct {
	Plan daemon.Plan
	Err  string
	// Judgement is progressive.Judge of a plan with its standing, the
	// companion's progress.
	Judgement   progressive.Judgement
	CompleteErr string
	Unavailable whatif.Unavailability
	UnavailErr  string
	ShouldRun   []string
	// Hold is what the default health gates, and an approval point after
	// every wave, hold (progressive.Gates.Hold of the judged plan).
	Hold    progressive.Hold
	HoldErr string
}

func verdicts(in simulate.Input) verdictSet {
	var v verdictSet
	var err error
	v.Plan, err = daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, in.Options)
	v.Err = errText(err)
	// The rollout's judgement, from a plan with its standing, as the
	// companion judges it.
	withStanding := in.Options
	withStanding.ReportStanding = true
	if plan, err := daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, withStanding); err != nil {
		v.CompleteErr = errText(err)
	} else {
		j, err := progressive.Judge(in.DaemonSet, &plan)
		v.Judgement, v.CompleteErr = j, errText(err)
		if err == nil {
			gates := progressive.Gates{
				Health:     progressive.HealthGates{On: true, MaxRestarts: progressive.DefaultMaxRestarts, ReadyTimeout: progressive.DefaultReadyTimeout},
				PauseAfter: []string{"every-wave"},
			}
			v.Hold, err = gates.Hold(in.DaemonSet, &plan, j, in.Options.Now, nil)
			v.HoldErr = errText(err)
		}
	}
	v.Unavailable, err = whatif.Unavailable(in.DaemonSet, in.Nodes, in.Pods, in.Options)
	v.UnavailErr = errText(err)
	elig := eligibility.New(in.DaemonSet, in.Options.EnableTaintTolerationComparisonOperators)
	for _, n := range in.Nodes {
		run, keep := elig.ShouldRun(n)
		v.ShouldRun = append(v.ShouldRun, fmt.Sprintf("%s run=%v keep=%v", n.Name, run, keep))
	}
	return v
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// viewOptions compare the pods and nodes a result points to by what the
// transform keeps of them: the padded and the transformed objects differ
// in everything else by construction.
var viewOptions = cmp.Options{
	cmp.Exporter(func(t reflect.Type) bool {
		return strings.HasPrefix(t.PkgPath(), "github.com/daemonplan/daemonplan/")
	}),
	cmp.Transformer("planningPod", func(p *corev1.Pod) *corev1.Pod {
		if p == nil {
			return nil
		}
		return planningPod(p)
	}),
	cmp.Transformer("planningNode", func(n *corev1.Node) *corev1.Node {
		if n == nil {
			return nil
		}
		return planningNode(n)
	}),
	cmp.Transformer("planningRevision", func(r *appsv1.ControllerRevision) *appsv1.ControllerRevision {
		if r == nil {
			return nil
		}
		v, _ := PlanningView(r)
		return v.(*appsv1.ControllerRevision)
	}),
}

// view replaces every object of c by its PlanningView.
func view(t *testing.T, c *simulate.Cluster) {
	t.Helper()
	get := func(o any) any {
		v, err := PlanningView(o)
		if err != nil {
			t.Fatalf("PlanningView: %v", err)
		}
		return v
	}
	c.DaemonSet = get(c.DaemonSet).(*appsv1.DaemonSet)
	for i, n := range c.Nodes {
		c.Nodes[i] = get(n).(*corev1.Node)
	}
	for i, p := range c.Pods {
		c.Pods[i] = get(p).(*corev1.Pod)
	}
	for i, r := range c.Revisions {
		c.Revisions[i] = get(r).(*appsv1.ControllerRevision)
	}
}

// TestPlanningView pins what the transform keeps of a pod, a node, a
// DaemonSet and a revision; that it is idempotent, as client-go requires;
// and that it modifies nothing it is given.
func TestPlanningView(t *testing.T) {
	ready := metav1.Time{Time: t0.Add(-time.Minute)}
	deleting := metav1.Time{Time: t0}
	mf := []metav1.ManagedFieldsEntry{{Manager: "kwok"}}
	pin := &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n1"}}}}}}}
	meta := metav1.ObjectMeta{
		Name: "p", Namespace: "ns", UID: "uid-p", ResourceVersion: "7", Generation: 2,
		CreationTimestamp: ready, DeletionTimestamp: &deleting,
		Labels: map[string]string{"app": "ds"}, Annotations: map[string]string{"a": "b"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: "ds", UID: "uid-ds"}},
		Finalizers:      []string{"f"}, ManagedFields: mf,
	}
	status := corev1.PodStatus{
		Phase: corev1.PodRunning, PodIP: "10.0.0.1",
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ready, Reason: "r", Message: "m", LastProbeTime: ready},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "c", Image: "i", ImageID: "sha256:0", Ready: false, RestartCount: 4,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				Reason: "OOMKilled", ExitCode: 137, Message: "m", StartedAt: ready, FinishedAt: deleting}}}},
		InitContainerStatuses: []corev1.ContainerStatus{{Name: "init", Image: "i",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ready}}}},
	}
	keptMeta := metav1.ObjectMeta{
		Name: "p", Namespace: "ns", UID: "uid-p", ResourceVersion: "7",
		CreationTimestamp: ready, DeletionTimestamp: &deleting,
		Labels:          map[string]string{"app": "ds"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: "ds", UID: "uid-ds"}},
	}
	// What the health gates read of the containers.
	keptStatus := corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ready}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "c", RestartCount: 4,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", StartedAt: ready, FinishedAt: deleting}}}},
		InitContainerStatuses: []corev1.ContainerStatus{{Name: "init"}},
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "uid-n1", ResourceVersion: "3", Labels: map[string]string{"zone": "a"}, Annotations: map[string]string{"a": "b"}, ManagedFields: mf},
		Spec:       corev1.NodeSpec{Taints: []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}, Unschedulable: true, PodCIDR: "10.0.0.0/24"},
		Status: corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse}, {Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: ready}},
			Images:     []corev1.ContainerImage{{Names: []string{"i"}}},
			Capacity:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
		},
	}
	ds := testDS("ns", "ds")
	ds.ManagedFields = mf
	ds.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"}
	keptDS := ds.DeepCopy()
	keptDS.ManagedFields = nil
	rev := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "ds-1", Namespace: "ns", ManagedFields: mf}, Revision: 1}
	keptRev := rev.DeepCopy()
	keptRev.ManagedFields = nil

	tests := []struct {
		name     string
		in, want any
	}{
		{
			name: "bound pod: no affinity kept",
			in: &corev1.Pod{ObjectMeta: meta, Status: status, Spec: corev1.PodSpec{NodeName: "n1", Affinity: &corev1.Affinity{NodeAffinity: pin},
				Containers: []corev1.Container{{Name: "c"}}, Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}},
			want: &corev1.Pod{ObjectMeta: keptMeta, Status: keptStatus, Spec: corev1.PodSpec{NodeName: "n1"}},
		},
		{
			name: "unbound pod: its node affinity kept, the rest of its affinity not",
			in: &corev1.Pod{ObjectMeta: meta, Status: status, Spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: pin, PodAntiAffinity: &corev1.PodAntiAffinity{}},
				Containers: []corev1.Container{{Name: "c"}}}},
			want: &corev1.Pod{ObjectMeta: keptMeta, Status: keptStatus, Spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: pin}}},
		},
		{
			name: "pod without a Ready condition",
			in:   &corev1.Pod{ObjectMeta: meta, Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: status.Conditions[:1]}},
			want: &corev1.Pod{ObjectMeta: keptMeta, Status: corev1.PodStatus{Phase: corev1.PodPending}},
		},
		{
			name: "node",
			in:   node,
			want: &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "uid-n1", ResourceVersion: "3", Labels: map[string]string{"zone": "a"}},
				Spec:       corev1.NodeSpec{Taints: []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}},
				Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
			},
		},
		{name: "daemonset: managedFields only", in: ds, want: keptDS},
		{name: "controllerrevision: managedFields only", in: rev, want: keptRev},
		{name: "another type passes through", in: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", ManagedFields: mf}},
			want: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", ManagedFields: mf}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := deepCopy(tt.in)
			got, err := PlanningView(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("PlanningView (-want +got):\n%s", d)
			}
			again, err := PlanningView(got)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(got, again); d != "" {
				t.Errorf("PlanningView is not idempotent (-once +twice):\n%s", d)
			}
			if d := cmp.Diff(before, tt.in); d != "" {
				t.Errorf("PlanningView modified its input (-before +after):\n%s", d)
			}
		})
	}
}

func deepCopy(o any) any {
	switch o := o.(type) {
	case *corev1.Pod:
		return o.DeepCopy()
	case *corev1.Node:
		return o.DeepCopy()
	case *appsv1.DaemonSet:
		return o.DeepCopy()
	case *appsv1.ControllerRevision:
		return o.DeepCopy()
	case *corev1.ConfigMap:
		return o.DeepCopy()
	}
	panic(fmt.Sprintf("deepCopy: %T", o))
}
