package daemon

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
)

// FormatOptions say what Plan.Format prints besides the plan itself. The
// zero value prints the plan alone.
type FormatOptions struct {
	// DaemonSet, when set, names the plan in a header line and, with
	// Nodes, is the DaemonSet whose placement the node table explains.
	DaemonSet *appsv1.DaemonSet
	// Nodes, when set with DaemonSet, adds a table of the placement verdict
	// of each node (eligibility.Check.Explain), sorted by node name. Nil entries
	// are skipped.
	Nodes []*corev1.Node
	// Now, when not zero, is printed in the header: the clock the plan was
	// computed at.
	Now time.Time
	// EnableTaintTolerationComparisonOperators is passed to eligibility.New
	// for the node table, as it was to Compute.
	EnableTaintTolerationComparisonOperators bool
}

// Format writes p for people, as the quickstart prints it: a header naming
// the DaemonSet, the time and the current revision hash; the placement
// table (when opts has the DaemonSet and the nodes), which names what
// failed on each node (see eligibility.Check.Explain: the nodeName, the
// nodeSelector key or each failing affinity term, every untolerated
// taint); the actions with their
// reasons (pod deletes and creates, adoptions and releases, revision
// changes, "nothing to do" when none); the pods and actions the burst cap
// deferred; the rolling-update budget; the status and whether it must be
// written; the events; and when to look again. The text is meant to be
// read, not parsed: it may change between versions.
//
// Format writes the same text for the same plan and options, whatever the
// order of opts.Nodes. It does not modify p or opts, accepts any Plan (nil
// pods and revisions print as "<nil>") and returns the first write error.
func (p Plan) Format(w io.Writer, opts FormatOptions) error {
	f := &formatter{w: w}
	f.header(p, opts)
	if opts.DaemonSet != nil && len(opts.Nodes) > 0 {
		f.nodes(opts)
	}
	f.actions(p)
	f.summary(p)
	return f.err
}

// formatter writes to w and keeps the first error.
type formatter struct {
	w   io.Writer
	err error
	// blank is true once something was written: sections after the first
	// start with an empty line.
	blank bool
}

func (f *formatter) printf(format string, args ...any) {
	if f.err == nil {
		_, f.err = fmt.Fprintf(f.w, format, args...)
	}
	f.blank = true
}

// section starts a block, separated from the previous one.
func (f *formatter) section() {
	if f.blank {
		f.printf("\n")
	}
}

// table writes rows aligned in columns two spaces apart, without trailing
// spaces.
func (f *formatter) table(header string, rows []string) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	_, _ = io.WriteString(tw, header+"\n") // a strings.Builder does not fail
	for _, r := range rows {
		_, _ = io.WriteString(tw, r+"\n")
	}
	_ = tw.Flush()
	for line := range strings.Lines(b.String()) {
		f.printf("%s\n", strings.TrimRight(line, " \n"))
	}
}

func (f *formatter) header(p Plan, opts FormatOptions) {
	var parts []string
	if ds := opts.DaemonSet; ds != nil {
		parts = append(parts, "DaemonSet "+keyOf(ds))
	} else {
		parts = append(parts, "Plan")
	}
	if !opts.Now.IsZero() {
		parts = append(parts, "at "+opts.Now.UTC().Format(time.RFC3339))
	}
	line := strings.Join(parts, " ")
	if p.Hash != "" {
		line += ", current revision hash " + p.Hash
	}
	f.printf("%s\n", line)
	if p.Skip != SkipNone {
		f.printf("skipped: %s\n", p.Skip)
	}
}

func (f *formatter) nodes(opts FormatOptions) {
	nodes := make([]*corev1.Node, 0, len(opts.Nodes))
	for _, n := range opts.Nodes {
		if n != nil {
			nodes = append(nodes, n)
		}
	}
	slices.SortStableFunc(nodes, func(a, b *corev1.Node) int { return cmp.Compare(a.Name, b.Name) })
	elig := eligibility.New(opts.DaemonSet, opts.EnableTaintTolerationComparisonOperators)
	rows := make([]string, 0, len(nodes))
	for _, n := range nodes {
		v := elig.Explain(n)
		why := string(v.Reason)
		if detail := whyNot(v); detail != "" {
			why += " " + detail
		}
		rows = append(rows, n.Name+"\t"+strconv.FormatBool(v.ShouldRun)+"\t"+strconv.FormatBool(v.ShouldContinueRunning)+"\t"+why)
	}
	f.section()
	f.table("NODE\tSHOULD RUN\tMAY KEEP POD\tWHY NOT", rows)
}

func (f *formatter) actions(p Plan) {
	var rows []string
	add := func(action, node, object, reason string) {
		rows = append(rows, action+"\t"+node+"\t"+object+"\t"+reason)
	}
	for _, d := range p.Deletes {
		add("delete", d.NodeName, podName(d.Pod), string(d.Reason))
	}
	for _, c := range p.Creates {
		name := "<nil>"
		if c.Pod != nil {
			name = c.Pod.Name
			if name == "" {
				name = c.Pod.GenerateName + "<generated>"
			}
		}
		add("create", c.NodeName, name, string(c.Reason))
	}
	for _, pod := range p.Adopt {
		add("adopt", podNode(pod), podName(pod), "labels match the selector")
	}
	for _, pod := range p.Release {
		add("release", podNode(pod), podName(pod), "labels no longer match")
	}
	h := p.History
	if h.Create != nil {
		add("create revision", "", h.Create.Name, "revision "+strconv.FormatInt(h.Create.Revision, 10))
	}
	for _, r := range h.Update {
		add("update revision", "", revisionName(r), revisionNumber(r))
	}
	for _, r := range h.Delete {
		add("delete revision", "", revisionName(r), revisionNumber(r))
	}
	for _, r := range h.Adopt {
		add("adopt revision", "", revisionName(r), "")
	}
	for _, r := range h.Release {
		add("release revision", "", revisionName(r), "")
	}
	for _, pod := range h.Relabel {
		add("relabel", podNode(pod), podName(pod), "merged duplicate revisions")
	}
	if h.CollisionCount != nil {
		add("collision", "", "", "status.collisionCount must become "+strconv.FormatInt(int64(*h.CollisionCount), 10))
	}
	f.section()
	if len(rows) == 0 {
		f.printf("nothing to do\n")
		return
	}
	f.table("ACTION\tNODE\tOBJECT\tREASON", rows)
	if p.DeferredCreates > 0 || p.DeferredDeletes > 0 {
		f.printf("deferred by the burst cap: %d creates, %d deletes\n", p.DeferredCreates, p.DeferredDeletes)
	}
}

func (f *formatter) summary(p Plan) {
	f.section()
	if r := p.Rolling; r != nil {
		f.printf("rolling step: desired %d, maxUnavailable %d, maxSurge %d, ", r.Desired, r.MaxUnavailable, r.MaxSurge)
		if r.MaxSurge == 0 {
			f.printf("unavailable %d, candidates %d\n", r.NumUnavailable, r.Candidates)
		} else {
			f.printf("surging %d, available %d, candidates %d\n", r.NumSurge, r.NumAvailable, r.Candidates)
		}
		if rp := r.Policy; rp != nil {
			f.printf("rollout policy: %d in-scope nodes still old, partition keeps %d, %d held out of scope\n", rp.Remaining, rp.Partition, rp.Held)
			if rp.Wave != nil {
				f.printf("%s\n", rp.Wave)
			}
		}
	}
	st := p.Status
	f.printf("status: desired %d, current %d, ready %d, available %d, updated %d, misscheduled %d, unavailable %d (write: %v)\n",
		st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberReady, st.NumberAvailable,
		st.UpdatedNumberScheduled, st.NumberMisscheduled, st.NumberUnavailable, p.StatusChanged)
	for _, e := range p.Events {
		f.printf("event: %s %s: %s\n", e.Type, e.Reason, e.Message)
	}
	if len(p.Unplaced) > 0 {
		names := make([]string, len(p.Unplaced))
		for i, pod := range p.Unplaced {
			names[i] = podName(pod)
		}
		f.printf("unplaced (no target node, ignored): %s\n", strings.Join(names, ", "))
	}
	if p.RequeueAfter > 0 {
		f.printf("look again in: %v\n", p.RequeueAfter)
	} else {
		f.printf("look again: on the next change\n")
	}
}

func podName(pod *corev1.Pod) string {
	if pod == nil {
		return "<nil>"
	}
	return pod.Name
}

func podNode(pod *corev1.Pod) string {
	if pod == nil {
		return ""
	}
	return pod.Spec.NodeName
}

func revisionName(r *appsv1.ControllerRevision) string {
	if r == nil {
		return "<nil>"
	}
	return r.Name
}

func revisionNumber(r *appsv1.ControllerRevision) string {
	if r == nil {
		return ""
	}
	return "revision " + strconv.FormatInt(r.Revision, 10)
}

// whyNot names what failed in v: the template's nodeName, the nodeSelector
// key or each failing affinity term, or every untolerated taint.
func whyNot(v eligibility.Verdict) string {
	switch v.Reason {
	case eligibility.IneligibleNodeName:
		return "nodeName " + strconv.Quote(v.NodeName)
	case eligibility.IneligibleNodeAffinity:
		m := v.Affinity
		switch {
		case m.NodeSelector:
			return "nodeSelector " + strconv.Quote(m.NodeSelectorKey)
		case m.NoTerms:
			return "no nodeSelectorTerms"
		}
		parts := make([]string, len(m.Terms))
		for i, t := range m.Terms {
			part := "term " + strconv.Itoa(t.Term) + " "
			switch {
			case t.Reason != affinity.TermUnmatched:
				part += strings.ToLower(string(t.Reason))
			case t.Requirement < 0:
				part += "unmatched"
			case t.Field:
				part += "matchFields[" + strconv.Itoa(t.Requirement) + "] " + strconv.Quote(t.Key)
			default:
				part += "matchExpressions[" + strconv.Itoa(t.Requirement) + "] " + strconv.Quote(t.Key)
			}
			parts[i] = part
		}
		return strings.Join(parts, ", ")
	case eligibility.IneligibleTaint, eligibility.IneligibleNoExecuteTaint:
		taints := v.UntoleratedTaints
		if len(taints) == 0 && (v.Taint.Key != "" || v.Taint.Effect != "") {
			taints = []corev1.Taint{v.Taint}
		}
		parts := make([]string, len(taints))
		for i := range taints {
			parts[i] = taints[i].ToString()
		}
		return strings.Join(parts, ", ")
	}
	return ""
}
