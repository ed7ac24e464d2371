package daemontest

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// SteadyCluster returns a settled cluster for ds, so that a test starts in
// one line: n nodes named node-0, node-1, … (zero-padded so that names sort
// in number order: node-07 before node-10 when n > 10), each built by Node
// with opts; on every node where ds should run, one pod of the current
// template (Pod, named <ds>-<node>: running, Ready since an hour before
// Epoch, labelled with Hash(ds)); the revision Revision(ds, 1); the status
// as the controller last wrote it (observedGeneration ds's generation); and
// Now Epoch. Compute on the result gives a zero plan, unless ds's
// minReadySeconds exceeds an hour (its pods are then not yet available).
//
// The cluster holds a copy of ds (and of nothing else of the caller's).
// When ds's template has a Gt or Lt toleration, the cluster turns on
// EnableTaintTolerationComparisonOperators, the feature gate those
// operators need, and places pods with it. A nil ds gives nil; n < 0
// counts as 0.
func SteadyCluster(ds *appsv1.DaemonSet, n int, opts ...NodeOption) *simulate.Cluster {
	if ds == nil {
		return nil
	}
	ds = ds.DeepCopy()
	c := &simulate.Cluster{
		DaemonSet: ds,
		Revisions: []*appsv1.ControllerRevision{Revision(ds, 1)},
		Now:       Epoch,
		EnableTaintTolerationComparisonOperators: slices.ContainsFunc(ds.Spec.Template.Spec.Tolerations, func(t corev1.Toleration) bool {
			return t.Operator == corev1.TolerationOpGt || t.Operator == corev1.TolerationOpLt
		}),
	}
	n = max(n, 0)
	width := len(fmt.Sprint(max(n-1, 0)))
	elig := eligibility.New(ds, c.EnableTaintTolerationComparisonOperators)
	var desired, available int32
	for i := range n {
		node := Node(fmt.Sprintf("node-%0*d", width, i), opts...)
		c.Nodes = append(c.Nodes, node)
		if run, _ := elig.ShouldRun(node); !run {
			continue
		}
		pod := Pod(ds, ds.Name+"-"+node.Name, node.Name)
		c.Pods = append(c.Pods, pod)
		desired++
		if rollout.IsPodAvailable(pod, ds.Spec.MinReadySeconds, c.Now) {
			available++
		}
	}
	ds.Status = appsv1.DaemonSetStatus{
		ObservedGeneration:     ds.Generation,
		DesiredNumberScheduled: desired,
		CurrentNumberScheduled: desired,
		NumberReady:            desired,
		UpdatedNumberScheduled: desired,
		NumberAvailable:        available,
		NumberUnavailable:      desired - available,
		CollisionCount:         ds.Status.CollisionCount,
	}
	return c
}

// WithTolerationEqual adds a template toleration with the Equal operator:
// it tolerates taints with key, value and effect (any effect when effect
// is "").
func WithTolerationEqual(key, value string, effect corev1.TaintEffect) DaemonSetOption {
	return withToleration(corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: effect})
}

// WithTolerationGt adds a template toleration with the Gt operator: it
// tolerates taints with key and effect whose value, an integer, is greater
// than value. The operator works only with the
// TaintTolerationComparisonOperators feature gate on
// (daemon.Options.EnableTaintTolerationComparisonOperators, alpha and off
// by default in Kubernetes 1.35 to 1.37); with it off, the toleration tolerates
// nothing.
func WithTolerationGt(key, value string, effect corev1.TaintEffect) DaemonSetOption {
	return withToleration(corev1.Toleration{Key: key, Operator: corev1.TolerationOpGt, Value: value, Effect: effect})
}

// WithTolerationLt adds a template toleration with the Lt operator: it
// tolerates taints with key and effect whose integer value is less than
// value. Like WithTolerationGt, it needs the comparison-operators gate.
func WithTolerationLt(key, value string, effect corev1.TaintEffect) DaemonSetOption {
	return withToleration(corev1.Toleration{Key: key, Operator: corev1.TolerationOpLt, Value: value, Effect: effect})
}

func withToleration(t corev1.Toleration) DaemonSetOption {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = append(ds.Spec.Template.Spec.Tolerations, t)
	}
}
