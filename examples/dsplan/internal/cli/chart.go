package cli

import (
	"cmp"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// nodeState is a node's pod state at one step, for the chart.
type nodeState uint8

const (
	stateNone        nodeState = iota // no pod, and none wanted
	stateOld                          // an available pod of an old template
	stateNew                          // an available pod of the current template
	stateSurge                        // more than one pod
	stateUnavailable                  // should run the pod and has none available
	numStates
)

// chartData is what the SVG draws for one DaemonSet.
type chartData struct {
	name string
	// nodes are the nodes' names in the chart's row order: by group (the
	// order label's values in the rollout's order, or the domain label's),
	// then by name; groups[j] is node j's group ("" without a label),
	// groupLabel the label.
	nodes      []string
	groups     []string
	groupLabel string
	// at[i] is step i's time; states[i][j] node j's state after step i.
	at     []time.Duration
	states [][]nodeState
	// the lines: after each step.
	available, updated, down, budget []int
	desired                          int
	// syncs counts the syncs of the run: several at one instant make one
	// column.
	syncs int
	// surgeBudget is the largest maxSurge of the run, surged whether a
	// node ever ran two pods: neither leaves the surging state out of the
	// legend.
	surgeBudget int
	surged      bool
}

// chartRecorder records, after each step of a simulation, each node's
// state and the lines of the chart (simulate.Config.OnStep): one pass
// over the pods per step.
type chartRecorder struct {
	cd     *chartData
	nodeAt map[string]int // row of each node
	// should caches each row's placement for the template of hash.
	should     []bool
	shouldHash string
	shouldOf   []*corev1.Node
	// pending is the step recorded last, not yet classified; spare the
	// buffers of the one before.
	pending, spare *pendingStep
}

// newChartRecorder lays out the rows: grouped by the value of groupLabel
// (values first, in that order; the rest sorted), then by node name.
func newChartRecorder(name string, cl *simulate.Cluster, groupLabel string, first []string) *chartRecorder {
	type row struct{ name, group string }
	rows := make([]row, 0, len(cl.Nodes))
	for _, n := range cl.Nodes {
		g := ""
		if groupLabel != "" {
			g = n.Labels[groupLabel]
		}
		rows = append(rows, row{n.Name, g})
	}
	rank := func(g string) int {
		if i := slices.Index(first, g); i >= 0 {
			return i
		}
		return len(first)
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(rank(a.group), rank(b.group)), strings.Compare(a.group, b.group), strings.Compare(a.name, b.name))
	})
	r := &chartRecorder{cd: &chartData{name: name, groupLabel: groupLabel}, nodeAt: make(map[string]int, len(rows))}
	for j, rw := range rows {
		r.cd.nodes = append(r.cd.nodes, rw.name)
		r.cd.groups = append(r.cd.groups, rw.group)
		r.nodeAt[rw.name] = j
	}
	r.should = make([]bool, len(rows))
	r.shouldOf = make([]*corev1.Node, len(rows))
	return r
}

// record is the OnStep hook. Syncs at one instant leave only the last
// one's state on the chart (the others last no time), so a step is
// classified only once a later instant comes (see flush): it keeps the
// step's objects meanwhile, which the simulator never modifies, in copies
// of its slices.
func (r *chartRecorder) record(st simulate.StepTrace, c *simulate.Cluster) {
	if r.pending != nil && st.At > r.pending.st.At {
		r.flush()
	}
	p := r.pending
	if p == nil {
		p, r.spare = r.spare, nil
		if p == nil {
			p = &pendingStep{}
		}
		r.pending = p
	}
	p.st, p.ds, p.now = st, c.DaemonSet, c.Now
	p.pods = append(p.pods[:0], c.Pods...)
	p.nodes = append(p.nodes[:0], c.Nodes...)
	r.cd.syncs++
}

// pendingStep is the last step recorded, not yet classified.
type pendingStep struct {
	st    simulate.StepTrace
	ds    *appsv1.DaemonSet
	now   time.Time
	pods  []*corev1.Pod
	nodes []*corev1.Node
}

// flush classifies the pending step; finish calls it after the run.
func (r *chartRecorder) flush() {
	p := r.pending
	if p == nil {
		return
	}
	cd := r.cd
	st := p.st
	states, avail, upd := r.classify(p, st.Hash)
	cd.at = append(cd.at, st.At)
	cd.states = append(cd.states, states)
	cd.available = append(cd.available, avail)
	cd.updated = append(cd.updated, upd)
	cd.down = append(cd.down, st.Down)
	cd.budget = append(cd.budget, st.Budgets.MaxUnavailable)
	cd.surgeBudget = max(cd.surgeBudget, st.Budgets.MaxSurge)
	cd.surged = cd.surged || st.Surge > 0
	cd.desired = max(cd.desired, int(st.Desired))
	// Keep the buffers for the next step.
	r.pending, r.spare = nil, p
}

// finish classifies the last step and returns the chart.
func (r *chartRecorder) finish() *chartData {
	r.flush()
	return r.cd
}

// classify returns the state of each row in c and the counts of nodes
// with an available pod and with an available updated pod; hash is the
// step's current revision. Placement is judged again only for a node or
// a template that changed.
func (r *chartRecorder) classify(c *pendingStep, hash string) ([]nodeState, int, int) {
	ds := c.ds
	gen, _ := rollout.GetTemplateGeneration(ds)
	n := len(r.cd.nodes)
	pods := make([]int8, n)
	ok, okNew := make([]bool, n), make([]bool, n)
	for _, p := range c.pods {
		if p.Namespace != ds.Namespace || !ownedBy(p, ds.UID) || p.DeletionTimestamp != nil {
			continue
		}
		if p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
			continue
		}
		node := p.Spec.NodeName
		if node == "" {
			node = affinityNode(p)
		}
		j, found := r.nodeAt[node]
		if !found {
			continue
		}
		pods[j] = min(pods[j]+1, 2)
		if available(p, c.now, ds.Spec.MinReadySeconds) {
			ok[j] = true
			if rollout.IsPodUpdated(p, hash, gen) {
				okNew[j] = true
			}
		}
	}
	var elig *eligibility.Check
	if hash != r.shouldHash {
		clear(r.shouldOf)
		r.shouldHash = hash
	}
	out := make([]nodeState, n)
	avail, upd := 0, 0
	for _, node := range c.nodes {
		k, found := r.nodeAt[node.Name]
		if !found {
			continue
		}
		if r.shouldOf[k] != node {
			if elig == nil {
				elig = eligibility.New(ds, false)
			}
			r.should[k], _ = elig.ShouldRun(node)
			r.shouldOf[k] = node
		}
		switch {
		case pods[k] > 1:
			out[k] = stateSurge
		case okNew[k]:
			out[k] = stateNew
		case ok[k]:
			out[k] = stateOld
		case r.should[k] || pods[k] > 0:
			out[k] = stateUnavailable
		}
		if ok[k] {
			avail++
		}
		if okNew[k] {
			upd++
		}
	}
	return out, avail, upd
}

// affinityNode is the node a pod not yet bound targets.
func affinityNode(p *corev1.Pod) string {
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == "metadata.name" && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

// available: ready for minReadySeconds at now.
func available(p *corev1.Pod, now time.Time, minReady int32) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return minReady == 0 || !c.LastTransitionTime.Add(time.Duration(minReady)*time.Second).After(now)
		}
	}
	return false
}
