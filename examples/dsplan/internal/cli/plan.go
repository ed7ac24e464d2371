package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/daemon"
)

// runPlan is "dsplan plan".
func runPlan(args []string, stdin io.Reader, stdout, stderr io.Writer, opts Options) error {
	fs := newFlagSet("plan", stderr)
	c := common{opts: opts}
	c.register(fs)
	format := fs.String("o", "text", "output `FORMAT`: text, json or yaml")
	var pf policyFlags
	pf.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	pol, err := pf.policy()
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return &usageError{fmt.Sprintf("unexpected argument %q", pos[0])}
	}
	if *format != "text" && *format != "json" && *format != "yaml" {
		return &usageError{fmt.Sprintf("-o %q: want text, json or yaml", *format)}
	}
	l, err := c.load(stdin)
	if err != nil {
		return err
	}
	results := computeAll(l, c.burst, pol)
	switch *format {
	case "json", "yaml":
		out := make([]planJSON, len(results))
		for i, r := range results {
			out[i] = toJSON(r)
		}
		var data []byte
		if *format == "json" {
			data, err = json.MarshalIndent(out, "", "  ")
			data = append(data, '\n')
		} else {
			data, err = yaml.Marshal(out)
		}
		if err != nil {
			return err
		}
		if _, err := stdout.Write(data); err != nil {
			return err
		}
	default:
		l.header(stdout)
		for _, r := range results {
			fmt.Fprintln(stdout)
			if err := printPlan(stdout, l, r); err != nil {
				return err
			}
		}
	}
	return failures(results)
}

// result is the plan of one DaemonSet.
type result struct {
	name  string
	ds    *appsv1.DaemonSet
	plan  daemon.Plan
	err   error
	notes []string
}

// computeAll plans every DaemonSet of l, under the rollout policy pol
// (zero: upstream).
func computeAll(l *loaded, burst int, pol daemon.RolloutPolicy) []result {
	out := make([]result, 0, len(l.names))
	for _, name := range l.names {
		ns, n, _ := strings.Cut(name, "/")
		in, err := l.snap.For(ns, n)
		if err != nil { // the names come from the snapshot
			out = append(out, result{name: name, err: err})
			continue
		}
		r := result{name: name, ds: in.DaemonSet}
		if len(in.Revisions) == 0 {
			r.notes = append(r.notes, fmt.Sprintf("no ControllerRevision of namespace %s in the input: planned as a first sync (add controllerrevisions to the kubectl get)", ns))
		}
		r.plan, r.err = daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, daemon.Options{
			Now:           l.now,
			Revisions:     in.Revisions,
			BurstReplicas: burst,
			Rollout:       pol,
		})
		out = append(out, r)
	}
	return out
}

// failures returns an input error naming the DaemonSets whose Compute
// failed.
func failures(results []result) error {
	var bad []string
	for _, r := range results {
		if r.err != nil {
			bad = append(bad, r.name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &inputError{fmt.Errorf("no plan for %s (see above)", strings.Join(bad, ", "))}
}

// printPlan writes one plan for people.
func printPlan(w io.Writer, l *loaded, r result) error {
	for _, n := range r.notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if r.err != nil {
		fmt.Fprintf(w, "DaemonSet %s: error: %v\n", r.name, r.err)
		if r.ds == nil || r.plan.Hash == "" && !r.plan.StatusChanged {
			return nil
		}
		fmt.Fprintln(w, "what the controller still does in this sync:")
	}
	if err := r.plan.Format(w, daemon.FormatOptions{DaemonSet: r.ds, Nodes: l.snap.Nodes, Now: l.now}); err != nil {
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
