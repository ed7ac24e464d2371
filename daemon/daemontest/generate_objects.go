package daemontest

import (
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
)

// chaosPods gives each node (and each missing node) zero to three pods of
// every kind, plus a few pods with no target node.
func (g *generator) chaosPods(s *chaosState) {
	r := g.r
	elig := eligibility.New(s.c.DaemonSet, s.c.EnableTaintTolerationComparisonOperators)
	keep := make(map[string]bool, len(s.c.Nodes))
	for _, n := range s.c.Nodes {
		_, keep[n.Name] = elig.ShouldRun(n)
	}
	targets := append(append([]string(nil), s.nodeNames...), s.missing...)
	for _, node := range targets {
		n := pick(r, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 3)
		switch {
		case s.calm && !keep[node] && g.chance(0.85):
			n = 0
		case s.calm:
			n = pick(r, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2)
		}
		for range n {
			s.c.Pods = append(s.c.Pods, g.chaosPod(s, node))
		}
	}
	if g.chance(0.2) {
		p := g.chaosPod(s, "")
		p.Spec.NodeName, p.Spec.Affinity = "", nil
		s.c.Pods = append(s.c.Pods, p)
	}
	r.Shuffle(len(s.c.Pods), func(i, j int) { s.c.Pods[i], s.c.Pods[j] = s.c.Pods[j], s.c.Pods[i] })
}

// chaosPod returns one pod targeting node, of any revision, phase,
// readiness and ownership.
func (g *generator) chaosPod(s *chaosState, node string) *corev1.Pod {
	r, ds, now := g.r, s.c.DaemonSet, s.c.Now
	p := Pod(ds, g.podName(ds.Name), node)
	p.UID = types.UID("uid-" + p.Name)
	hashLabel := appsv1.ControllerRevisionHashLabelKey
	switch x := r.IntN(20); {
	case x < 9: // current
	case x < 17:
		if len(s.old) > 0 {
			p.Labels[hashLabel] = Hash(pick(r, s.old...))
		} else {
			p.Labels[hashLabel] = "5d4b8c7f9"
		}
	case x == 17:
		p.Labels[hashLabel] = "zzz"
	case x == 18:
		delete(p.Labels, hashLabel)
	default:
		p.Labels[hashLabel] = ""
	}
	if _, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]; ok && g.chance(0.4) {
		p.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey] = strconv.FormatInt(ds.Generation-int64(r.IntN(2)), 10)
	}

	created := now.Add(-pick(r, 0, time.Second, 30*time.Second, 10*time.Minute, time.Hour, 3*time.Hour))
	p.CreationTimestamp = metav1.Time{Time: created}
	p.Status.Phase = pick(r, corev1.PodRunning, corev1.PodRunning, corev1.PodRunning, corev1.PodRunning,
		corev1.PodRunning, corev1.PodRunning, corev1.PodRunning, corev1.PodPending, corev1.PodFailed,
		corev1.PodSucceeded, corev1.PodUnknown)
	// odd scales the chance of everything unusual; a calm cluster has
	// few oddities, so that the rolling step runs.
	odd := 1.0
	if s.calm {
		odd = 0.2
		if g.chance(0.8) {
			p.Status.Phase = corev1.PodRunning
		}
	}
	readyChance := 0.05 // a stale Ready condition
	if p.Status.Phase == corev1.PodRunning {
		readyChance = 0.8
	}
	switch {
	case g.chance(readyChance):
		since := created.Add(pick(r, 0, time.Second, 10*time.Second, 5*time.Minute))
		if since.After(now) {
			since = now
		}
		ReadySince(since)(p)
		if g.chance(0.03) {
			p.Status.Conditions[0].LastTransitionTime = metav1.Time{}
		}
	case g.chance(0.1):
		p.Status.Conditions = nil
	default:
		NotReadyPod()(p)
	}
	if g.chance(0.1 * odd) {
		p.DeletionTimestamp = &metav1.Time{Time: now.Add(-pick(r, 0, 10*time.Second))}
	}
	missing := node != "" && !slices.Contains(s.nodeNames, node)
	if (missing && g.chance(0.5)) || g.chance(0.1*odd) {
		Unscheduled()(p)
	}

	yes := true
	switch x := r.IntN(40); {
	case s.calm && g.chance(0.8):
	case x < 3:
		Orphan()(p)
	case x == 3:
		p.OwnerReferences[0].UID, p.OwnerReferences[0].Name = "uid-other-ds", "other"
	case x == 4:
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d9", UID: "uid-rs", Controller: &yes}}
	case x == 5:
		no := false
		p.OwnerReferences[0].Controller = &no
	case x == 6:
		p.Labels["app"] = ds.Name + "-renamed"
	case x == 7:
		p.Namespace = "elsewhere"
	}
	return p
}

// chaosRevisions draws the namespace's ControllerRevisions: none at all, or
// some of the old ones, the current one, duplicates, orphans, others'
// revisions and a name collision.
func (g *generator) chaosRevisions(s *chaosState) {
	if g.chance(0.15) {
		return
	}
	ds := s.c.DaemonSet
	hashLabel := appsv1.ControllerRevisionHashLabelKey
	revs := []*appsv1.ControllerRevision{}
	for i, old := range s.old {
		if !g.chance(0.7) {
			continue
		}
		rev := Revision(old, int64(i+1))
		switch x := g.r.IntN(20); {
		case x == 0:
			delete(rev.Labels, hashLabel)
		case x == 1:
			rev.OwnerReferences = nil // an orphan to adopt
		case x == 2:
			rev.OwnerReferences[0].UID = "uid-other-ds"
		}
		revs = append(revs, rev)
	}
	hasCurrent := g.chance(0.75)
	if hasCurrent {
		rev := Revision(ds, int64(g.r.IntN(len(s.old)+2)))
		if g.chance(0.1) {
			delete(rev.Labels, hashLabel)
		}
		revs = append(revs, rev)
		if g.chance(0.1) {
			dup := Revision(ds, int64(g.r.IntN(len(s.old)+2)))
			dup.Name, dup.UID = ds.Name+"-dup", "rev-dup"
			dup.Labels[hashLabel] = "7c6d5b4f8"
			revs = append(revs, dup)
		}
	}
	if !hasCurrent && len(s.old) > 0 && g.chance(0.1) {
		// The name of the current revision is taken by other data.
		taken := Revision(pick(g.r, s.old...), 9)
		taken.Name, taken.UID = ds.Name+"-"+Hash(ds), "rev-taken"
		taken.OwnerReferences = nil
		taken.Labels = map[string]string{"unrelated": "yes"}
		revs = append(revs, taken)
	}
	if g.chance(0.05) {
		other := Revision(ds, 1)
		other.Namespace, other.Name = "elsewhere", "elsewhere-rev"
		revs = append(revs, other)
	}
	g.r.Shuffle(len(revs), func(i, j int) { revs[i], revs[j] = revs[j], revs[i] })
	s.c.Revisions = revs
}
