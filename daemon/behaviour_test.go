package daemon_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/backoff"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/rollout"
)

// TestFailedPodBackoff replays a node whose pod keeps failing: the first
// deletion is immediate, the next ones wait 1s, 2s, 4s, ... up to 15m, and
// a backoff unused for twice the maximum is forgotten.
func TestFailedPodBackoff(t *testing.T) {
	ds := dt.DaemonSet("fluentd")
	nodes := []*corev1.Node{dt.Node("n1")}
	failed := func(name string) []*corev1.Pod {
		return []*corev1.Pod{dt.Pod(ds, name, "n1", dt.WithPhase(corev1.PodFailed))}
	}
	key := backoff.Key{UID: ds.UID, ObservedGeneration: ds.Status.ObservedGeneration, NodeName: "n1"}

	type step struct {
		at          time.Duration // after Epoch
		wantDelete  bool
		wantDelay   time.Duration // of the backoff entry afterwards
		wantRequeue time.Duration
	}
	steps := []step{
		{at: 0, wantDelete: true, wantDelay: time.Second},
		{at: 500 * time.Millisecond, wantDelete: false, wantDelay: time.Second, wantRequeue: 500 * time.Millisecond},
		{at: time.Second, wantDelete: true, wantDelay: 2 * time.Second},
		{at: 2 * time.Second, wantDelete: false, wantDelay: 2 * time.Second, wantRequeue: time.Second},
		{at: 3 * time.Second, wantDelete: true, wantDelay: 4 * time.Second},
		{at: 7 * time.Second, wantDelete: true, wantDelay: 8 * time.Second},
		// Long after: 30m + a bit since the last update, the entry expired.
		{at: 7*time.Second + 31*time.Minute, wantDelete: true, wantDelay: time.Second},
	}
	var state backoff.State
	for i, s := range steps {
		plan, err := daemon.Compute(ds, nodes, failed(fmt.Sprintf("p%d", i)), daemon.Options{Now: dt.Epoch.Add(s.at), FailedPodBackoff: state})
		if err != nil {
			t.Fatalf("step %d: Compute() error = %v", i, err)
		}
		if got := len(plan.Deletes) == 1; got != s.wantDelete {
			t.Errorf("step %d at %v: deleted = %v, want %v", i, s.at, got, s.wantDelete)
		}
		e, ok := plan.FailedPodBackoff.Get(key)
		if !ok || e.Delay != s.wantDelay {
			t.Errorf("step %d at %v: backoff entry = %+v (found %v), want delay %v", i, s.at, e, ok, s.wantDelay)
		}
		if plan.RequeueAfter != s.wantRequeue {
			t.Errorf("step %d at %v: RequeueAfter = %v, want %v", i, s.at, plan.RequeueAfter, s.wantRequeue)
		}
		state = plan.FailedPodBackoff
	}
}

func TestComputeDoesNotShareBackoff(t *testing.T) {
	ds := dt.DaemonSet("fluentd")
	start := backoff.New(backoff.Entry{Key: backoff.Key{UID: "other", NodeName: "x"}, Delay: time.Second, LastUpdate: dt.Epoch})
	plan, err := daemon.Compute(ds, []*corev1.Node{dt.Node("n1")}, []*corev1.Pod{dt.Pod(ds, "p1", "n1", dt.WithPhase(corev1.PodFailed))},
		daemon.Options{Now: dt.Epoch, FailedPodBackoff: start})
	if err != nil {
		t.Fatal(err)
	}
	if start.Len() != 1 {
		t.Errorf("the input backoff changed: %d entries, want 1", start.Len())
	}
	if plan.FailedPodBackoff.Len() != 2 {
		t.Errorf("the plan's backoff has %d entries, want 2 (the other DaemonSet's kept)", plan.FailedPodBackoff.Len())
	}
}

func TestBurstReplicas(t *testing.T) {
	ds := dt.DaemonSet("fluentd")
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for i := range 7 {
		name := fmt.Sprintf("n%d", i)
		nodes = append(nodes, dt.Node(name))
		if i >= 4 {
			pods = append(pods, dt.Pod(ds, "p"+name, name, dt.WithPhase(corev1.PodSucceeded)))
		}
	}
	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, BurstReplicas: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := actions{
		Creates: []string{"n0/NodeNeedsPod", "n1/NodeNeedsPod"},
		Deletes: []string{"pn4/PodSucceeded", "pn5/PodSucceeded"},
	}
	if diff := cmp.Diff(want, actionsOf(plan)); diff != "" {
		t.Errorf("Compute() actions mismatch (-want +got):\n%s", diff)
	}
	if plan.DeferredCreates != 2 || plan.DeferredDeletes != 1 {
		t.Errorf("Deferred = %d creates, %d deletes; want 2, 1", plan.DeferredCreates, plan.DeferredDeletes)
	}
}

// TestBurstCapKeepsExcessPodsOldestFirst: a node's excess pods are queued
// in age order, as upstream queues them, so a burst cap that falls among
// them keeps the older ones' deletes (it once kept them in name order).
func TestBurstCapKeepsExcessPodsOldestFirst(t *testing.T) {
	ds := dt.DaemonSet("fluentd")
	at := func(d time.Duration) dt.PodOption { return dt.CreatedAt(dt.Epoch.Add(-time.Hour + d)) }
	pods := []*corev1.Pod{
		dt.Pod(ds, "a-newest", "n1", at(2*time.Minute)),
		dt.Pod(ds, "b-middle", "n1", at(time.Minute)),
		dt.Pod(ds, "c-oldest", "n1", at(0)),
	}
	plan, err := daemon.Compute(ds, []*corev1.Node{dt.Node("n1")}, pods, daemon.Options{Now: dt.Epoch, BurstReplicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := actions{Deletes: []string{"b-middle/ExcessPod"}}
	if diff := cmp.Diff(want, actionsOf(plan)); diff != "" {
		t.Errorf("Compute() actions mismatch (-want +got):\n%s", diff)
	}
	if plan.DeferredDeletes != 1 {
		t.Errorf("DeferredDeletes = %d, want 1", plan.DeferredDeletes)
	}
}

func TestRequeueAfterMinReadySeconds(t *testing.T) {
	ds := dt.DaemonSet("fluentd", dt.WithMinReadySeconds(60))
	pods := []*corev1.Pod{
		dt.Pod(ds, "p1", "n1", dt.ReadySince(dt.Epoch.Add(-20*time.Second))),
		dt.Pod(ds, "p2", "n2", dt.ReadySince(dt.Epoch.Add(-50*time.Second))),
		dt.Pod(ds, "p3", "n3", dt.ReadySince(dt.Epoch.Add(-5*time.Minute))),
	}
	nodes := []*corev1.Node{dt.Node("n1"), dt.Node("n2"), dt.Node("n3")}
	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch})
	if err != nil {
		t.Fatal(err)
	}
	if want := 10 * time.Second; plan.RequeueAfter != want {
		t.Errorf("RequeueAfter = %v, want %v (p2 becomes available first)", plan.RequeueAfter, want)
	}
	if plan.Status.NumberReady != 3 || plan.Status.NumberAvailable != 1 {
		t.Errorf("status ready/available = %d/%d, want 3/1", plan.Status.NumberReady, plan.Status.NumberAvailable)
	}
}

func TestCreatedPod(t *testing.T) {
	ds := dt.DaemonSet("fluentd", dt.WithToleration("dedicated", corev1.TaintEffectNoSchedule))
	ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "3"}
	ds.Spec.Template.Annotations = map[string]string{"note": "kept"}
	ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpExists}}},
		}},
	}}
	plan, err := daemon.Compute(ds, []*corev1.Node{dt.Node("n1")}, nil, daemon.Options{Now: dt.Epoch})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Creates) != 1 {
		t.Fatalf("Compute() creates %d pods, want 1", len(plan.Creates))
	}
	yes := true
	want := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: "fluentd-",
			Namespace:    "default",
			Labels: map[string]string{
				"app":                                 "fluentd",
				appsv1.ControllerRevisionHashLabelKey: plan.Hash,
				"pod-template-generation":             "3",
			},
			Annotations: map[string]string{"note": "kept"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "DaemonSet", Name: "fluentd", UID: ds.UID,
				Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		},
		Spec: corev1.PodSpec{
			Containers: ds.Spec.Template.Spec.Containers,
			Tolerations: []corev1.Toleration{
				{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
				{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
				{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			},
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n1"}}},
				}}},
				PreferredDuringSchedulingIgnoredDuringExecution: ds.Spec.Template.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			}},
		},
	}
	if diff := cmp.Diff(want, plan.Creates[0].Pod); diff != "" {
		t.Errorf("created pod mismatch (-want +got):\n%s", diff)
	}
	// The plan owns the pod: changing it leaves the DaemonSet alone.
	plan.Creates[0].Pod.Labels["app"] = "changed"
	plan.Creates[0].Pod.Spec.Containers[0].Image = "changed"
	if ds.Spec.Template.Labels["app"] != "fluentd" || ds.Spec.Template.Spec.Containers[0].Image == "changed" {
		t.Errorf("the created pod shares memory with the DaemonSet")
	}
}

func TestComputeDoesNotModifyInput(t *testing.T) {
	ds := dt.DaemonSet("fluentd", dt.WithMaxSurge("1"), dt.WithMaxUnavailable("0"))
	nodes := []*corev1.Node{dt.Node("n2"), dt.Node("n1"), dt.Node("n3", dt.NotReady())}
	pods := []*corev1.Pod{
		dt.Pod(ds, "p3", "n3"),
		dt.Pod(ds, "p1", "n1", dt.WithHash("old")),
		dt.Pod(ds, "p2", "n2", dt.WithPhase(corev1.PodFailed)),
		dt.Pod(ds, "p4", "gone", dt.Unscheduled()),
		dt.Pod(ds, "p5", "n1", dt.Orphan()),
	}
	revs := []*appsv1.ControllerRevision{{
		ObjectMeta: metav1.ObjectMeta{Name: "fluentd-old", Namespace: "default", Labels: map[string]string{"app": "fluentd"}},
		Revision:   1,
	}}
	before := struct {
		DS    *appsv1.DaemonSet
		Nodes []*corev1.Node
		Pods  []*corev1.Pod
		Revs  []*appsv1.ControllerRevision
	}{ds.DeepCopy(), deepNodes(nodes), deepPods(pods), []*appsv1.ControllerRevision{revs[0].DeepCopy()}}
	if _, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Revisions: revs}); err != nil {
		t.Fatal(err)
	}
	after := before
	after.DS, after.Nodes, after.Pods, after.Revs = ds, nodes, pods, revs
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("Compute() modified its input (-before +after):\n%s", diff)
	}
}

func deepNodes(in []*corev1.Node) []*corev1.Node {
	out := make([]*corev1.Node, len(in))
	for i, n := range in {
		out[i] = n.DeepCopy()
	}
	return out
}

func deepPods(in []*corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, len(in))
	for i, p := range in {
		out[i] = p.DeepCopy()
	}
	return out
}

// TestRequeueUnderClockSkew: a Ready transition or a backoff update after
// Now (clock skew) never makes the plan wait longer than upstream, which
// requeues after minReadySeconds and after the whole backoff delay.
// Found by daemontest's FuzzConformance.
func TestRequeueUnderClockSkew(t *testing.T) {
	ds := dt.DaemonSet("fluentd", dt.WithMinReadySeconds(10))
	plan, err := daemon.Compute(ds, []*corev1.Node{dt.Node("n1")},
		[]*corev1.Pod{dt.Pod(ds, "p1", "n1", dt.ReadySince(dt.Epoch.Add(time.Hour)))}, daemon.Options{Now: dt.Epoch})
	if err != nil {
		t.Fatal(err)
	}
	if want := 10 * time.Second; plan.RequeueAfter != want {
		t.Errorf("Ready in the future: RequeueAfter = %v, want %v", plan.RequeueAfter, want)
	}

	ds = dt.DaemonSet("fluentd")
	skewed := backoff.New(backoff.Entry{
		Key: backoff.Key{UID: ds.UID, NodeName: "n1"}, Delay: time.Second, LastUpdate: dt.Epoch.Add(time.Hour)})
	plan, err = daemon.Compute(ds, []*corev1.Node{dt.Node("n1")},
		[]*corev1.Pod{dt.Pod(ds, "p1", "n1", dt.WithPhase(corev1.PodFailed))}, daemon.Options{Now: dt.Epoch, FailedPodBackoff: skewed})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Deletes) != 0 || plan.RequeueAfter != time.Second {
		t.Errorf("backoff updated in the future: deletes %d, RequeueAfter %v; want 0 and 1s", len(plan.Deletes), plan.RequeueAfter)
	}
}

// TestHistoryDeleteHoldsCallersRevisions: an old revision missing its hash
// label is labelled in a copy (History.Update) and, beyond the limit,
// deleted; Delete must hold the caller's revision, not the copy. Found by
// daemontest's CheckPlan.
func TestHistoryDeleteHoldsCallersRevisions(t *testing.T) {
	ds := dt.DaemonSet("fluentd")
	zero := int32(0)
	ds.Spec.RevisionHistoryLimit = &zero
	old := dt.Revision(dt.DaemonSet("fluentd", dt.WithImage("registry.example/fluentd:v0")), 1)
	delete(old.Labels, appsv1.ControllerRevisionHashLabelKey)
	plan, err := daemon.Compute(ds, nil, nil, daemon.Options{Now: dt.Epoch, Revisions: []*appsv1.ControllerRevision{old}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.History.Delete) != 1 || plan.History.Delete[0] != old {
		t.Errorf("History.Delete = %v, want the caller's revision %p", plan.History.Delete, old)
	}
	if len(plan.History.Update) != 1 || plan.History.Update[0] == old {
		t.Errorf("History.Update = %v, want one labelled copy", plan.History.Update)
	}
}

// TestHistoryMergesDuplicates: two current revisions are merged, the higher
// number kept, and the claimed pods of other hashes (another hash, no
// label) are relabelled to the kept one's, in name order. The history is
// built once, before the claim names the pods.
func TestHistoryMergesDuplicates(t *testing.T) {
	ds := dt.DaemonSet("fluentd")
	kept := dt.Revision(ds, 2)
	dup := dt.Revision(ds, 1)
	dup.Name, dup.UID = "fluentd-dup", "rev-dup"
	dup.Labels[appsv1.ControllerRevisionHashLabelKey] = "dup"
	current := dt.Pod(ds, "p-current", "n1")
	onDup := dt.Pod(ds, "p-dup", "n2", dt.WithHash("dup"))
	unlabelled := dt.Pod(ds, "p-none", "n3")
	delete(unlabelled.Labels, appsv1.ControllerRevisionHashLabelKey)
	nodes := []*corev1.Node{dt.Node("n1"), dt.Node("n2"), dt.Node("n3")}
	plan, err := daemon.Compute(ds, nodes, []*corev1.Pod{unlabelled, current, onDup},
		daemon.Options{Now: dt.Epoch, Revisions: []*appsv1.ControllerRevision{kept, dup}})
	if err != nil {
		t.Fatal(err)
	}
	want := rollout.HistoryPlan{Delete: []*appsv1.ControllerRevision{dup}, Relabel: []*corev1.Pod{onDup, unlabelled}}
	if diff := cmp.Diff(want, plan.History); diff != "" {
		t.Errorf("History (-want,+got):\n%s", diff)
	}
	if plan.Hash != dt.Hash(ds) {
		t.Errorf("Hash = %q, want the kept revision's %q", plan.Hash, dt.Hash(ds))
	}
}
