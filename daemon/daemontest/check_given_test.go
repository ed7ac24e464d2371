package daemontest_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/backoff"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// createOn returns a create of a well-formed pod on node, built like the
// plan's first create (or from the template when the plan has none).
func createOn(in simulate.Input, plan daemon.Plan, node string, reason daemon.Reason) daemon.Create {
	pod := daemon.NewPod(in.DaemonSet, "")
	if len(plan.Creates) > 0 {
		pod = plan.Creates[0].Pod.DeepCopy()
	}
	pod.Name, pod.GenerateName = "", in.DaemonSet.Name+"-"
	pod.Spec.NodeName = ""
	pod.Spec.Affinity = affinity.ReplaceDaemonSetPodNodeNameNodeAffinity(nil, node)
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[appsv1.ControllerRevisionHashLabelKey] = plan.Hash
	yes := true
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: in.DaemonSet.Name, UID: in.DaemonSet.UID, Controller: &yes}}
	return daemon.Create{NodeName: node, Pod: pod, Reason: reason}
}

// TestCheckGivenPlanCatches breaks one valid plan per case and checks that
// CheckGivenPlan reports the invariant the change breaks: a checker that
// accepts everything would pass TestCheckPlanHolds too.
func TestCheckGivenPlanCatches(t *testing.T) {
	tests := []struct {
		name   string
		in     func() simulate.Input
		break_ func(in *simulate.Input, p *daemon.Plan, err *error)
		want   dt.Invariant
	}{
		{name: "a second create on one node", in: func() simulate.Input { return fresh() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.Creates = append(p.Creates, p.Creates[2]) },
			want:   dt.InvariantCreateOncePerNode},
		{name: "a create on the tainted control-plane node", in: func() simulate.Input { return fresh() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
				p.Creates = append([]daemon.Create{createOn(*in, *p, "cp", daemon.ReasonNodeNeedsPod)}, p.Creates...)
			},
			want: dt.InvariantCreateEligible},
		{name: "a create on a node that does not exist", in: func() simulate.Input { return fresh() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
				p.Creates = append(p.Creates, createOn(*in, *p, "zz-gone", daemon.ReasonNodeNeedsPod))
			},
			want: dt.InvariantCreateEligible},
		{name: "a create beside a current pod", in: func() simulate.Input { return settled() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
				p.Creates = []daemon.Create{createOn(*in, *p, "n1", daemon.ReasonNodeNeedsPod)}
			},
			want: dt.InvariantCreateNeeded},
		{name: "a created pod with another hash", in: func() simulate.Input { return fresh() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
				p.Creates[0].Pod.Labels[appsv1.ControllerRevisionHashLabelKey] = "other"
			},
			want: dt.InvariantCreatedPod},
		{name: "a created pod bound to another node", in: func() simulate.Input { return fresh() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
				p.Creates[0].Pod.Spec.Affinity = affinity.ReplaceDaemonSetPodNodeNameNodeAffinity(nil, "n2")
			},
			want: dt.InvariantCreatedPod},
		{name: "creates out of order", in: func() simulate.Input { return fresh() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
				p.Creates[0], p.Creates[1] = p.Creates[1], p.Creates[0]
			},
			want: dt.InvariantSorted},
		{name: "a delete of a pod that is not an input pod", in: func() simulate.Input { return rollingOut() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.Deletes[0].Pod = p.Deletes[0].Pod.DeepCopy() },
			want:   dt.InvariantDeleteOwned},
		{name: "a delete of another controller's pod", in: func() simulate.Input {
			in := settled()
			in.Pods = append(in.Pods, dt.Pod(dt.DaemonSet("other"), "zz-other", "n1"))
			return in
		}, break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
			p.Deletes = append(p.Deletes, daemon.Delete{Pod: in.Pods[3], NodeName: "n1", Reason: daemon.ReasonExcessPod})
		}, want: dt.InvariantDeleteOwned},
		{name: "a delete of a released pod", in: func() simulate.Input {
			in := settled()
			in.Pods[0].Labels["app"] = "other"
			return in
		}, break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
			p.Deletes = append(p.Deletes, daemon.Delete{Pod: p.Release[0], NodeName: "n1", Reason: daemon.ReasonExcessPod})
		}, want: dt.InvariantDeleteOwned},
		{name: "one pod deleted twice", in: func() simulate.Input { return rollingOut() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.Deletes = append(p.Deletes, p.Deletes[0]) },
			want:   dt.InvariantDeleteOnce},
		{name: "a running pod deleted as failed", in: func() simulate.Input { return rollingOut() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.Deletes[0].Reason = daemon.ReasonPodFailed },
			want:   dt.InvariantDeleteReason},
		{name: "more creates than the burst", in: func() simulate.Input {
			in := fresh()
			in.Options.BurstReplicas = 2
			return in
		}, break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
			p.Creates = append(p.Creates, createOn(*in, *p, "n3", daemon.ReasonNodeNeedsPod))
			p.DeferredCreates = 0
		}, want: dt.InvariantBurst},
		{name: "deferred creates under the cap", in: func() simulate.Input { return fresh() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.DeferredCreates = 1 },
			want:   dt.InvariantBurst},
		{name: "a step without surge deletes beyond maxUnavailable", in: func() simulate.Input { return rollingOut() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
				d := daemon.Delete{Pod: podOn(*in, "n2"), NodeName: "n2", Reason: daemon.ReasonRollingUpdate}
				p.Deletes = append(p.Deletes, d)
				p.Rolling.Deletes = append(p.Rolling.Deletes, d)
			},
			want: dt.InvariantUnavailability},
		{name: "a surge step creates beyond maxSurge", in: surging,
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
				p.Creates = append(p.Creates, createOn(*in, *p, "n2", daemon.ReasonSurge))
				p.Rolling.Creates = append(p.Rolling.Creates, rollout.Create{NodeName: "n2", Reason: rollout.ReasonSurge})
			},
			want: dt.InvariantSurge},
		{name: "a surge step deletes an available old pod with no replacement", in: surging,
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
				d := daemon.Delete{Pod: podOn(*in, "n3"), NodeName: "n3", Reason: daemon.ReasonSurgeReplaced}
				p.Deletes = append(p.Deletes, d)
				p.Rolling.Deletes = append(p.Rolling.Deletes, d)
			},
			want: dt.InvariantSurgeAvailability},
		{name: "a create the step did not choose", in: surging,
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.Rolling.Creates = nil },
			want:   dt.InvariantRollingStep},
		{name: "no rolling step although the create/delete pass asked for nothing", in: func() simulate.Input { return settled() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.Rolling = nil },
			want:   dt.InvariantRollingStep},
		{name: "a miscounted ready pod", in: func() simulate.Input { return settled() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.Status.NumberReady-- },
			want:   dt.InvariantStatus},
		{name: "a status write that changes nothing", in: func() simulate.Input { return settled() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.StatusChanged = true },
			want:   dt.InvariantStatus},
		{name: "a stale observedGeneration", in: func() simulate.Input { return rollingOut() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.Status.ObservedGeneration = 1 },
			want:   dt.InvariantStatus},
		{name: "a skipped plan that creates", in: func() simulate.Input {
			in := fresh()
			in.DaemonSet.DeletionTimestamp = &metav1.Time{Time: dt.Epoch}
			return in
		}, break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
			p.Creates = []daemon.Create{createOn(*in, *p, "n1", daemon.ReasonNodeNeedsPod)}
		}, want: dt.InvariantSkip},
		{name: "a plan not skipped for a DaemonSet being deleted", in: func() simulate.Input { return settled() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
				in.DaemonSet = in.DaemonSet.DeepCopy()
				in.DaemonSet.DeletionTimestamp = &metav1.Time{Time: dt.Epoch}
			},
			want: dt.InvariantSkip},
		{name: "invalid input with a non-zero plan", in: func() simulate.Input { return simulate.Input{} },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.Hash = "abc" },
			want:   dt.InvariantInvalidInput},
		{name: "a nil DaemonSet accepted without error", in: func() simulate.Input { return simulate.Input{} },
			break_: func(in *simulate.Input, p *daemon.Plan, err *error) { *err = nil },
			want:   dt.InvariantInvalidInput},
		{name: "a negative requeue", in: func() simulate.Input { return settled() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.RequeueAfter = -time.Second },
			want:   dt.InvariantRequeue},
		{name: "a requeue with nothing to wait for", in: func() simulate.Input { return settled() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.RequeueAfter = time.Second },
			want:   dt.InvariantRequeue},
		{name: "a requeue beyond minReadySeconds", in: func() simulate.Input { return settled(dt.WithMinReadySeconds(10)) },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.RequeueAfter = 11 * time.Second },
			want:   dt.InvariantRequeue},
		{name: "the only current revision deleted", in: func() simulate.Input { return settled() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.History.Delete = in.Options.Revisions },
			want:   dt.InvariantHistory},
		{name: "an old revision deleted while pods run it", in: func() simulate.Input {
			in := rollingOut()
			in.Options.Revisions = append(in.Options.Revisions, dt.Revision(in.DaemonSet, 2))
			return in
		}, break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.History.Delete = in.Options.Revisions[:1] },
			want: dt.InvariantHistory},
		{name: "a duplicate revision updated beyond its missing label, then deleted", in: func() simulate.Input {
			in := settled()
			dup := in.Options.Revisions[0].DeepCopy()
			dup.Name += "-dup"
			dup.Revision = 0
			delete(dup.Labels, appsv1.ControllerRevisionHashLabelKey)
			in.Options.Revisions = append(in.Options.Revisions, dup)
			return in
		}, break_: func(in *simulate.Input, p *daemon.Plan, _ *error) {
			// Compute labels the duplicate, then deletes it; raising its
			// number as well is more than upstream does.
			if len(p.History.Update) != 1 || len(p.History.Delete) != 1 {
				panic("the fixture lost its labelled duplicate")
			}
			p.History.Update[0].Revision = 7
		}, want: dt.InvariantHistory},
		{name: "a revision created under another name", in: func() simulate.Input { return fresh() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.History.Create.Name += "-x" },
			want:   dt.InvariantHistory},
		{name: "a failed pod deleted without raising the backoff", in: func() simulate.Input {
			in := settled()
			in.Pods[0] = dt.Pod(in.DaemonSet, "fluentd-n1", "n1", dt.WithPhase(corev1.PodFailed), dt.NotReadyPod())
			return in
		}, break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.FailedPodBackoff = backoff.State{} },
			want: dt.InvariantBackoff},
		{name: "another DaemonSet's backoff dropped", in: func() simulate.Input {
			in := settled()
			in.Options.FailedPodBackoff = backoff.New(backoff.Entry{Key: backoff.Key{UID: "other", NodeName: "n1"}, Delay: time.Second, LastUpdate: dt.Epoch})
			return in
		}, break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.FailedPodBackoff = backoff.State{} },
			want: dt.InvariantBackoff},
		{name: "an adopted pod that has a controller", in: func() simulate.Input { return settled() },
			break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.Adopt = []*corev1.Pod{in.Pods[0]} },
			want:   dt.InvariantClaims},
		{name: "an orphan left unadopted", in: func() simulate.Input {
			in := settled()
			in.Pods = append(podsWithout(in.Pods, in.Pods[0]), dt.Pod(in.DaemonSet, "orphan", "n1", dt.Orphan()))
			return in
		}, break_: func(in *simulate.Input, p *daemon.Plan, _ *error) { p.Adopt = nil },
			want: dt.InvariantClaims},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in()
			plan, err := in.Compute()
			if vs := dt.CheckGivenPlan(in, plan, err); len(vs) > 0 {
				t.Fatalf("the unbroken plan already violates: %v", vs)
			}
			tt.break_(&in, &plan, &err)
			vs := dt.CheckGivenPlan(in, plan, err)
			for _, v := range vs {
				if v.Invariant == tt.want {
					return
				}
			}
			t.Errorf("CheckGivenPlan() = %v, want a violation of %s", vs, tt.want)
		})
	}
}
