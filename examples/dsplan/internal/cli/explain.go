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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/progressive"
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
func reasons(v eligibility.Verdict) []string {
	switch v.Reason {
	case eligibility.IneligibleNilNode:
		return []string{"no node"}
	case eligibility.IneligibleNodeName:
		return []string{fmt.Sprintf("the template's spec.nodeName is %q", v.NodeName)}
	case eligibility.IneligibleNodeAffinity:
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
	case eligibility.IneligibleTaint, eligibility.IneligibleNoExecuteTaint:
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
