package scenario

import (
	"fmt"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// statusView is the part of a DaemonSetStatus that conformance judges.
type statusView struct {
	DesiredNumberScheduled int32
	CurrentNumberScheduled int32
	NumberMisscheduled     int32
	NumberReady            int32
	UpdatedNumberScheduled int32
	NumberAvailable        int32
	NumberUnavailable      int32
	ObservedGeneration     int64
	CollisionCount         *int32
}

// viewStatus returns the judged fields of st. It does not retain st.
func viewStatus(st appsv1.DaemonSetStatus) statusView {
	v := statusView{
		DesiredNumberScheduled: st.DesiredNumberScheduled,
		CurrentNumberScheduled: st.CurrentNumberScheduled,
		NumberMisscheduled:     st.NumberMisscheduled,
		NumberReady:            st.NumberReady,
		UpdatedNumberScheduled: st.UpdatedNumberScheduled,
		NumberAvailable:        st.NumberAvailable,
		NumberUnavailable:      st.NumberUnavailable,
		ObservedGeneration:     st.ObservedGeneration,
	}
	if st.CollisionCount != nil {
		c := *st.CollisionCount
		v.CollisionCount = &c
	}
	return v
}

// counters returns v with only the seven counters: the fields a status
// write is skipped on when they are unchanged.
func (v statusView) counters() statusView {
	return statusView{
		DesiredNumberScheduled: v.DesiredNumberScheduled,
		CurrentNumberScheduled: v.CurrentNumberScheduled,
		NumberMisscheduled:     v.NumberMisscheduled,
		NumberReady:            v.NumberReady,
		UpdatedNumberScheduled: v.UpdatedNumberScheduled,
		NumberAvailable:        v.NumberAvailable,
		NumberUnavailable:      v.NumberUnavailable,
	}
}

// judgeStatus applies rule 4 of Judge.
func judgeStatus(s *Scenario, plan daemon.Plan) []string {
	e := &s.Expected
	var objects []statusView
	nullAllowed := false
	for _, st := range append([]*appsv1.DaemonSetStatus{e.Status}, e.StatusMay...) {
		if st == nil {
			nullAllowed = true
			continue
		}
		objects = append(objects, viewStatus(*st))
	}
	got := viewStatus(plan.Status)
	if plan.StatusChanged {
		for _, w := range objects {
			if cmp.Equal(w, got) {
				return nil
			}
		}
		if len(objects) == 0 {
			return []string{fmt.Sprintf("status: upstream wrote no status, plan writes one (StatusChanged); against the stored status (-stored +plan):\n%s",
				cmp.Diff(storedView(s), got))}
		}
		return []string{fmt.Sprintf("status: mismatch (-want +got):\n%s", cmp.Diff(objects[0], got))}
	}
	if !nullAllowed {
		return []string{fmt.Sprintf("status: upstream wrote a status, plan writes none (StatusChanged is false); (-want +plan.Status):\n%s",
			cmp.Diff(objects[0], got))}
	}
	if !storedStatusApplies(s.DaemonSet) {
		return nil
	}
	if diff := cmp.Diff(storedView(s).counters(), got.counters()); diff != "" {
		return []string{fmt.Sprintf("status: upstream wrote none because its counters equalled the stored ones; plan.Status counters differ (-stored +got):\n%s", diff)}
	}
	return nil
}

// storedView returns the judged fields of the DaemonSet's stored status;
// zero for a nil DaemonSet.
func storedView(s *Scenario) statusView {
	if s.DaemonSet == nil {
		return statusView{}
	}
	return viewStatus(s.DaemonSet.Status)
}

// storedStatusApplies reports whether upstream reached the status step, so
// that "no write" means its computed counters equalled the stored ones: the
// DaemonSet exists, is not being deleted and its selector is not exactly {}.
// (An error is ruled out before this is asked.)
func storedStatusApplies(ds *appsv1.DaemonSet) bool {
	if ds == nil || ds.DeletionTimestamp != nil {
		return false
	}
	sel := ds.Spec.Selector
	return sel == nil || len(sel.MatchLabels) > 0 || len(sel.MatchExpressions) > 0
}
