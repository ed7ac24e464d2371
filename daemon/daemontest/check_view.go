package daemontest

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// CheckGivenPlan judges plan and err, which daemon.Compute returned for in,
// against in alone: every invariant but NoPanic, InputUnchanged,
// Repeatable and PermutationInvariant, which need Compute itself (see
// CheckPlan). Use it to check a plan computed elsewhere, or a plan a test
// has altered. Which invariants apply depends on the outcome:
//   - an error of daemon.StageInput or daemon.StagePolicy (input Compute
//     cannot plan from): only that the plan is zero;
//   - Skip set: only that the plan asks for nothing (and its order);
//   - otherwise every per-plan invariant; the status ones and the
//     completeness of claims when the revision history succeeded (err is
//     nil or Plan.Hash is set: upstream's hash may be "" when it takes over
//     an unlabelled revision of the same name and data), the rolling ones
//     when err is nil.
//
// It modifies nothing and returns nil when every invariant holds; the
// violations come in a fixed order. It costs O(nodes + pods) map work plus
// sorting checks.
func CheckGivenPlan(in simulate.Input, plan daemon.Plan, err error) []Violation {
	c := &checker{in: in, plan: plan, err: err}
	if stage := stageOf(err); stage == daemon.StageInput || stage == daemon.StagePolicy {
		if !reflect.DeepEqual(plan, daemon.Plan{}) {
			c.add(InvariantInvalidInput, "the plan that comes with %q is not the zero plan", err)
		}
		if !errors.Is(err, daemon.ErrInvalidInput) {
			c.add(InvariantInvalidInput, "the error %q of stage %q does not match daemon.ErrInvalidInput", err, stage)
		}
		return c.out
	}
	if in.DaemonSet == nil {
		c.add(InvariantInvalidInput, "a nil DaemonSet gave error %v, which is not of daemon.StageInput", err)
		return c.out
	}
	c.checkSorted()
	if plan.Skip != daemon.SkipNone {
		c.checkSkip()
		return c.out
	}
	sel, selErr := metav1.LabelSelectorAsSelector(in.DaemonSet.Spec.Selector)
	if selErr != nil {
		if err == nil {
			c.add(InvariantClaims, "the selector does not parse (%v), yet Compute returned no error", selErr)
		}
		sel = labels.Nothing()
	}
	c.buildView(sel)
	c.checkClaims(sel)
	c.checkHistory(sel)
	c.checkBackoff()
	c.checkCreates()
	c.checkDeletes()
	c.checkBurst()
	c.checkRequeue()
	if c.historyDone() {
		c.checkStatus()
	}
	if err == nil {
		c.checkRolling()
		if c.plan.Rolling == nil {
			c.checkPolicy() // PausedNoStep
		}
	}
	return c.out
}

// checker holds what CheckGivenPlan derives from the input, independently
// of Compute's own bookkeeping.
type checker struct {
	in   simulate.Input
	plan daemon.Plan
	err  error
	out  []Violation

	ds    *appsv1.DaemonSet
	elig  *eligibility.Check
	gen   *int64
	input map[*corev1.Pod]bool // every non-nil input pod
	// adopted and released are the plan's claim decisions.
	adopted, released map[*corev1.Pod]bool
	// nodes maps a node name to its view: every input node, and every
	// missing node the DaemonSet's pods target.
	nodes map[string]*nodeView
	// names are the keys of nodes, sorted.
	names []string
	// desired is the number of input nodes where a new pod should run.
	desired int
}

// nodeView is one node as the checker sees it.
type nodeView struct {
	// node is nil for a node that pods target but that is not in the input.
	node                      *corev1.Node
	shouldRun, shouldContinue bool
	// pods are the DaemonSet's pods targeting the node, terminal pods that
	// are being deleted excluded (upstream ignores them entirely).
	pods []*corev1.Pod
}

// historyDone reports whether Compute got past the revision history, after
// which it claims pods and computes the status.
func (c *checker) historyDone() bool { return c.err == nil || c.plan.Hash != "" }

func (c *checker) add(inv Invariant, format string, args ...any) {
	c.out = append(c.out, Violation{inv, fmt.Sprintf(format, args...)})
}

// ownsPod reports whether pod's controller reference (its first owner
// reference with controller set) names ds by kind, name and UID.
func ownsPod(ds *appsv1.DaemonSet, pod *corev1.Pod) bool {
	ref := metav1.GetControllerOfNoCopy(pod)
	return ref != nil && ref.Kind == "DaemonSet" && ref.Name == ds.Name && ref.UID == ds.UID
}

func isTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}

// buildView groups the DaemonSet's pods by target node.
func (c *checker) buildView(sel labels.Selector) {
	c.ds = c.in.DaemonSet
	c.elig = eligibility.New(c.ds, c.in.Options.EnableTaintTolerationComparisonOperators)
	c.gen, _ = rollout.GetTemplateGeneration(c.ds)
	c.adopted = podSet(c.plan.Adopt)
	c.released = podSet(c.plan.Release)
	c.input = make(map[*corev1.Pod]bool, len(c.in.Pods))
	c.nodes = make(map[string]*nodeView, len(c.in.Nodes))
	for _, n := range c.in.Nodes {
		if n == nil {
			continue
		}
		if _, dup := c.nodes[n.Name]; dup {
			continue // Compute refuses duplicates; keep the first
		}
		run, keep := c.elig.ShouldRun(n)
		c.nodes[n.Name] = &nodeView{node: n, shouldRun: run, shouldContinue: keep}
		if run {
			c.desired++
		}
	}
	for _, pod := range c.in.Pods {
		if pod == nil {
			continue
		}
		c.input[pod] = true
		if !c.isDaemonPod(pod, sel) || (isTerminal(pod) && pod.DeletionTimestamp != nil) {
			continue
		}
		target, err := affinity.GetTargetNodeName(pod)
		if err != nil {
			continue // unplaced
		}
		nv := c.nodes[target]
		if nv == nil {
			nv = &nodeView{}
			c.nodes[target] = nv
		}
		nv.pods = append(nv.pods, pod)
	}
	c.names = slices.Sorted(maps.Keys(c.nodes))
}

// isDaemonPod reports whether pod counts as the DaemonSet's after this
// plan's claims: controlled and matched, or adopted by the plan.
func (c *checker) isDaemonPod(pod *corev1.Pod, sel labels.Selector) bool {
	if pod.Namespace != c.ds.Namespace {
		return false
	}
	if c.adopted[pod] {
		return true
	}
	return ownsPod(c.ds, pod) && sel.Matches(labels.Set(pod.Labels))
}

func podSet(pods []*corev1.Pod) map[*corev1.Pod]bool {
	m := make(map[*corev1.Pod]bool, len(pods))
	for _, p := range pods {
		m[p] = true
	}
	return m
}

// live returns the pods without a deletionTimestamp.
func live(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

func (c *checker) updated(pod *corev1.Pod) bool {
	return rollout.IsPodUpdated(pod, c.plan.Hash, c.gen)
}

func (c *checker) available(pod *corev1.Pod) bool {
	return rollout.IsPodAvailable(pod, c.ds.Spec.MinReadySeconds, c.in.Options.Now)
}

func podKey(p *corev1.Pod) string {
	if p == nil {
		return "<nil>"
	}
	return p.Namespace + "/" + p.Name
}

// stageOf is the stage of the *daemon.Error err holds, "" when none.
func stageOf(err error) daemon.Stage {
	var de *daemon.Error
	if errors.As(err, &de) {
		return de.Stage
	}
	return ""
}
