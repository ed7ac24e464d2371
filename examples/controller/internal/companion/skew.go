package companion

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// ReasonTemplateSkew is the reason of RolloutProgressing (False),
// RolloutBlocked (True) and Stalled (True) while the plan of a DaemonSet
// stops at a template skew (daemon.Plan.TemplateSkew): its newest
// ControllerRevision holds fields of the pod template this build does not
// know, so no pod of it can be judged old or new (syncer.ReasonTemplateSkew,
// the Warning event's reason, in both modes).
const ReasonTemplateSkew = progressive.ReasonTemplateSkew

// holdSkew holds r's rollout on a template skew (err, from the plan):
// nothing is deleted; a Warning event (once per DaemonSet spec and
// message) and the conditions say why and what to do. The conditions
// clear by themselves in the first sync that plans again (an upgraded
// companion, or a revision history this build reads).
func (c *Companion) holdSkew(ctx context.Context, r *rolloutSync, err error) error {
	msg := syncer.TemplateSkewMessage(err)
	c.Warn(r.key, r.ds, syncer.ReasonTemplateSkew, msg)
	return c.patchConditions(ctx, r.key, r.ds, r.now, withKstatus([]appsv1.DaemonSetCondition{
		condition(ConditionProgressing, false, ReasonTemplateSkew, progressive.WithGeneration("no pod is replaced: "+msg, r.ds.Generation)),
		condition(ConditionBlocked, true, ReasonTemplateSkew, msg),
	}))
}
