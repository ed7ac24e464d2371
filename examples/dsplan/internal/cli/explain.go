package cli

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// runExplain is "dsplan explain NODE".
func runExplain(args []string, stdin io.Reader, stdout, stderr io.Writer, opts Options) error {
	fs := newFlagSet("explain", stderr)
	c := common{opts: opts}
	c.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return &usageError{"want exactly one NODE: dsplan explain NODE [flags]"}
	}
	l, err := c.load(stdin)
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
	l.header(stdout)
	fmt.Fprintln(stdout)
	describeNode(stdout, node)
	for _, r := range computeAll(l, c.burst, daemon.RolloutPolicy{}) {
		fmt.Fprintln(stdout)
		explainOne(stdout, l, r, node)
	}
	return nil
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
// and what its plan does there.
func explainOne(w io.Writer, l *loaded, r result, node *corev1.Node) {
	if r.ds == nil {
		fmt.Fprintf(w, "%s: %v\n", r.name, r.err)
		return
	}
	v := daemon.NewEligibility(r.ds, false).Explain(node)
	fmt.Fprintf(w, "%s: should run: %s, may keep its pod: %s\n", r.name, yesNo(v.ShouldRun), yesNo(v.ShouldContinueRunning))
	for _, reason := range reasons(v) {
		fmt.Fprintf(w, "  why not: %s\n", reason)
	}
	var here []string
	for _, p := range l.snap.Pods {
		target := p.Spec.NodeName
		if target == "" {
			target = affinityNode(p) // not bound yet
		}
		if p.Namespace != r.ds.Namespace || target != node.Name || !ownedBy(p, r.ds.UID) {
			continue
		}
		here = append(here, fmt.Sprintf("%s (hash %s, %s%s)", p.Name, orDash(p.Labels["controller-revision-hash"]), p.Status.Phase, readiness(p)))
	}
	fmt.Fprintf(w, "  its pods here: %s\n", orNone(here))
	if in, err := l.snap.For(r.ds.Namespace, r.ds.Name); err == nil {
		if u, err := whatif.Unavailable(in.DaemonSet, in.Nodes, in.Pods, daemon.Options{Now: l.now, Revisions: in.Revisions}); err == nil {
			for _, un := range u.Nodes {
				if un.NodeName != node.Name {
					continue
				}
				msg := string(un.Cause)
				if !un.AvailableAt.IsZero() {
					msg += ", available at " + un.AvailableAt.UTC().Format(time.RFC3339) + " if it stays ready"
				}
				fmt.Fprintf(w, "  counted unavailable: %s\n", msg)
			}
		}
	}
	if r.err != nil {
		fmt.Fprintf(w, "  plan: error: %v\n", r.err)
		return
	}
	var acts []string
	for _, c := range r.plan.Creates {
		if c.NodeName == node.Name {
			acts = append(acts, "create a pod ("+string(c.Reason)+")")
		}
	}
	for _, d := range r.plan.Deletes {
		if d.NodeName == node.Name {
			acts = append(acts, "delete "+d.Pod.Name+" ("+string(d.Reason)+")")
		}
	}
	fmt.Fprintf(w, "  next sync here: %s\n", orNothing(acts))
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

func readiness(p *corev1.Pod) string {
	if p.DeletionTimestamp != nil {
		return ", terminating"
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return ", ready"
		}
	}
	return ", not ready"
}

// reasons says in words why v is not a plain yes.
func reasons(v daemon.Verdict) []string {
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
