package daemontest

import (
	"cmp"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/backoff"
	"github.com/daemonplan/daemonplan/rollout"
)

// checkSorted checks the documented order of every slice of the plan.
func (c *checker) checkSorted() {
	p := c.plan
	for i := 1; i < len(p.Creates); i++ {
		if p.Creates[i-1].NodeName >= p.Creates[i].NodeName {
			c.add(InvariantSorted, "Creates[%d] (node %q) is not after Creates[%d] (node %q)", i, p.Creates[i].NodeName, i-1, p.Creates[i-1].NodeName)
		}
	}
	for i, d := range p.Deletes {
		if d.Pod == nil {
			c.add(InvariantSorted, "Deletes[%d] has a nil pod", i)
			return
		}
	}
	for i := 1; i < len(p.Deletes); i++ {
		a, b := p.Deletes[i-1], p.Deletes[i]
		if cmp.Or(cmp.Compare(a.NodeName, b.NodeName), cmp.Compare(a.Pod.Name, b.Pod.Name)) > 0 {
			c.add(InvariantSorted, "Deletes[%d] (%s on %q) comes after Deletes[%d] (%s on %q)", i-1, a.Pod.Name, a.NodeName, i, b.Pod.Name, b.NodeName)
		}
	}
	c.podsSorted("Adopt", p.Adopt)
	c.podsSorted("Release", p.Release)
	c.podsSorted("Unplaced", p.Unplaced)
	c.podsSorted("History.Relabel", p.History.Relabel)
	c.revisionsSorted("History.Update", p.History.Update)
	c.revisionsSorted("History.Delete", p.History.Delete)
	c.revisionsSorted("History.Adopt", p.History.Adopt)
	c.revisionsSorted("History.Release", p.History.Release)
}

func (c *checker) podsSorted(field string, pods []*corev1.Pod) {
	if i := slices.Index(pods, nil); i >= 0 {
		c.add(InvariantSorted, "%s[%d] is nil", field, i)
		return
	}
	if !slices.IsSortedFunc(pods, func(a, b *corev1.Pod) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
	}) {
		c.add(InvariantSorted, "%s is not sorted by name: %v", field, podNames(pods))
	}
}

func (c *checker) revisionsSorted(field string, revs []*appsv1.ControllerRevision) {
	if i := slices.Index(revs, nil); i >= 0 {
		c.add(InvariantSorted, "%s[%d] is nil", field, i)
		return
	}
	if !slices.IsSortedFunc(revs, func(a, b *appsv1.ControllerRevision) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
	}) {
		names := make([]string, len(revs))
		for i, r := range revs {
			names[i] = r.Name
		}
		c.add(InvariantSorted, "%s is not sorted by name: %v", field, names)
	}
}

func podNames(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// checkSkip checks a plan with Skip set, and that Skip is set for the right
// reason.
func (c *checker) checkSkip() {
	p, ds := c.plan, c.in.DaemonSet
	if want := daemon.SkipOf(ds); p.Skip != want {
		c.add(InvariantSkip, "Skip is %q but the DaemonSet (selector %v, deletionTimestamp %v) calls for %q", p.Skip, ds.Spec.Selector, ds.DeletionTimestamp, want)
	}
	if len(p.Creates)+len(p.Deletes)+len(p.Adopt)+len(p.Release) > 0 || !p.History.IsZero() ||
		p.StatusChanged || p.RequeueAfter != 0 || p.Rolling != nil || p.Hash != "" ||
		p.DeferredCreates != 0 || p.DeferredDeletes != 0 {
		c.add(InvariantSkip, "Skip is %q but the plan asks for something: %d creates, %d deletes, %d adopt, %d release, history zero %v, status write %v, requeue %v, rolling step %v, hash %q",
			p.Skip, len(p.Creates), len(p.Deletes), len(p.Adopt), len(p.Release), p.History.IsZero(), p.StatusChanged, p.RequeueAfter, p.Rolling != nil, p.Hash)
	}
}

// checkClaims checks Adopt and Release against the pods and the selector,
// and, once the history succeeded (claims come after it), that no claim is
// missing.
func (c *checker) checkClaims(sel labels.Selector) {
	ds := c.ds
	if skip := daemon.SkipOf(ds); skip != daemon.SkipNone {
		c.add(InvariantSkip, "the DaemonSet calls for Skip %q but Skip is not set", skip)
	}
	for _, pod := range c.plan.Adopt {
		switch {
		case !c.input[pod]:
			c.add(InvariantClaims, "adopted pod %s is not an input pod", podKey(pod))
		case pod.Namespace != ds.Namespace:
			c.add(InvariantClaims, "adopted pod %s is not in the DaemonSet's namespace", podKey(pod))
		case metav1.GetControllerOfNoCopy(pod) != nil:
			c.add(InvariantClaims, "adopted pod %s already has a controller", podKey(pod))
		case pod.DeletionTimestamp != nil:
			c.add(InvariantClaims, "adopted pod %s is being deleted", podKey(pod))
		case !sel.Matches(labels.Set(pod.Labels)):
			c.add(InvariantClaims, "adopted pod %s is not matched by the selector", podKey(pod))
		}
		if c.released[pod] {
			c.add(InvariantClaims, "pod %s is both adopted and released", podKey(pod))
		}
	}
	for _, pod := range c.plan.Release {
		switch {
		case !c.input[pod]:
			c.add(InvariantClaims, "released pod %s is not an input pod", podKey(pod))
		case !ownsPod(ds, pod) || pod.Namespace != ds.Namespace:
			c.add(InvariantClaims, "released pod %s is not controlled by the DaemonSet", podKey(pod))
		case sel.Matches(labels.Set(pod.Labels)):
			c.add(InvariantClaims, "released pod %s is matched by the selector", podKey(pod))
		}
	}
	if !c.historyDone() {
		return
	}
	for _, pod := range c.in.Pods {
		if pod == nil || pod.Namespace != ds.Namespace {
			continue
		}
		matched := sel.Matches(labels.Set(pod.Labels))
		switch {
		case metav1.GetControllerOfNoCopy(pod) == nil && matched && pod.DeletionTimestamp == nil && !c.adopted[pod]:
			c.add(InvariantClaims, "orphan pod %s is matched by the selector but not adopted", podKey(pod))
		case ownsPod(ds, pod) && !matched && !c.released[pod]:
			c.add(InvariantClaims, "pod %s is controlled but not matched by the selector, and not released", podKey(pod))
		}
	}
}

// checkCreates checks every create: one per node, an eligible node, needed
// there, and a well-formed pod.
func (c *checker) checkCreates() {
	seen := make(map[string]bool, len(c.plan.Creates))
	// Not just !AllowsSurge: a negative maxSurge that scales to a nonzero
	// count sends the rolling step down its surge path (upstream tests
	// maxSurge == 0), which creates beside old pods.
	surge, surgeErr := rollout.SurgeCount(c.ds, c.desired)
	strict := !rollout.AllowsSurge(c.ds) && (surgeErr != nil || surge == 0)
	for i, cr := range c.plan.Creates {
		if seen[cr.NodeName] {
			c.add(InvariantCreateOncePerNode, "node %q gets more than one create", cr.NodeName)
		}
		seen[cr.NodeName] = true
		nv := c.nodes[cr.NodeName]
		if nv == nil || nv.node == nil {
			c.add(InvariantCreateEligible, "Creates[%d] targets node %q, which is not in the input", i, cr.NodeName)
		} else if !nv.shouldRun {
			c.add(InvariantCreateEligible, "Creates[%d] targets node %q, where a new pod should not run (%s)", i, cr.NodeName, c.elig.Explain(nv.node).Reason)
		}
		if nv != nil {
			if strict && len(nv.pods) > 0 {
				c.add(InvariantCreateNeeded, "node %q gets a create beside its pod %s, and the DaemonSet does not surge", cr.NodeName, podKey(nv.pods[0]))
			}
			for _, pod := range live(nv.pods) {
				if !isTerminal(pod) && c.updated(pod) {
					c.add(InvariantCreateNeeded, "node %q gets a create beside its live pod %s of the current revision", cr.NodeName, podKey(pod))
				}
			}
		}
		c.checkCreatedPod(i, cr)
	}
}

func (c *checker) checkCreatedPod(i int, cr daemon.Create) {
	pod := cr.Pod
	if pod == nil {
		c.add(InvariantCreatedPod, "Creates[%d] on %q has no pod", i, cr.NodeName)
		return
	}
	var problems []string
	if pod.Namespace != c.ds.Namespace {
		problems = append(problems, "namespace "+pod.Namespace)
	}
	if pod.Name != "" || pod.GenerateName == "" {
		problems = append(problems, "name "+pod.Name+", generateName "+pod.GenerateName)
	}
	if !ownsPod(c.ds, pod) {
		problems = append(problems, "no controller reference to the DaemonSet")
	}
	if got := pod.Labels[appsv1.ControllerRevisionHashLabelKey]; got != c.plan.Hash {
		problems = append(problems, "hash label "+got+", plan hash "+c.plan.Hash)
	}
	if target, err := affinity.GetTargetNodeName(pod); err != nil || target != cr.NodeName {
		problems = append(problems, "target node "+target)
	}
	if c.input[pod] {
		problems = append(problems, "the pod is an input pod")
	}
	switch cr.Reason {
	case daemon.ReasonNodeNeedsPod:
	case daemon.ReasonSurge, daemon.ReasonSurgeForUnavailable:
		if c.plan.Rolling == nil {
			problems = append(problems, "reason "+string(cr.Reason)+" without a rolling step")
		}
	default:
		problems = append(problems, "unknown reason "+string(cr.Reason))
	}
	if len(problems) > 0 {
		c.add(InvariantCreatedPod, "Creates[%d] on %q: %s", i, cr.NodeName, strings.Join(problems, "; "))
	}
}

// checkDeletes checks that every delete names a pod of the DaemonSet, once,
// for a reason that holds.
func (c *checker) checkDeletes() {
	seen := make(map[string]bool, len(c.plan.Deletes))
	failedOn := make(map[string]int)
	for i, d := range c.plan.Deletes {
		pod := d.Pod
		if pod == nil {
			continue // reported by checkSorted
		}
		switch {
		case !c.input[pod]:
			c.add(InvariantDeleteOwned, "Deletes[%d] (%s) is not an input pod", i, podKey(pod))
		case c.released[pod]:
			c.add(InvariantDeleteOwned, "Deletes[%d] (%s) is released by the same plan", i, podKey(pod))
		case pod.Namespace != c.ds.Namespace || !(ownsPod(c.ds, pod) || c.adopted[pod]):
			c.add(InvariantDeleteOwned, "Deletes[%d] (%s) is neither controlled by the DaemonSet nor adopted", i, podKey(pod))
		}
		if seen[podKey(pod)] {
			c.add(InvariantDeleteOnce, "pod %s is deleted more than once", podKey(pod))
		}
		seen[podKey(pod)] = true
		if target, err := affinity.GetTargetNodeName(pod); err != nil || target != d.NodeName {
			c.add(InvariantDeleteReason, "Deletes[%d] (%s) says node %q, the pod targets %q", i, podKey(pod), d.NodeName, target)
		}
		c.checkDeleteReason(i, d, failedOn)
	}
}

func (c *checker) checkDeleteReason(i int, d daemon.Delete, failedOn map[string]int) {
	pod := d.Pod
	nv := c.nodes[d.NodeName]
	bad := func(why string) {
		c.add(InvariantDeleteReason, "Deletes[%d] (%s on %q, %s): %s", i, podKey(pod), d.NodeName, d.Reason, why)
	}
	if pod.DeletionTimestamp != nil && d.Reason != daemon.ReasonNodeMissing {
		bad("the pod is already being deleted")
	}
	switch d.Reason {
	case daemon.ReasonPodFailed:
		if pod.Status.Phase != corev1.PodFailed {
			bad("phase is " + string(pod.Status.Phase))
		}
		if failedOn[d.NodeName]++; failedOn[d.NodeName] == 2 {
			bad("a second failed pod deleted on the node in one plan")
		}
	case daemon.ReasonPodSucceeded:
		if pod.Status.Phase != corev1.PodSucceeded {
			bad("phase is " + string(pod.Status.Phase))
		}
	case daemon.ReasonNodeIneligible:
		if nv == nil || nv.node == nil || nv.shouldContinue {
			bad("the node exists and may keep the pod, or does not exist")
		}
	case daemon.ReasonNodeMissing:
		if (nv != nil && nv.node != nil) || pod.Spec.NodeName != "" {
			bad("the node exists or the pod is scheduled")
		}
	case daemon.ReasonExcessPod:
		running := 0
		if nv != nil {
			for _, p := range live(nv.pods) {
				if !isTerminal(p) {
					running++
				}
			}
		}
		if running < 2 {
			bad("the node runs fewer than two pods")
		}
	case daemon.ReasonRollingUpdate, daemon.ReasonReplaceUnavailable, daemon.ReasonSurgeReplaced, daemon.ReasonIneligibleUnderSurge:
		if pod.Labels[appsv1.ControllerRevisionHashLabelKey] == c.plan.Hash {
			bad("the pod carries the current hash")
		}
	default:
		bad("unknown reason")
	}
}

// checkBurst checks the burst cap and the deferred counts.
func (c *checker) checkBurst() {
	burst := c.in.Options.BurstReplicas
	if burst <= 0 {
		burst = daemon.DefaultBurstReplicas
	}
	p := c.plan
	for _, x := range []struct {
		what            string
		planned, defers int
	}{{"creates", len(p.Creates), p.DeferredCreates}, {"deletes", len(p.Deletes), p.DeferredDeletes}} {
		if x.planned > burst {
			c.add(InvariantBurst, "%d %s exceed the burst of %d", x.planned, x.what, burst)
		}
		if x.defers < 0 || (x.defers > 0 && x.planned != burst) {
			c.add(InvariantBurst, "%d deferred %s with %d planned and a burst of %d", x.defers, x.what, x.planned, burst)
		}
	}
}

// checkRequeue bounds RequeueAfter by upstream's requeues: minReadySeconds
// (while a pod waits to become available) and the delay of a backoff
// holding a failed pod back, at most the longest delay among the
// DaemonSet's backoff entries before and after the plan (a second failed
// pod on a node waits for the backoff the first one's deletion raised).
func (c *checker) checkRequeue() {
	limit := time.Duration(c.ds.Spec.MinReadySeconds) * time.Second
	for _, b := range []backoff.State{c.in.Options.FailedPodBackoff, c.plan.FailedPodBackoff} {
		for _, e := range b.Entries() {
			if e.Key.UID == c.ds.UID {
				limit = max(limit, e.Delay)
			}
		}
	}
	if w := c.in.Options.Rollout.Waves; w != nil {
		limit = max(limit, w.Bake)
	}
	if r := c.plan.RequeueAfter; r < 0 || r > limit {
		c.add(InvariantRequeue, "RequeueAfter %v is outside [0, %v]", r, limit)
	}
}
