package daemon

import (
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/rollout"
)

// keptPlan is a memo's last plan, kept to be returned again while nothing
// it was computed from has changed: the memo's entries (no node or pod
// added, removed, moved or changed, but nodes replaced by objects of the
// same verdict: without a policy or a standing, a plan reads nothing else
// of a node), the DaemonSet (by value), the revisions (by
// identity, as nodes and pods) and the options. A plan is kept only when
// the clock cannot change it: it has nothing to wait for (RequeueAfter 0:
// no pod is on its way to available, no failed pod is in backoff), and a
// later clock changes no verdict, as a pod available at one time is
// available at every later one. Plans under a RolloutPolicy, with a
// standing or a failed-pod backoff are never kept.
type keptPlan struct {
	plan       Plan               // shares nothing with the plan returned
	ds         *appsv1.DaemonSet  // a copy of the DaemonSet planned
	elig       *eligibility.Check // nil until a replaced node is judged (reusePlan)
	revisions  []revisionIdentity
	now        time.Time
	burst      int
	comparison bool
}

type revisionIdentity struct {
	rev *appsv1.ControllerRevision
	rv  string
}

// clonePlan returns a copy of p that shares no memory p owns: the slices
// are new, and so are the objects p created (pods, revisions); the
// caller's objects it names (pods to delete, adopt, ...) are the same.
// TestClonePlanCoversPlan fails when Plan gains a field this does not
// know.
func clonePlan(p *Plan) Plan {
	c := *p
	c.Creates = slices.Clone(p.Creates)
	for i := range c.Creates {
		c.Creates[i].Pod = c.Creates[i].Pod.DeepCopy()
	}
	c.Deletes = slices.Clone(p.Deletes)
	c.Adopt, c.Release, c.Unplaced = slices.Clone(p.Adopt), slices.Clone(p.Release), slices.Clone(p.Unplaced)
	c.History = cloneHistory(&p.History)
	if p.Rolling != nil {
		c.Rolling = cloneStep(p.Rolling)
	}
	p.Status.DeepCopyInto(&c.Status)
	c.Events = slices.Clone(p.Events)
	// FailedPodBackoff is empty (keepPlan) and immutable: shared.
	if p.TemplateSkew != nil {
		skew := *p.TemplateSkew
		c.TemplateSkew = &skew
	}
	c.Standing = nil // never kept (reusableOptions)
	return c
}

func cloneHistory(h *rollout.HistoryPlan) rollout.HistoryPlan {
	c := *h
	c.Create = h.Create.DeepCopy()
	c.Update = make([]*appsv1.ControllerRevision, len(h.Update))
	for i, r := range h.Update {
		c.Update[i] = r.DeepCopy()
	}
	if h.Update == nil {
		c.Update = nil
	}
	c.Delete = slices.Clone(h.Delete)
	c.Relabel = slices.Clone(h.Relabel)
	c.Adopt, c.Release = slices.Clone(h.Adopt), slices.Clone(h.Release)
	if h.CollisionCount != nil {
		n := *h.CollisionCount
		c.CollisionCount = &n
	}
	return c
}

func cloneStep(s *rollout.Step) *rollout.Step {
	c := *s
	c.Creates = slices.Clone(s.Creates)
	for i := range c.Creates {
		c.Creates[i].Pod = c.Creates[i].Pod.DeepCopy()
	}
	c.Deletes = slices.Clone(s.Deletes)
	if s.Policy != nil {
		policy := *s.Policy
		if w := s.Policy.Wave; w != nil {
			wave := *w
			wave.Waiting = slices.Clone(w.Waiting)
			policy.Wave = &wave
		}
		c.Policy = &policy
	}
	return &c
}

// givenObjects is what a first plan was computed from: each node and pod
// given, with its resourceVersion, in the order given. A Planner keeps it
// instead of reading the objects into entries, which costs more than the
// plan, as long as the same objects come again (see Planner).
type givenObjects struct {
	nodes []nodeIdentity
	pods  []podIdentity
}

type nodeIdentity struct {
	node *corev1.Node
	rv   string
}

type podIdentity struct {
	pod *corev1.Pod
	rv  string
}

// givenOf returns the identities of nodes and pods, nil when an object
// has no resourceVersion (it is never remembered) or is nil.
func givenOf(nodes []*corev1.Node, pods []*corev1.Pod) *givenObjects {
	g := &givenObjects{nodes: make([]nodeIdentity, len(nodes)), pods: make([]podIdentity, len(pods))}
	for i, n := range nodes {
		if n == nil || n.ResourceVersion == "" {
			return nil
		}
		g.nodes[i] = nodeIdentity{node: n, rv: n.ResourceVersion}
	}
	for i, p := range pods {
		if p == nil || p.ResourceVersion == "" {
			return nil
		}
		g.pods[i] = podIdentity{pod: p, rv: p.ResourceVersion}
	}
	return g
}

// same reports whether nodes and pods are the objects g holds, in its
// order, with the same resourceVersions.
func (g *givenObjects) same(nodes []*corev1.Node, pods []*corev1.Pod) bool {
	if len(nodes) != len(g.nodes) || len(pods) != len(g.pods) {
		return false
	}
	for i, n := range nodes {
		if k := &g.nodes[i]; n != k.node || n.ResourceVersion != k.rv {
			return false
		}
	}
	for i, p := range pods {
		if k := &g.pods[i]; p != k.pod || p.ResourceVersion != k.rv {
			return false
		}
	}
	return true
}
