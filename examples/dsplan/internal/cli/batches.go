package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// An update batch is a sync that starts updating nodes: the rolling step
// deletes their old pods (maxSurge 0) or creates new pods beside them
// (surge). Batches are grouped by the values of a node label, the order
// label when the rollout is ordered by one (its values are the waves, and
// a wave barrier will sit between them), else the domain label, else the
// zone: a batch whose group differs from the previous batch's starts a new
// group, and the printout marks it.

// zoneLabel is the group of batches when no rollout control names a label.
const zoneLabel = "topology.kubernetes.io/zone"

// updateBatch is one sync that starts updates.
type updateBatch struct {
	step  int
	at    string
	nodes []string
	// down and budget are the unavailable (or surging) nodes after the
	// sync and the budget they count against.
	down, budget int
	surge        bool
	// groups are the distinct values of the grouping label among nodes,
	// sorted.
	groups []string
}

// groupLabel is the label update batches and chart rows are grouped by.
func groupLabel(p *daemon.RolloutPolicy, cl *simulate.Cluster) string {
	switch {
	case p.Order.Label != "":
		return p.Order.Label
	case p.DomainBudget != nil && p.DomainBudget.Label != "":
		return p.DomainBudget.Label
	}
	for _, n := range cl.Nodes {
		if _, ok := n.Labels[zoneLabel]; ok {
			return zoneLabel
		}
	}
	return ""
}

// desiredNodes are the nodes of cl where its DaemonSet should run, as the
// standing of the plan of its first sync judges them (none when that plan
// fails: the simulation reports why).
func desiredNodes(cl *simulate.Cluster) []*corev1.Node {
	in := cl.Input()
	in.Options.ReportStanding = true
	plan, err := daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, in.Options)
	if err != nil || plan.Standing == nil {
		return nil
	}
	var out []*corev1.Node
	for _, n := range plan.Standing.Nodes {
		if n.ShouldRun {
			out = append(out, n.Node)
		}
	}
	return out
}

// orderValues are the values of the order label that go first.
func orderValues(p *daemon.RolloutPolicy) []string {
	if p.Order.Label == "" {
		return nil
	}
	return p.Order.Values
}

// batchesOf reads the update batches from a simulation's steps.
func batchesOf(res simulate.Result, cl *simulate.Cluster, label string) []updateBatch {
	labelOf := map[string]string{}
	if label != "" {
		for _, n := range cl.Nodes {
			labelOf[n.Name] = n.Labels[label]
		}
	}
	var out []updateBatch
	for _, st := range res.Steps {
		if len(st.UpdateNodes) == 0 {
			continue
		}
		w := updateBatch{step: st.Step, at: fmtDur(st.At), nodes: st.UpdateNodes, down: st.Down, budget: st.Budgets.MaxUnavailable}
		if st.Budgets.MaxSurge > 0 {
			w.surge, w.down, w.budget = true, st.Surge, st.Budgets.MaxSurge
		}
		if label != "" {
			for _, n := range st.UpdateNodes {
				w.groups = append(w.groups, labelOf[n])
			}
			slices.Sort(w.groups)
			w.groups = slices.Compact(w.groups)
		}
		out = append(out, w)
	}
	return out
}

// maxBatchLines is how many update batches the text lists; the JSON has
// them all.
const maxBatchLines = 40

// printBatches prints the planned waves of the order label, the update
// batches (the syncs that started updates) and where the rollout blocks.
func (r *simReport) printBatches(w io.Writer) {
	r.printPlannedWaves(w)
	nodes := 0
	for _, b := range r.batches {
		nodes += len(b.nodes)
	}
	switch {
	case len(r.batches) == 0:
		fmt.Fprintln(w, "update batches: none (no old pod is replaced)")
	default:
		kind := "maxUnavailable"
		if r.batches[0].surge {
			kind = "maxSurge"
		}
		fmt.Fprintf(w, "update batches: %d syncs start updating %d nodes, within %s", len(r.batches), nodes, kind)
		if r.groupBy != "" {
			fmt.Fprintf(w, "; grouped by %s", r.groupBy)
		}
		if r.barrier != nil {
			fmt.Fprintf(w, ", a barrier between its values (bake %s)", fmtDur(r.barrier.Bake))
		}
		fmt.Fprintln(w)
		t := newTable("", "BATCH", "TIME", "NODES", "DOWN/MAX", "NODES STARTED")
		var prev string
		for i, b := range r.batches {
			if i == maxBatchLines {
				t.line(fmt.Sprintf("  ... %d more batches (-o json lists them all)", len(r.batches)-i))
				break
			}
			if g := strings.Join(b.groups, ","); r.groupBy != "" && g != prev {
				if r.barrier != nil && i > 0 {
					t.line(fmt.Sprintf("  -- barrier: the earlier waves updated and available, then %s", fmtDur(r.barrier.Bake)))
				}
				t.line(fmt.Sprintf("  -- %s=%s", r.groupBy, orDash(g)))
				prev = g
			}
			t.row(i+1, b.at, len(b.nodes), fmt.Sprintf("%d/%d", b.down, b.budget), nodeRange(b.nodes))
		}
		_ = t.flush(w)
	}
	for _, b := range r.blocks {
		fmt.Fprintf(w, "blocks: %s\n", b)
	}
}

// nodeRange names a few nodes, or the first and last of many.
func nodeRange(nodes []string) string {
	if len(nodes) <= 3 {
		return strings.Join(nodes, ", ")
	}
	return fmt.Sprintf("%s … %s", nodes[0], nodes[len(nodes)-1])
}

// blocksOf says where the rollout will block or what holds nodes back,
// in the policy's terms: NotReady nodes and failing pods that keep nodes
// unavailable (and count against maxUnavailable), the partition and the
// scope, a hostPort under maxSurge (which the simulation does not model),
// and the simulation's stall.
func blocksOf(cl *simulate.Cluster, res simulate.Result) []string {
	ds := cl.DaemonSet
	elig := eligibility.New(ds, false)
	var notReady, failing, outOfScope []string
	var scope func(*corev1.Node) bool
	if s := cl.Rollout.Scope; s != nil {
		if sel, err := metav1.LabelSelectorAsSelector(s); err == nil {
			scope = func(n *corev1.Node) bool { return sel.Matches(labels.Set(n.Labels)) }
		}
	}
	desired, ready := map[string]bool{}, map[string]bool{}
	for _, n := range cl.Nodes {
		ready[n.Name] = nodeIsReady(n)
		if run, _ := elig.ShouldRun(n); !run {
			continue
		}
		desired[n.Name] = true
		if !nodeIsReady(n) {
			notReady = append(notReady, n.Name)
		}
		if scope != nil && !scope(n) {
			outOfScope = append(outOfScope, n.Name)
		}
	}
	for _, p := range cl.Pods {
		if p.Namespace != ds.Namespace || !ownedBy(p, ds.UID) || !desired[p.Spec.NodeName] {
			continue
		}
		if why := simulate.FailingReason(p, cl.Now); why != "" && ready[p.Spec.NodeName] {
			failing = append(failing, fmt.Sprintf("%s (%s)", p.Spec.NodeName, why))
		}
	}
	slices.Sort(notReady)
	slices.Sort(failing)
	var out []string
	if len(notReady) > 0 {
		out = append(out, fmt.Sprintf("NotReady nodes, whose pods cannot become available and count against maxUnavailable: %s", listSome(notReady)))
	}
	if len(failing) > 0 {
		out = append(out, fmt.Sprintf("failing pods, which stay down and count against maxUnavailable: %s", listSome(failing)))
	}
	if len(outOfScope) > 0 {
		out = append(out, fmt.Sprintf("scope: %s outside --scope keep the old revision", count(len(outOfScope), "desired node")))
	}
	if p := cl.Rollout.Partition; p != nil {
		out = append(out, fmt.Sprintf("partition: %s of the desired nodes keep the old revision", p.String()))
	}
	if port := hostPort(ds.Spec.Template.Spec); port > 0 {
		if surge, _ := rollout.SurgeCount(ds, len(desired)); surge > 0 {
			out = append(out, fmt.Sprintf("hostPort %d with maxSurge %d: a new pod cannot start beside the old one on its node (the port is taken), so surging stalls; the simulation does not model the port", port, surge))
		}
	}
	if res.Outcome == simulate.OutcomeStalled {
		out = append(out, "the simulation stalls: "+res.Reason)
	}
	return out
}

// hostPort is the first host port the pod spec takes (a hostNetwork pod
// takes its container ports), 0 for none.
func hostPort(spec corev1.PodSpec) int32 {
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range list {
			for _, p := range c.Ports {
				if p.HostPort > 0 {
					return p.HostPort
				}
				if spec.HostNetwork && p.ContainerPort > 0 {
					return p.ContainerPort
				}
			}
		}
	}
	return 0
}

func nodeIsReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// count is "1 node", "2 nodes".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// listSome joins up to five items, and says how many more.
func listSome(items []string) string {
	if len(items) <= 5 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:5], ", ") + fmt.Sprintf(" and %d more", len(items)-5)
}
