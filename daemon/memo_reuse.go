package daemon

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
)

// keepPlan keeps plan, computed for ds with opts and returning err, when
// it may be reused (see keptPlan); otherwise it drops the kept one.
func (m *memo) keepPlan(ds *appsv1.DaemonSet, plan *Plan, opts *Options, err error) {
	m.last = nil
	if err != nil || plan.Skip != SkipNone || plan.TemplateSkew != nil || plan.RequeueAfter != 0 ||
		plan.FailedPodBackoff.Len() != 0 || !reusableOptions(opts) {
		return
	}
	revs := make([]revisionIdentity, len(opts.Revisions))
	for i, r := range opts.Revisions {
		if r.ResourceVersion == "" {
			return // never remembered, as a node or pod without one
		}
		revs[i] = revisionIdentity{rev: r, rv: r.ResourceVersion}
	}
	copied := ds.DeepCopy()
	m.last = &keptPlan{plan: clonePlan(plan), ds: copied, revisions: revs, now: opts.Now,
		burst: opts.BurstReplicas, comparison: opts.EnableTaintTolerationComparisonOperators}
}

// reusableOptions reports whether a plan computed with opts may be kept.
func reusableOptions(opts *Options) bool {
	return !opts.ReportStanding && opts.FailedPodBackoff.Len() == 0 && opts.Rollout.IsZero()
}

// reusePlan returns a copy of the kept plan when it is what Compute would
// return for ds and opts over the entries resolve found, and false when
// the plan must be computed. It judges the replaced nodes again (their
// entries then hold this plan's verdicts).
func (m *memo) reusePlan(ds *appsv1.DaemonSet, opts *Options) (Plan, bool) {
	l := m.last
	if l == nil || m.churn != 0 || !reusableOptions(opts) || opts.Now.Before(l.now) ||
		opts.BurstReplicas != l.burst || opts.EnableTaintTolerationComparisonOperators != l.comparison ||
		len(opts.Revisions) != len(l.revisions) {
		return Plan{}, false
	}
	for i, r := range opts.Revisions {
		if k := l.revisions[i]; r != k.rev || r.ResourceVersion != k.rv {
			return Plan{}, false
		}
	}
	if !reflect.DeepEqual(ds, l.ds) {
		return Plan{}, false
	}
	// The DaemonSet is the one the kept verdicts were judged for.
	same := true
	for _, idx := range m.refreshed {
		e := &m.nodes[idx]
		if l.elig == nil {
			// Compiled from the kept copy, once a replaced node needs it.
			l.elig = eligibility.New(l.ds, l.comparison)
		}
		run, keep := l.elig.ShouldRun(e.node)
		if run != e.run || keep != e.keep {
			same = false
		}
		e.run, e.keep, e.verdictOf = run, keep, m.verdicts
	}
	if !same {
		return Plan{}, false
	}
	m.built = true
	return clonePlan(&l.plan), true
}
