package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

func explainFlags(inv *invocation, fs *pflag.FlagSet) {
	fs.StringVarP(&inv.explainFormat, "output", "o", "text", "output `FORMAT`: text or json (see examples/dsplan/JSON.md)")
}

// runExplain is "dsplan explain NODE".
func runExplain(inv *invocation, pos []string) error {
	if len(pos) != 1 {
		return &usageError{fmt.Sprintf("want exactly one NODE: %s explain NODE [flags]", inv.opts.program())}
	}
	format := inv.explainFormat
	if format != "text" && format != "json" {
		return &usageError{fmt.Sprintf("-o %q: want text or json", format)}
	}
	l, err := inv.common.load(inv.stdin)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(l.snap.Nodes, func(n *corev1.Node) bool { return n.Name == pos[0] })
	if i < 0 {
		names := make([]string, 0, len(l.snap.Nodes))
		for _, n := range l.snap.Nodes {
			names = append(names, n.Name)
		}
		if len(names) > 20 {
			names = append(names[:20], fmt.Sprintf("and %d more", len(names)-20))
		}
		return &inputError{fmt.Errorf("node %q not found; the input holds %s", pos[0], strings.Join(names, ", "))}
	}
	node := l.snap.Nodes[i]
	// No rollout flags: each DaemonSet's rollout annotations alone, as the
	// controller reads them, so that "next sync here" is what it will do.
	results, err := computeAll(l, inv.common.burst, &policyFlags{})
	if err != nil {
		return err
	}
	if format == "json" {
		out := explainJSON{APIVersion: jsonAPIVersion, Kind: "Explanation", Node: describeNodeJSON(node), Now: l.now, DaemonSets: []explainDSJSON{}}
		for _, r := range results {
			out.DaemonSets = append(out.DaemonSets, explainOneJSON(l, r, node, inv.opts.program()))
		}
		if err := writeData(inv.stdout, "json", out); err != nil {
			return err
		}
		if err := skewFailures(results); err != nil {
			return err
		}
		return unresolvedError(out.DaemonSets)
	}
	stdout := inv.stdout
	l.header(stdout)
	fmt.Fprintln(stdout)
	describeNode(stdout, node)
	var all []explainDSJSON
	for _, r := range results {
		fmt.Fprintln(stdout)
		all = append(all, explainOne(stdout, l, r, node, inv.opts.program()))
	}
	// A plan's other errors are printed and leave the exit code alone; a
	// template skew makes it 8, as plan's and simulate's; an unresolved
	// reference makes it 1.
	if err := skewFailures(results); err != nil {
		return err
	}
	return unresolvedError(all)
}

// unresolvedError is the input error (exit 1) of the DaemonSets whose
// annotations name nothing of the cluster (progressive.HoldUnresolved):
// their rollout is held, as simulate and rollout status say; nil when
// there are none.
func unresolvedError(explained []explainDSJSON) error {
	var held []string
	for _, e := range explained {
		if st := e.Standing; st != nil && st.Gate != nil && st.Gate.Cause == string(progressive.HoldUnresolved) {
			held = append(held, fmt.Sprintf("daemonset %s: rollout held, no old pod is replaced: %s", e.DaemonSet, st.Gate.Message))
		}
	}
	if len(held) == 0 {
		return nil
	}
	return &inputError{errors.New(strings.Join(held, "; "))}
}

// describeNode prints what placement reads of a node.
func describeNode(w io.Writer, n *corev1.Node) {
	ready := "no Ready condition"
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = "Ready " + string(c.Status)
		}
	}
	fmt.Fprintf(w, "node %s: %s", n.Name, ready)
	if n.Spec.Unschedulable {
		fmt.Fprint(w, ", cordoned")
	}
	fmt.Fprintln(w)
	keys := make([]string, 0, len(n.Labels))
	for k := range n.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		keys[i] = k + "=" + n.Labels[k]
	}
	fmt.Fprintf(w, "  labels: %s\n", orNone(keys))
	taints := make([]string, 0, len(n.Spec.Taints))
	for _, t := range n.Spec.Taints {
		taints = append(taints, t.ToString())
	}
	fmt.Fprintf(w, "  taints: %s\n", orNone(taints))
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

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
	// Standing is where the node stands in the DaemonSet's rollout (the
	// plan's read-out) and the rollout's judgement (progressive.Judge);
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
	v := daemon.NewEligibility(r.ds, false).Explain(node)
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
	if r.plan.ReadOut != nil {
		u = whatif.UnavailableIn(r.rollout.ds, r.plan.ReadOut)
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
	if j, err := progressive.Judge(r.rollout.ds, &r.plan); err == nil && r.plan.ReadOut != nil {
		st := &standingJSON{Complete: j.Complete, Judgement: j.Reason.String()}
		for _, n := range r.plan.ReadOut.Nodes {
			if n.Name == node.Name {
				st.Held, st.Wave, st.Updated = string(n.Held), n.Wave, n.HasUpdated()
			}
		}
		if st.Gate, err = explainGate(r, j, l.now, node.Name, program); err != nil {
			st.GateError = err.Error()
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

// explainOne prints the verdict of one DaemonSet on node, its pods there
// and what its plan does there, and returns it (explainOneJSON).
func explainOne(w io.Writer, l *loaded, r result, node *corev1.Node, program string) explainDSJSON {
	e := explainOneJSON(l, r, node, program)
	if r.ds == nil {
		fmt.Fprintf(w, "%s: %v\n", r.name, r.err)
		return e
	}
	if h := r.rollout.headline(); h != "" {
		fmt.Fprintf(w, "%s: %s\n", r.name, h)
	}
	fmt.Fprintf(w, "%s: should run: %s, may keep its pod: %s\n", r.name, yesNo(e.ShouldRun), yesNo(e.MayKeepPod))
	if d := r.rollout.describe(); d != "" {
		fmt.Fprintf(w, "  rollout: %s\n", d)
	}
	for _, reason := range e.WhyNot {
		fmt.Fprintf(w, "  why not: %s\n", reason)
	}
	here := make([]string, 0, len(e.Pods))
	for _, p := range e.Pods {
		here = append(here, p.String())
	}
	fmt.Fprintf(w, "  its pods here: %s\n", orNone(here))
	if u := e.Unavailable; u != nil {
		msg := u.Cause
		if u.AvailableAt != nil {
			msg += ", available at " + u.AvailableAt.Format(time.RFC3339) + " if it stays ready"
		}
		fmt.Fprintf(w, "  counted unavailable: %s\n", msg)
	}
	if r.skewed() {
		fmt.Fprintf(w, "  plan: warning: %s; no plan\n", r.plan.TemplateSkew)
		return e
	}
	if r.err != nil {
		fmt.Fprintf(w, "  plan: error: %s\n", r.errText())
		return e
	}
	fmt.Fprintf(w, "  next sync here: %s\n", orNothing(e.Next))
	if s := e.Standing; s != nil {
		var here []string
		switch {
		case s.Held != "":
			here = append(here, heldWords[s.Held])
		case e.ShouldRun && s.Gate == nil:
			here = append(here, "not held")
		}
		if s.Wave != "" {
			here = append(here, "wave "+s.Wave)
		}
		line := "  its rollout: " + s.Judgement
		if len(here) > 0 {
			line += "; this node: " + strings.Join(here, ", ")
		}
		fmt.Fprintln(w, line)
		switch {
		case s.Gate != nil:
			fmt.Fprintf(w, "  held by a gate: %s\n", s.Gate.Message)
		case s.GateError != "":
			fmt.Fprintf(w, "  gates: error: %s\n", s.GateError)
		}
	}
	return e
}

func orNothing(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func ownedBy(p *corev1.Pod, uid types.UID) bool {
	for _, o := range p.OwnerReferences {
		if o.Controller != nil && *o.Controller && o.UID == uid {
			return true
		}
	}
	return false
}

// reasons says in words why v is not a plain yes.
func reasons(v daemon.NodeEligibility) []string {
	switch v.Reason {
	case daemon.IneligibleNilNode:
		return []string{"no node"}
	case daemon.IneligibleNodeName:
		return []string{fmt.Sprintf("the template's spec.nodeName is %q", v.NodeName)}
	case daemon.IneligibleNodeAffinity:
		m := v.Affinity
		switch {
		case m.NodeSelector:
			return []string{fmt.Sprintf("nodeSelector key %q: the node lacks it or has another value", m.NodeSelectorKey)}
		case m.NoTerms:
			return []string{"required node affinity has no nodeSelectorTerms: it matches no node"}
		}
		var out []string
		for _, t := range m.Terms {
			term := "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[" + strconv.Itoa(t.Term) + "]"
			switch {
			case t.Reason != affinity.TermUnmatched:
				out = append(out, term+": "+strings.ToLower(string(t.Reason)))
			case t.Requirement < 0:
				out = append(out, term+": does not match")
			case t.Field:
				out = append(out, fmt.Sprintf("%s.matchFields[%d] (%q) does not match", term, t.Requirement, t.Key))
			default:
				out = append(out, fmt.Sprintf("%s.matchExpressions[%d] (%q) does not match", term, t.Requirement, t.Key))
			}
		}
		return out
	case daemon.IneligibleTaint, daemon.IneligibleNoExecuteTaint:
		var out []string
		for _, t := range v.UntoleratedTaints {
			s := "taint " + t.ToString() + " is not tolerated"
			if t.Effect == corev1.TaintEffectNoExecute {
				s += " (NoExecute: a running pod must go too)"
			}
			out = append(out, s)
		}
		return out
	}
	return nil
}
