package daemon

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// RolloutComplete reports whether the rollout of ds over nodes and pods is
// complete under opts.Rollout and, when it is not, why. It computes the
// plan (as Compute, but ignoring Paused: a paused rollout is complete when
// its state is) and is complete when the plan asks for nothing and:
//   - under the zero policy, or a strategy other than RollingUpdate,
//     rollout.Complete holds for ds with the plan's status (every desired
//     node runs one available pod of the current revision);
//   - under a non-zero policy, every desired node has an available pod, no
//     node runs an old and a new pod, and at most the partition of the
//     in-scope desired nodes run only old pods (nodes outside the scope
//     keep theirs): complete at the partition, not at 100%.
//
// The reason is "" when complete. Compute's errors are returned as they
// are, with false. It modifies nothing.
func RolloutComplete(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts Options) (bool, string, error) {
	opts.Rollout.Paused = false
	plan, err := Compute(ds, nodes, pods, opts)
	if err != nil {
		return false, "", err
	}
	if plan.Skip != "" {
		return false, fmt.Sprintf("the sync is skipped (%s)", plan.Skip), nil
	}
	if n := len(plan.Creates) + len(plan.Deletes) + plan.DeferredCreates + plan.DeferredDeletes; n > 0 {
		return false, fmt.Sprintf("the plan still creates %d and deletes %d pods",
			len(plan.Creates)+plan.DeferredCreates, len(plan.Deletes)+plan.DeferredDeletes), nil
	}
	st := plan.Status
	step := plan.Rolling
	if step == nil || step.Policy == nil {
		judged := *ds
		judged.Status = st
		ok, reason := rollout.Complete(&judged)
		return ok, reason, nil
	}
	if st.NumberAvailable < st.DesiredNumberScheduled {
		return false, fmt.Sprintf("%d of %d desired nodes have an available pod", st.NumberAvailable, st.DesiredNumberScheduled), nil
	}
	if step.NumSurge > 0 || (step.MaxSurge == 0 && step.NumUnavailable > 0) {
		return false, "some nodes are still being updated", nil
	}
	if p := step.Policy; p.Remaining > p.Partition {
		return false, fmt.Sprintf("%d desired nodes in scope run only the old revision; the partition keeps %d", p.Remaining, p.Partition), nil
	}
	return true, "", nil
}
