package simulate

import (
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/backoff"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// Cluster is the state one sync of a DaemonSet sees: the DaemonSet, the
// nodes, the pods and ControllerRevisions of its namespace (and possibly
// others), the controller clock and the controller's carried state.
type Cluster struct {
	DaemonSet *appsv1.DaemonSet
	Nodes     []*corev1.Node
	Pods      []*corev1.Pod
	Revisions []*appsv1.ControllerRevision
	Now       time.Time
	// FailedPodBackoff, BurstReplicas and
	// EnableTaintTolerationComparisonOperators become the daemon.Options
	// fields of the same names.
	FailedPodBackoff                         backoff.State
	BurstReplicas                            int
	EnableTaintTolerationComparisonOperators bool
	// Rollout becomes Options.Rollout; Run judges convergence with
	// progressive.Judge when it is not zero.
	Rollout daemon.RolloutPolicy
	// Gates, when set, are what holds the rollout beyond its plan (health
	// gates, approval points, maintenance windows): Run asks
	// (*progressive.Gates).Hold at every sync and carries out its answer
	// (see Run). nil holds nothing, as a DaemonSet without them.
	Gates *progressive.Gates
}

// Input returns the arguments of the Compute call for c. The slices are
// c's own.
func (c *Cluster) Input() Input {
	return Input{
		DaemonSet: c.DaemonSet,
		Nodes:     c.Nodes,
		Pods:      c.Pods,
		Options: daemon.Options{
			Now:                                      c.Now,
			Revisions:                                c.Revisions,
			FailedPodBackoff:                         c.FailedPodBackoff,
			BurstReplicas:                            c.BurstReplicas,
			EnableTaintTolerationComparisonOperators: c.EnableTaintTolerationComparisonOperators,
			Rollout:                                  c.Rollout,
		},
	}
}

// DeepCopy returns a copy of c sharing no object with it (the backoff state
// is immutable and shared; the gates are copied). A nil c gives nil.
func (c *Cluster) DeepCopy() *Cluster {
	if c == nil {
		return nil
	}
	in := c.Input().DeepCopy()
	out := *c
	out.DaemonSet, out.Nodes, out.Pods, out.Revisions = in.DaemonSet, in.Nodes, in.Pods, in.Options.Revisions
	if c.Gates != nil {
		g := copyGates(*c.Gates)
		out.Gates = &g
	}
	return &out
}

// shallowCopy returns a copy of c with slices of its own that share c's
// objects: what the simulator starts from, as it replaces an object with a
// changed copy rather than changing it (see Run).
func (c *Cluster) shallowCopy() *Cluster {
	out := *c
	out.Nodes, out.Pods, out.Revisions = slices.Clone(c.Nodes), slices.Clone(c.Pods), slices.Clone(c.Revisions)
	return &out
}
