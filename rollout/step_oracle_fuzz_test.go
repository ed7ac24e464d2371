package rollout

// Temporary: FuzzStepMatchesOld runs the rewritten step and the old one
// (step_oracle_test.go) on the same input and wants the same step.

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type diffBytes []byte

func (b *diffBytes) next(n int) int {
	if len(*b) == 0 {
		return 0
	}
	v := int((*b)[0])
	*b = (*b)[1:]
	return v % n
}

var diffNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func diffIOS(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }

var diffBudgets = []*intstr.IntOrString{nil, diffIOS("0"), diffIOS("1"), diffIOS("2"), diffIOS("5"), diffIOS("-1"), diffIOS("0%"), diffIOS("25%"), diffIOS("50%"), diffIOS("100%"), diffIOS("150%"), diffIOS("x")}

func diffPod(name, node string, kind int) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: "old"}}}
	ready := corev1.ConditionTrue
	at := diffNow.Add(-time.Hour)
	switch kind {
	case 2, 3:
		p.Labels[appsv1.ControllerRevisionHashLabelKey] = "new"
	case 4:
		p.DeletionTimestamp = &metav1.Time{Time: diffNow}
	case 5:
		p.Labels[appsv1.ControllerRevisionHashLabelKey] = "new"
		at = diffNow.Add(-10 * time.Second) // ready, not yet available under minReadySeconds
	}
	if kind == 1 || kind == 3 {
		ready = corev1.ConditionFalse
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.Time{Time: at}}}
	return p
}

func diffInput(data []byte) (*appsv1.DaemonSet, []Node, oldPolicy, Policy) {
	b := diffBytes(data)
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "ns"}}
	ds.Spec.UpdateStrategy.Type = appsv1.RollingUpdateDaemonSetStrategyType
	ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: diffBudgets[b.next(len(diffBudgets))], MaxSurge: diffBudgets[b.next(len(diffBudgets))]}
	if b.next(10) == 0 {
		ds.Spec.UpdateStrategy.RollingUpdate = nil
	}
	ds.Spec.MinReadySeconds = int32(b.next(3)) * 30
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t"}
	if b.next(20) == 0 {
		names = append(names, "") // sometimes an invalid name
	}
	hold, rank, domain := b.next(2) == 0, b.next(2) == 0, b.next(2) == 0
	var op oldPolicy
	var np Policy
	count := b.next(17)
	nodes := make([]Node, count)
	if hold {
		op.Hold = make([]bool, count)
	}
	if rank {
		op.Rank = make([]int, count)
	}
	if domain {
		op.Domain = make([]string, count)
	}
	for i := range nodes {
		n := &nodes[i]
		n.Name = names[b.next(len(names))]
		n.ShouldRun = b.next(4) != 0
		n.Missing = b.next(7) == 0
		for j := range b.next(4) {
			kind := b.next(7)
			if kind == 6 {
				n.Pods = append(n.Pods, nil)
				continue
			}
			n.Pods = append(n.Pods, diffPod(fmt.Sprintf("%s-%d-%d", n.Name, i, j), n.Name, kind))
		}
		if b.next(2) == 0 {
			gen, _ := GetTemplateGeneration(ds)
			n.States = make([]PodState, len(n.Pods))
			for k, pod := range n.Pods {
				n.States[k] = StateOf(pod, "new", gen, ds.Spec.MinReadySeconds, diffNow)
			}
		}
		if hold {
			op.Hold[i] = b.next(3) == 0
			n.Hold = op.Hold[i]
		}
		if rank {
			op.Rank[i] = b.next(5)
			n.Rank = op.Rank[i]
		}
		if domain {
			op.Domain[i] = []string{"", "x", "y"}[b.next(3)]
			n.Domain = op.Domain[i]
		}
	}
	if b.next(2) == 0 {
		op.Partition = b.next(6) - 1
	}
	op.Strict = b.next(3) == 0
	if domain {
		dBudgets := []*intstr.IntOrString{nil, diffIOS("0"), diffIOS("1"), diffIOS("2"), diffIOS("50%"), diffIOS("x%"), diffIOS("-1")}
		op.DomainMaxUnavailable = dBudgets[b.next(len(dBudgets))]
		op.DomainMaxSurge = dBudgets[b.next(len(dBudgets))]
	}
	np.Partition, np.Strict, np.DomainMaxUnavailable, np.DomainMaxSurge = op.Partition, op.Strict, op.DomainMaxUnavailable, op.DomainMaxSurge
	return ds, nodes, op, np
}

var createReason = map[oldAction]Reason{oldActionReplace: ReasonSurge, oldActionReplaceUnavailable: ReasonSurgeForUnavailable}
var deleteReason = map[oldAction]Reason{oldActionReplace: ReasonRollingUpdate, oldActionReplaceUnavailable: ReasonReplaceUnavailable,
	oldActionRemoveReplaced: ReasonSurgeReplaced, oldActionRemoveIneligible: ReasonIneligibleUnderSurge}

func convertOld(o oldStep) Step {
	s := Step{MaxSurge: o.MaxSurge, MaxUnavailable: o.MaxUnavailable, Desired: o.Desired, NumUnavailable: o.NumUnavailable,
		NumSurge: o.NumSurge, NumAvailable: o.NumAvailable, Candidates: o.Candidates}
	for _, c := range o.Creates {
		s.Creates = append(s.Creates, Create{NodeName: c.NodeName, Reason: createReason[c.Action]})
	}
	for _, d := range o.Deletes {
		s.Deletes = append(s.Deletes, Delete{Pod: d.Pod, NodeName: d.NodeName, Reason: deleteReason[d.Action]})
	}
	if o.Policy != nil {
		s.Policy = &StepPolicy{Partition: o.Policy.Partition, Remaining: o.Policy.Remaining, Held: o.Policy.Held}
	}
	return s
}

func FuzzStepMatchesOld(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("a rollout over twelve nodes with surge and a policy of some kind"))
	f.Add([]byte{2, 0, 1, 0, 0, 1, 0, 12, 1, 1, 0, 1, 2, 1, 0, 3, 1, 1, 2, 0, 1, 2})
	f.Add([]byte{4, 2, 0, 0, 1, 1, 1, 16, 2, 1, 1, 0, 1, 1, 1, 3, 0, 2, 1, 0, 0, 2, 3, 4, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, nodes, op, np := diffInput(data)
		old, oerr := oldoldRollingUpdatePolicyWrap(ds, nodes, op)
		var got Step
		var err error
		if op.IsZero() {
			got, err = RollingUpdate(ds, nodes, "new", diffNow)
		} else {
			got, err = RollingUpdatePolicy(ds, nodes, "new", diffNow, np)
		}
		if (oerr == nil) != (err == nil) || (err != nil && err.Error() != oerr.Error()) {
			t.Fatalf("errors differ: old %v, new %v", oerr, err)
		}
		if err != nil {
			return
		}
		want := convertOld(old)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("steps differ:\nold %+v\nnew %+v\npolicy %+v", want, got, op)
		}
	})
}

func oldoldRollingUpdatePolicyWrap(ds *appsv1.DaemonSet, nodes []Node, p oldPolicy) (oldStep, error) {
	return oldRollingUpdatePolicy(ds, nodes, "new", diffNow, p)
}
