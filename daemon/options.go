package daemon

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon/backoff"
)

// DefaultBurstReplicas is the most creates, and separately the most
// deletes, one plan asks for: upstream's BurstReplicas.
const DefaultBurstReplicas = 250

// Options are the inputs of Compute besides the objects. The zero value
// works: no revisions yet, an empty backoff, the default burst, the zero
// time as the clock (so pods with minReadySeconds are not yet available).
type Options struct {
	// Now is the controller clock: availability after minReadySeconds and
	// the failed-pod backoff are judged at Now. Nothing else reads time.
	Now time.Time
	// Revisions are the ControllerRevisions of the DaemonSet's namespace
	// (controlled by it or not); nil means none exist yet.
	Revisions []*appsv1.ControllerRevision
	// FailedPodBackoff is the backoff state returned by the previous plan;
	// the zero value is empty.
	FailedPodBackoff backoff.State
	// BurstReplicas caps creates and, separately, deletes per plan; 0 means
	// DefaultBurstReplicas, as upstream.
	BurstReplicas int
	// EnableTaintTolerationComparisonOperators turns on the Gt and Lt
	// toleration operators (the TaintTolerationComparisonOperators feature
	// gate, alpha and off by default in Kubernetes 1.35 to 1.37).
	EnableTaintTolerationComparisonOperators bool
	// Rollout shapes the rolling-update step beyond upstream (partition,
	// scope, pause, order, per-domain and strict budgets); the zero value
	// is upstream's behaviour. See RolloutPolicy.
	Rollout RolloutPolicy
	// ReportStanding asks the plan to say where each node stands
	// (Plan.Standing). It changes nothing else in the plan; off, a plan
	// costs what it costs without it.
	ReportStanding bool
}

func (o Options) burst() int {
	if o.BurstReplicas <= 0 {
		return DefaultBurstReplicas
	}
	return o.BurstReplicas
}
