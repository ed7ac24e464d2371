package cli

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// explainJSON is the document "explain -o json" prints: the node and, for
// each DaemonSet (sorted by namespace/name), its verdict there.
type explainJSON struct {
	// APIVersion and Kind name the document and its JSON Schema
	// (examples/dsplan/schema): dsplan.daemonplan.io/v1alpha1 and Explanation.
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Node is the node, as placement reads it.
	Node nodeJSON `json:"node"`
	// Now is the clock the plans were computed at.
	Now time.Time `json:"now"`
	// DaemonSets are the verdicts, one per DaemonSet.
	DaemonSets []explainDSJSON `json:"daemonSets"`
}

// nodeJSON is what placement reads of a node.
type nodeJSON struct {
	// Name is the node's name.
	Name string `json:"name"`
	// Ready is the status of its Ready condition ("True", "False",
	// "Unknown"; "" without one).
	Ready string `json:"ready"`
	// Cordoned is spec.unschedulable.
	Cordoned bool `json:"cordoned"`
	// Labels are the node's labels.
	Labels map[string]string `json:"labels"`
	// Taints are "key=value:Effect".
	Taints []string `json:"taints"`
}

// explainDSJSON is one DaemonSet's verdict on the node.
type explainDSJSON struct {
	// DaemonSet is "namespace/name".
	DaemonSet string `json:"daemonSet"`
	// ShouldRun is whether the DaemonSet should run a pod on the node;
	// MayKeepPod whether a pod already there may stay (only an untolerated
	// NoSchedule taint); WhyNot the reasons it may not, in words.
	ShouldRun  bool     `json:"shouldRun"`
	MayKeepPod bool     `json:"mayKeepPod"`
	WhyNot     []string `json:"whyNot"`
	// Pods are its pods on the node (bound there, or bound to it by node
	// affinity and not yet scheduled), by name.
	Pods []podJSON `json:"pods"`
	// Unavailable, when the node counts as unavailable for the rolling
	// update, says why (whatif.Unavailable's cause) and, for a pod that is
	// ready but not yet for minReadySeconds, when it becomes available.
	Unavailable *unavailableJSON `json:"unavailable,omitempty"`
	// Rollout, when the DaemonSet has rollout.daemonplan.io/ annotations,
	// is what they say and how the DaemonSet is planned (as in plan -o
	// json); Next follows it.
	Rollout *rolloutJSON `json:"rollout,omitempty"`
	// Next are the next sync's actions on the node, in words.
	Next []string `json:"next"`
	// Standing is where the node stands in the DaemonSet's rollout
	// (daemon.Plan.Standing) and the rollout's judgement (progressive.Judge);
	// absent when the plan failed.
	Standing *standingJSON `json:"standing,omitempty"`
	// Error is Compute's error, when it failed: its stage and cause without
	// the DaemonSet.
	Error string `json:"error,omitempty"`
}

// standingJSON is where a node stands in a rollout.
type standingJSON struct {
	// Held is why the rollout policy keeps the node's pods as they are:
	// Scope (outside it), Partition (kept by it), Wave (its wave is not
	// open yet) or Paused; "" when it does not.
	Held string `json:"held,omitempty"`
	// Wave is the node's wave, its group of the order label
	// ("label=value", "!label" without it); "" without an order label.
	Wave string `json:"wave,omitempty"`
	// Updated is whether a pod of the node runs the current revision.
	Updated bool `json:"updated"`
	// Complete is whether the DaemonSet's rollout is complete (at its
	// partition, under one).
	Complete bool `json:"complete"`
	// Judgement says why the rollout is complete, or why not, in the
	// policy's terms (progressive.Reason).
	Judgement string `json:"judgement"`
	// Gate is the gate that holds the rollout beyond its plan (a health
	// gate, an approval point, the maintenance windows), as it concerns
	// the node; absent when none does.
	Gate *explainGateJSON `json:"gate,omitempty"`
	// GateError says why the gates could not be read (a window's unknown
	// time zone).
	GateError string `json:"gateError,omitempty"`
}

// heldWords says a hold in words.
var heldWords = map[string]string{
	string(daemon.HeldScope):     "outside the scope",
	string(daemon.HeldPartition): "kept by the partition",
	string(daemon.HeldWave):      "its wave is not open yet",
	string(daemon.HeldPaused):    "the rollout is paused",
}

// podJSON is a pod as explain shows it.
type podJSON struct {
	// Name is the pod's name.
	Name string `json:"name"`
	// Hash is its controller-revision-hash label.
	Hash string `json:"hash"`
	// Phase is status.phase; Ready its Ready condition; Terminating
	// whether it has a deletionTimestamp.
	Phase       string `json:"phase"`
	Ready       bool   `json:"ready"`
	Terminating bool   `json:"terminating"`
	// Restarts is the highest restart count of its containers.
	Restarts int32 `json:"restarts"`
	// Failing says why the pod is failing rather than starting (see
	// simulate.FailingReason: CrashLoopBackOff, restarts, image pulls,
	// not ready for long); "" when it is not.
	Failing string `json:"failing,omitempty"`
}

// unavailableJSON is why a node counts as unavailable.
type unavailableJSON struct {
	// Cause is whatif.Unavailable's: NoPod, NotReady, NodeNotReady,
	// MinReadySeconds, Terminating, ...
	Cause string `json:"cause"`
	// AvailableAt is when a pod ready but not yet for minReadySeconds
	// becomes available.
	AvailableAt *time.Time `json:"availableAt,omitempty"`
}

func describeNodeJSON(n *corev1.Node) nodeJSON {
	out := nodeJSON{Name: n.Name, Cordoned: n.Spec.Unschedulable, Labels: n.Labels, Taints: []string{}}
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Ready = string(c.Status)
		}
	}
	for _, t := range n.Spec.Taints {
		out.Taints = append(out.Taints, t.ToString())
	}
	return out
}

// explainOneJSON is the verdict of one DaemonSet on node, its pods there
// and what its plan does there; program names the command in the gate's
// words.
func explainOneJSON(l *loaded, r result, node *corev1.Node, program string) explainDSJSON {
	out := explainDSJSON{DaemonSet: r.name, WhyNot: []string{}, Pods: []podJSON{}, Next: []string{}}
	if r.ds == nil {
		out.Error = r.err.Error()
		return out
	}
	out.Rollout = r.rollout.toJSON()
	v := eligibility.New(r.ds, false).Explain(node)
	out.ShouldRun, out.MayKeepPod = v.ShouldRun, v.ShouldContinueRunning
	out.WhyNot = append(out.WhyNot, reasons(v)...)
	for _, p := range l.snap.Pods {
		target := p.Spec.NodeName
		if target == "" {
			target = affinityNode(p) // not bound yet
		}
		if p.Namespace != r.ds.Namespace || target != node.Name || !ownedBy(p, r.ds.UID) {
			continue
		}
		out.Pods = append(out.Pods, podOf(p, l.now, nodeIsReady(node)))
	}
	var u whatif.Unavailability
	if r.plan.Standing != nil {
		u = whatif.UnavailableIn(r.rollout.ds, r.plan.Standing)
	} else if in, err := l.snap.For(r.ds.Namespace, r.ds.Name); err == nil {
		// The plan failed before judging the pods: judge them alone.
		u, _ = whatif.Unavailable(in.DaemonSet, in.Nodes, in.Pods, daemon.Options{Now: l.now})
	}
	for _, un := range u.Nodes {
		if un.NodeName != node.Name {
			continue
		}
		out.Unavailable = &unavailableJSON{Cause: string(un.Cause)}
		if !un.AvailableAt.IsZero() {
			at := un.AvailableAt.UTC()
			out.Unavailable.AvailableAt = &at
		}
	}
	if r.err != nil {
		out.Error = r.errText()
		return out
	}
	if a, err := assessOf(r, l.now); (err == nil || progressive.StepOf(err) == progressive.AssessGates) && r.plan.Standing != nil {
		j := a.Judgement
		st := &standingJSON{Complete: j.Complete, Judgement: j.Reason.String()}
		for _, n := range r.plan.Standing.Nodes {
			if n.Name == node.Name {
				st.Held, st.Wave, st.Updated = string(n.Held), n.Wave, n.HasUpdated()
			}
		}
		if err != nil {
			st.GateError = err.Error()
		} else {
			st.Gate = gateOn(a.Hold, node.Name, program, r.name)
		}
		out.Standing = st
	}
	for _, c := range r.plan.Creates {
		if c.NodeName == node.Name {
			out.Next = append(out.Next, "create a pod ("+string(c.Reason)+")")
		}
	}
	for _, d := range r.plan.Deletes {
		if d.NodeName == node.Name {
			next := "delete " + d.Pod.Name + " (" + string(d.Reason) + ")"
			if out.Standing != nil && out.Standing.Gate != nil && heldByGate(d) {
				next += ", not while the gate holds the rollout"
			}
			out.Next = append(out.Next, next)
		}
	}
	return out
}

// podOf describes a pod on a node that is Ready or not: a pod that is not
// ready on a NotReady node is not failing, its node is.
func podOf(p *corev1.Pod, now time.Time, nodeReady bool) podJSON {
	out := podJSON{Name: p.Name, Hash: p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], Phase: string(p.Status.Phase),
		Terminating: p.DeletionTimestamp != nil}
	if why := simulate.FailingReason(p, now); why != "" && (nodeReady || !strings.HasPrefix(why, "not ready for")) {
		out.Failing = why
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			out.Ready = c.Status == corev1.ConditionTrue
		}
	}
	for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range list {
			out.Restarts = max(out.Restarts, cs.RestartCount)
		}
	}
	return out
}

// String is the pod as the text shows it: name (hash, phase, readiness,
// failing or restarts).
func (p podJSON) String() string {
	parts := []string{"hash " + orDash(p.Hash), p.Phase}
	switch {
	case p.Terminating:
		parts = append(parts, "terminating")
	case p.Ready:
		parts = append(parts, "ready")
	default:
		parts = append(parts, "not ready")
	}
	switch {
	case p.Failing != "":
		parts = append(parts, p.Failing)
	case p.Restarts > 0:
		parts = append(parts, fmt.Sprintf("%d restarts", p.Restarts))
	}
	return fmt.Sprintf("%s (%s)", p.Name, strings.Join(parts, ", "))
}
