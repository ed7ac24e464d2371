package companion

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
	"github.com/daemonplan/daemonplan/rollout"
)

// onFailure carries out on-failure: rollback for a rollout a health gate
// stopped (a latch with OutcomeHealthGateFailed): it writes the template
// of the previous revision back (rollbackTarget), as "kubectl rollout
// undo" does, and annotates the DaemonSet rolled-back-from: <the failing
// revision's hash>, so that it never rolls back to that one, and outcome:
// the rollback (progressive.OutcomeRolledBack, from the failing revision
// to the restored one), in the same patch. The rollout is then no longer
// latched: the companion rolls the previous revision out under the same
// policy, in the policy's order (the first waves are the nodes that run
// the failing revision), and reports the change as rolled back until a
// person acts. With no revision to go back to the rollout stays paused,
// and RolloutPaused says why (r.rollback). It runs in every sync the
// latch holds, so that a patch refused by a conflict is tried again on
// the fresh object.
func (c *Companion) onFailure(ctx context.Context, r *rolloutSync, errs *syncer.ErrorList) {
	if !r.latched || r.l.Reason != progressive.OutcomeHealthGateFailed || r.ro.Annotations.OnFailure != progressive.OnFailureRollback {
		return
	}
	target, why := rollbackTarget(r.ds, r.revs, r.plan.Hash, r.ro.Annotations.RolledBackFrom)
	if target == nil {
		r.rollback = "on-failure rollback: " + why
		return
	}
	to := revisionName(target)
	why = r.l.Why
	if r.failing.Held() {
		why = r.failing.String()
	}
	o := progressive.NewOutcome(r.ds, progressive.OutcomeRolledBack, target.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
	o.From, o.By, o.Why = r.plan.Hash, progressive.RolledBackOnFailure, why
	patch, err := rollbackPatch(r.ds, target, o)
	if err == nil {
		var written *appsv1.DaemonSet
		written, err = c.Client.AppsV1().DaemonSets(r.ds.Namespace).Patch(ctx, r.ds.Name, types.StrategicMergePatchType, patch,
			metav1.PatchOptions{FieldManager: fieldManager})
		if err == nil {
			c.Fence.Wrote(r.key, syncer.FenceDaemonSets, written.ResourceVersion)
		}
	}
	if err != nil {
		r.rollbackConflict = apierrors.IsConflict(err)
		c.Metrics.ActionErrors.WithLabelValues("rollback").Inc()
		errs.Add(fmt.Errorf("on-failure rollback to %s: %w", to, err))
		r.rollback = fmt.Sprintf("on-failure rollback to %s failed (retried): %v", to, err)
		return
	}
	c.Metrics.Actions.WithLabelValues("rollback", "HealthGateFailed").Inc()
	from := "revision " + r.plan.Hash
	if r.rev != nil {
		from = revisionName(r.rev)
	}
	// No longer stopped: the restored revision is rolled out, and the
	// outcome the patch wrote says the change failed.
	r.latched, r.fresh, r.legacy, r.staleOutcome = false, false, false, false
	r.rolledBack, r.rollingBack = &o, true
	c.Recorder.Eventf(r.ds, corev1.EventTypeWarning, "RolledBack", "rolled back from %s to %s (on-failure: rollback): %s",
		from, to, why)
}

// revisionName names a ControllerRevision for people: "revision 3
// (6d5f8b9c7)".
func revisionName(rev *appsv1.ControllerRevision) string {
	return fmt.Sprintf("revision %d (%s)", rev.Revision, rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
}

// rollbackTarget returns the revision on-failure rollback writes back for
// ds at revision hash: the newest (highest-numbered, then by name) of
// ds's ControllerRevisions among revs whose hash is neither hash nor
// rolledBackFrom and whose template is not ds's own (rollout.Match). With
// none it returns nil and says why.
func rollbackTarget(ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision, hash, rolledBackFrom string) (*appsv1.ControllerRevision, string) {
	var candidates []*appsv1.ControllerRevision
	skipped := false
	for _, rev := range revs {
		if rev == nil {
			continue
		}
		if ref := metav1.GetControllerOf(rev); ref == nil || ref.UID != ds.UID {
			continue
		}
		h := rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
		if h == hash {
			continue
		}
		if same, err := rollout.Match(ds, rev); err != nil || same {
			continue
		}
		if rolledBackFrom != "" && h == rolledBackFrom {
			skipped = true
			continue
		}
		candidates = append(candidates, rev)
	}
	if len(candidates) == 0 {
		if skipped {
			return nil, fmt.Sprintf("no revision to roll back to: the only earlier one, %s, is the one rolled back from before (%s); roll back by hand",
				rolledBackFrom, progressive.AnnotationRolledBackFrom)
		}
		return nil, "no revision to roll back to: the DaemonSet has no earlier revision"
	}
	return slices.MaxFunc(candidates, func(a, b *appsv1.ControllerRevision) int {
		return cmp.Or(cmp.Compare(a.Revision, b.Revision), cmp.Compare(a.Name, b.Name))
	}), ""
}

// rollbackPatch is the strategic merge patch that writes rev's template
// back to ds: rev's data, which kube-controller-manager writes as such a
// patch ({"spec":{"template":{...,"$patch":"replace"}}}, rollout.Patch)
// and "kubectl rollout undo" applies as is, with the annotations
// rolled-back-from: o.From and outcome: o, and ds's uid and
// resourceVersion as preconditions (the API server refuses the patch when
// the DaemonSet changed since it was read, or the name is another's).
func rollbackPatch(ds *appsv1.DaemonSet, rev *appsv1.ControllerRevision, o progressive.Outcome) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(rev.Data.Raw))
	dec.UseNumber() // integers stay as written
	var data map[string]any
	if err := dec.Decode(&data); err != nil {
		return nil, fmt.Errorf("controllerrevision %s/%s: data: %w", rev.Namespace, rev.Name, err)
	}
	spec, _ := data["spec"].(map[string]any)
	if _, ok := spec["template"].(map[string]any); !ok || len(data) != 1 {
		return nil, fmt.Errorf("controllerrevision %s/%s: data: not a DaemonSet revision (want {\"spec\":{\"template\":{...}}})", rev.Namespace, rev.Name)
	}
	data["metadata"] = map[string]any{
		"uid":             ds.UID,
		"resourceVersion": ds.ResourceVersion,
		"annotations": map[string]any{
			progressive.AnnotationRolledBackFrom: o.From,
			progressive.AnnotationOutcome:        o.Format(),
		},
	}
	return json.Marshal(data)
}
