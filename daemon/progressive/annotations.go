package progressive

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
)

// Annotations is what a DaemonSet's rollout annotations ask for (see
// ParseAnnotations): the budget, the policy and the progress
// deadline of its rollouts. One schema serves a controller beside
// kube-controller-manager (which can only delete old pods of an OnDelete
// DaemonSet) and one that replaces it (which plans everything, surge
// included).
//
// The budget. An OnDelete DaemonSet with rollout annotations is rolled as
// if its strategy were RollingUpdate with maxUnavailable MaxUnavailable
// (1, upstream's default, when nil) and maxSurge 0 (see Strategy). A
// RollingUpdate DaemonSet keeps its own spec.updateStrategy.rollingUpdate,
// surge included; MaxUnavailable must then be nil, since one rollout has
// one budget.
//
// Why no surge beside kube-controller-manager: a surging rollout runs an
// old and a new pod on one node until the new one is available, but
// kube-controller-manager, under OnDelete, deletes every pod of a node but
// one (the excess-pod rule) as soon as it sees a second, so the controller
// beside it can only delete old pods and let kube-controller-manager
// recreate them at the current revision. There is therefore no max-surge
// key: under it, ParseAnnotations says so.
type Annotations struct {
	// MaxUnavailable is max-unavailable, the budget of an OnDelete
	// DaemonSet; nil when absent.
	MaxUnavailable *intstr.IntOrString
	// Policy is what the other keys ask for: partition, scope, paused,
	// order-by and order-values (Order), domain and domain-max-unavailable
	// (DomainBudget), strict, wave-bake (Waves), canary (Canary, its
	// Spread the domain label, else the order-by label). Order.Compare
	// and DomainBudget.MaxSurge have no key and are never set.
	Policy daemon.RolloutPolicy
	// ProgressDeadline is progress-deadline: how long a rollout may go
	// without a node becoming updated and available before its controller
	// reports it blocked and pauses it; 0 when absent (no deadline). It
	// takes no part in a plan; the controller keeps the clock.
	ProgressDeadline time.Duration
	// Gates are the approval points (pause-after, approved), the
	// maintenance windows (window) and the health gates (health-gates,
	// max-restarts, ready-timeout; on, with DefaultMaxRestarts and
	// DefaultReadyTimeout, unless health-gates is "false"). The canary
	// wave itself is Policy.Canary (canary).
	Gates Gates
	// OnFailure is on-failure, what a controller does when a health gate
	// fails: OnFailurePause when absent.
	OnFailure OnFailure
	// RolledBackFrom is rolled-back-from: the revision hash a controller
	// last rolled back from on failure, "" when absent. A controller never
	// rolls back to it, so that two failing revisions do not alternate.
	RolledBackFrom string
	// Outcome is outcome: what a rollout came to that holds until a
	// person acts (a controller's own pause, a rollback), recorded by a
	// controller; nil when absent. Whether it still holds is
	// Outcome.Holds.
	Outcome *Outcome
}

// Strategy returns the update strategy to plan ds's rollouts with under a
// (nil a: ds's own): for an OnDelete DaemonSet, RollingUpdate with
// maxUnavailable a.MaxUnavailable (1 when nil) and maxSurge 0; for any
// other, ds's own strategy. Plan with a shallow copy of ds given this
// strategy (the revision hash covers the template only, so the plan's hash
// is the one kube-controller-manager writes).
//
// It fails with a *field.Error (found by errors.As; errors.Is finds
// daemon.ErrInvalidInput) when a is non-nil and the two budgets conflict: an OnDelete DaemonSet whose spec.updateStrategy.rollingUpdate
// asks for a non-zero maxSurge (it cannot surge, see Annotations),
// or a RollingUpdate DaemonSet with max-unavailable (its budget is its
// spec's). It modifies nothing; a nil ds gives the zero strategy.
func (a *Annotations) Strategy(ds *appsv1.DaemonSet) (appsv1.DaemonSetUpdateStrategy, error) {
	if ds == nil {
		return appsv1.DaemonSetUpdateStrategy{}, nil
	}
	own := ds.Spec.UpdateStrategy
	if a == nil {
		return own, nil
	}
	if own.Type != appsv1.OnDeleteDaemonSetStrategyType {
		if a.MaxUnavailable != nil {
			return own, annotationErrors{field.Invalid(annotationsPath.Key(AnnotationMaxUnavailable), a.MaxUnavailable.String(),
				fmt.Sprintf("the budget of a %s DaemonSet is spec.updateStrategy.rollingUpdate; this key is for OnDelete DaemonSets", own.Type))}
		}
		return own, nil
	}
	if ru := own.RollingUpdate; ru != nil && ru.MaxSurge != nil {
		if n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, 100, true); err != nil || n != 0 {
			return own, annotationErrors{field.Invalid(field.NewPath("spec", "updateStrategy", "rollingUpdate", "maxSurge"), ru.MaxSurge.String(),
				"an OnDelete DaemonSet cannot surge: kube-controller-manager deletes a node's second pod at once; set it to 0 or remove it")}
		}
	}
	budget := intstr.FromInt32(1)
	if a.MaxUnavailable != nil {
		budget = *a.MaxUnavailable
	}
	surge := intstr.FromInt32(0)
	return appsv1.DaemonSetUpdateStrategy{
		Type:          appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &budget, MaxSurge: &surge},
	}, nil
}
