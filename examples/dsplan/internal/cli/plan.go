package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/daemon"
)

// planOpts are the flags of "dsplan plan" besides the common and policy
// ones.
type planOpts struct {
	format string
	// nodes are --node (repeatable) and selector -l: they filter the text
	// plan's node table and actions.
	nodes    fileList
	selector string
}

func planFlags(inv *invocation, fs *pflag.FlagSet) {
	fs.StringVarP(&inv.plan.format, "output", "o", "text", "output `FORMAT`: text, wide (text with every node), json or yaml (json and yaml: see examples/dsplan/JSON.md)")
	fs.Var(&inv.plan.nodes, "node", "show only this `NODE` in the text plan's node table and actions (repeatable)")
	fs.StringVarP(&inv.plan.selector, "selector", "l", "", "show only the nodes matching this label `SELECTOR` (kubectl -l syntax) in the text plan")
	inv.policy.register(fs, false)
}

// runPlan is "dsplan plan".
func runPlan(inv *invocation, pos []string) error {
	if err := noArgs(pos); err != nil {
		return err
	}
	if err := inv.policy.check(); err != nil {
		return err
	}
	format := inv.plan.format
	if format != "text" && format != "wide" && format != "json" && format != "yaml" {
		return &usageError{fmt.Sprintf("-o %q: want text, wide, json or yaml", format)}
	}
	filter, err := inv.plan.nodeFilter()
	if err != nil {
		return err
	}
	l, err := inv.common.load(inv.stdin)
	if err != nil {
		return err
	}
	results, err := computeAll(l, inv.common.burst, &inv.policy)
	if err != nil {
		return err
	}
	stdout := inv.stdout
	switch format {
	case "json", "yaml":
		out := make([]planJSON, len(results))
		for i, r := range results {
			out[i] = toJSON(r, l)
		}
		if err := writeData(stdout, format, out); err != nil {
			return err
		}
	default:
		l.header(stdout)
		wide := format == "wide" || filter != nil
		if wide && filter == nil && len(l.snap.Nodes) > 200 {
			fmt.Fprintf(stdout, "note: %d nodes: --node NAME or -l SELECTOR shows only some of them\n", len(l.snap.Nodes))
		}
		fmt.Fprintln(stdout)
		if err := printSummary(stdout, results, wide); err != nil {
			return err
		}
		for _, r := range results {
			fmt.Fprintln(stdout)
			if err := printPlan(stdout, l, r, filter, wide); err != nil {
				return err
			}
		}
	}
	return failures(results)
}

// writeData writes v as indented JSON or as YAML.
func writeData(w io.Writer, format string, v any) error {
	var data []byte
	var err error
	if format == "json" {
		data, err = json.MarshalIndent(v, "", "  ")
		data = append(data, '\n')
	} else {
		data, err = yaml.Marshal(v)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// nodeFilter is the --node and -l filter; nil when neither is set.
func (p *planOpts) nodeFilter() (func(*corev1.Node) bool, error) {
	if len(p.nodes) == 0 && p.selector == "" {
		return nil, nil
	}
	sel := labels.Everything()
	if p.selector != "" {
		var err error
		if sel, err = labels.Parse(p.selector); err != nil {
			return nil, &usageError{fmt.Sprintf("-l %q: %v", p.selector, err)}
		}
	}
	names := slices.Clone([]string(p.nodes))
	return func(n *corev1.Node) bool {
		return (len(names) == 0 || slices.Contains(names, n.Name)) && sel.Matches(labels.Set(n.Labels))
	}, nil
}

// result is the plan of one DaemonSet.
type result struct {
	name string
	ds   *appsv1.DaemonSet
	// rollout is how it was planned: its rollout annotations and the
	// flags.
	rollout dsRollout
	plan    daemon.Plan
	err     error
	notes   []string
}

// errText is r.err's text as a line about r's DaemonSet prints it: a
// plan's error without the DaemonSet, which the line names already
// (daemon.Error.Message).
func (r result) errText() string {
	var de *daemon.Error
	if errors.As(r.err, &de) {
		return de.Message()
	}
	return r.err.Error()
}

// computeAll plans every DaemonSet of l: with pf, under the policy its
// rollout annotations and the flags give (see policyFlags.rolloutOf); with
// a nil pf, as upstream does. Invalid annotations are that DaemonSet's
// error; a policy the flags make invalid is returned as a usage error.
func computeAll(l *loaded, burst int, pf *policyFlags) ([]result, error) {
	out := make([]result, 0, len(l.names))
	planner := daemon.NewPlanner()
	for _, name := range l.names {
		ns, n, _ := strings.Cut(name, "/")
		in, err := l.snap.For(ns, n)
		if err != nil { // the names come from the snapshot
			out = append(out, result{name: name, err: err})
			continue
		}
		r := result{name: name, ds: in.DaemonSet, rollout: dsRollout{ds: in.DaemonSet}}
		if pf != nil {
			r.rollout, err = pf.rolloutOf(in.DaemonSet, in.Nodes)
			r.notes = append(r.notes, r.rollout.warnings...)
			var ue *usageError
			switch {
			case errors.As(err, &ue):
				return nil, err
			case err != nil:
				r.err = err
				out = append(out, r)
				continue
			}
		}
		if len(in.Revisions) == 0 {
			r.notes = append(r.notes, fmt.Sprintf("no ControllerRevision of namespace %s in the input: planned as a first sync (add controllerrevisions to the kubectl get)", ns))
		}
		r.plan, r.err = planner.Compute(r.rollout.ds, in.Nodes, in.Pods, daemon.Options{
			Now:            l.now,
			Revisions:      in.Revisions,
			BurstReplicas:  burst,
			Rollout:        r.rollout.policy,
			ReportStanding: true,
		})
		out = append(out, r)
	}
	return out, nil
}

// failures returns an input error naming the DaemonSets whose Compute
// failed, or, when every failure is a template skew, skewFailures' error.
func failures(results []result) error {
	var bad []string
	for _, r := range results {
		if r.err != nil && !r.skewed() {
			bad = append(bad, r.name)
		}
	}
	if len(bad) == 0 {
		return skewFailures(results)
	}
	return &inputError{fmt.Errorf("no plan for %s (see above)", strings.Join(bad, ", "))}
}

// printPlan writes one plan for people: what it changes, and with wide
// the placement table of every node; filter, when set, keeps the node
// table and the actions to the nodes it accepts.
func printPlan(w io.Writer, l *loaded, r result, filter func(*corev1.Node) bool, wide bool) error {
	if h := r.rollout.headline(); h != "" {
		fmt.Fprintf(w, "%s: %s\n", r.name, h)
	}
	for _, n := range r.notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if d := r.rollout.describe(); d != "" {
		fmt.Fprintf(w, "%s: %s\n", r.name, d)
	}
	if r.skewed() {
		fmt.Fprintln(w, skewWarning(r.name, r.plan.TemplateSkew, "plan"))
		return nil
	}
	if r.err != nil {
		fmt.Fprintf(w, "DaemonSet %s: error: %s\n", r.name, r.errText())
		if r.ds == nil || r.plan.Hash == "" && !r.plan.StatusChanged {
			return nil
		}
		fmt.Fprintln(w, "what the controller still does in this sync:")
	}
	plan, nodes := r.plan, l.snap.Nodes
	if filter != nil {
		plan, nodes = filterPlan(plan, nodes, filter)
		fmt.Fprintf(w, "showing %d of %d nodes (--node, -l): %d of %d creates, %d of %d deletes\n", len(nodes), len(l.snap.Nodes),
			len(plan.Creates), len(r.plan.Creates), len(plan.Deletes), len(r.plan.Deletes))
	}
	if !wide {
		nodes = nil
	}
	if err := plan.Format(w, daemon.FormatOptions{DaemonSet: r.rollout.ds, Nodes: nodes, Now: l.now}); err != nil {
		return err
	}
	if s := r.plan.Rolling; s != nil {
		fmt.Fprintf(w, "budget: unavailable %d/%d, surge %d/%d\n", s.NumUnavailable, s.MaxUnavailable, s.NumSurge, s.MaxSurge)
	}
	if r.plan.StatusChanged {
		fmt.Fprintln(w, "status diff (stored -> planned):")
		for _, d := range statusDiff(r.ds.Status, r.plan.Status) {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
	return nil
}

// filterPlan keeps the nodes filter accepts, and the creates and deletes
// on them.
func filterPlan(p daemon.Plan, nodes []*corev1.Node, filter func(*corev1.Node) bool) (daemon.Plan, []*corev1.Node) {
	keep := map[string]bool{}
	var kept []*corev1.Node
	for _, n := range nodes {
		if n != nil && filter(n) {
			keep[n.Name] = true
			kept = append(kept, n)
		}
	}
	p.Creates = slices.DeleteFunc(slices.Clone(p.Creates), func(c daemon.Create) bool { return !keep[c.NodeName] })
	p.Deletes = slices.DeleteFunc(slices.Clone(p.Deletes), func(d daemon.Delete) bool { return !keep[d.NodeName] })
	return p, kept
}

// statusDiff lists the status fields the plan changes.
func statusDiff(old, cur appsv1.DaemonSetStatus) []string {
	var out []string
	field := func(name string, a, b int64) {
		if a != b {
			out = append(out, fmt.Sprintf("%s: %d -> %d", name, a, b))
		}
	}
	field("observedGeneration", old.ObservedGeneration, cur.ObservedGeneration)
	field("desiredNumberScheduled", int64(old.DesiredNumberScheduled), int64(cur.DesiredNumberScheduled))
	field("currentNumberScheduled", int64(old.CurrentNumberScheduled), int64(cur.CurrentNumberScheduled))
	field("numberMisscheduled", int64(old.NumberMisscheduled), int64(cur.NumberMisscheduled))
	field("numberReady", int64(old.NumberReady), int64(cur.NumberReady))
	field("numberAvailable", int64(old.NumberAvailable), int64(cur.NumberAvailable))
	field("numberUnavailable", int64(old.NumberUnavailable), int64(cur.NumberUnavailable))
	field("updatedNumberScheduled", int64(old.UpdatedNumberScheduled), int64(cur.UpdatedNumberScheduled))
	oc, cc := int64(-1), int64(-1)
	if old.CollisionCount != nil {
		oc = int64(*old.CollisionCount)
	}
	if cur.CollisionCount != nil {
		cc = int64(*cur.CollisionCount)
	}
	if oc != cc {
		out = append(out, fmt.Sprintf("collisionCount: %s -> %s", optional(old.CollisionCount), optional(cur.CollisionCount)))
	}
	if len(out) == 0 {
		out = append(out, "(no counter changes)")
	}
	return out
}

func optional(p *int32) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}
