package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// scaleJoinEnv opts in to TestScaleJoin and gives its shape: BASE+JOINED,
// e.g. 20000+5000.
const scaleJoinEnv = "E2E_SCALE_JOIN"

// parseScaleJoin reads the value of scaleJoinEnv: the nodes of the cluster
// before the join (at least 10) and the nodes that join at once (at least
// 1).
func parseScaleJoin(v string) (base, joined int, err error) {
	b, j, ok := strings.Cut(v, "+")
	base, errBase := strconv.Atoi(strings.TrimSpace(b))
	joined, errJoined := strconv.Atoi(strings.TrimSpace(j))
	if !ok || errBase != nil || errJoined != nil || base < 10 || joined < 1 {
		return 0, 0, fmt.Errorf("%s=%q: want BASE+JOINED, the nodes before the join and the nodes that join at once, e.g. 20000+5000 (BASE at least 10, JOINED at least 1)", scaleJoinEnv, v)
	}
	return base, joined, nil
}

func TestParseScaleJoin(t *testing.T) {
	tests := []struct {
		name, value  string
		base, joined int
		wantErr      bool
	}{
		{name: "the issue's shape", value: "20000+5000", base: 20000, joined: 5000},
		{name: "spaces", value: " 1000 + 250 ", base: 1000, joined: 250},
		{name: "smallest", value: "10+1", base: 10, joined: 1},
		{name: "no join", value: "20000", wantErr: true},
		{name: "join of none", value: "20000+0", wantErr: true},
		{name: "base too small", value: "9+5", wantErr: true},
		{name: "not numbers", value: "many+more", wantErr: true},
		{name: "negative", value: "100+-5", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, joined, err := parseScaleJoin(tt.value)
			if d := cmp.Diff([3]any{tt.base, tt.joined, tt.wantErr}, [3]any{base, joined, err != nil}); d != "" {
				t.Errorf("parseScaleJoin(%q): base, joined, error? (-want +got):\n%s (error: %v)", tt.value, d, err)
			}
		})
	}
}

// TestScaleJoin (opt-in: E2E_SCALE_JOIN=BASE+JOINED) measures a join at
// scale, once per controller, each from its own executable (as TestScale)
// on a fresh cluster: a DaemonSet is placed on BASE kwok nodes (timed, not
// the focus); then JOINED nodes are created at once and the phase "join"
// lasts until every one runs an available pod; then the phase "steady", a
// quiet hour compressed: 1% of the nodes relabelled with a label no
// selector reads, 10% given a heartbeat-like status update (the Ready
// condition's lastHeartbeatTime), a few (0.1%, at least 3) tainted
// NoSchedule, which the DaemonSet does not tolerate (its pods stay: they
// count as misscheduled, and the nodes leave the desired count), until the
// DaemonSet's status says so or for 10 seconds, and untainted, then the
// status settled again and 15 quiet seconds. kwok plays no heartbeats here: node Leases are off
// (startKwok) and its stages (kwokStages) hold node-initialize alone, no
// node-heartbeat stage, so the nodes' own writes are the initial status
// only. Each phase records what TestScale's do and what etcd,
// kube-apiserver, kube-scheduler, kwok and the test process (its clients
// and watches) used; the join also logs when the last of the joined nodes'
// pods was created, bound and available.
func TestScaleJoin(t *testing.T) {
	v := os.Getenv(scaleJoinEnv)
	if v == "" {
		t.Skipf("e2e: opt-in; set %s=BASE+JOINED (e.g. 20000+5000) to run it", scaleJoinEnv)
	}
	if testing.Short() {
		t.Skip("e2e: the scale scenarios are not -short scenarios")
	}
	base, joined, err := parseScaleJoin(v)
	if err != nil {
		t.Fatalf("e2e: %v", err)
	}
	bins := buildDeployed(t)
	sideBySideOf(t, bins.controllers(), "scale-join-"+shape(base, joined), func(e *env) outcome { return runScaleJoin(e, base, joined, bins) })
}

// phaseUsageRow is what each process used in one phase of TestScaleJoin.
type phaseUsageRow struct {
	nodes, joined int
	controller    string
	phase         string
	wall          time.Duration
	cpu           map[string]time.Duration // by process: controlPlaneNames, "controller", testProcessName
}

// testProcessName names the test process (its clients and monitors) in a
// phaseUsageRow.
const testProcessName = "test"

// The rows of the tables printPhaseUsage prints.
var (
	phaseUsageRows   []phaseUsageRow
	joinTimelineRows []joinTimelineRow
)

// scaleMark is what a phase's figures are computed from: the usage and
// counts at its start or end.
type scaleMark struct {
	at     time.Time
	ctl    usage
	syncs  syncStats
	writes map[string]int
	cpu    map[string]time.Duration // by process, as phaseUsageRow's
}

// mark reads the controller p's usage (with anon's peak so far as its
// anonymous memory), syncs and writes, and the CPU time of every other
// process.
func (e *env) mark(p *process, anon *anonSampler) scaleMark {
	e.t.Helper()
	m := scaleMark{ctl: e.usage(p), syncs: e.syncStats(p), writes: e.writes(), cpu: map[string]time.Duration{}}
	m.ctl.anon = max(m.ctl.anon, anon.max())
	m.cpu["controller"] = m.ctl.cpu
	for _, name := range controlPlaneNames {
		if proc := e.procs[name]; proc != nil {
			m.cpu[name] = e.usage(proc).cpu
		}
	}
	if u, err := usageOf(os.Getpid()); err == nil {
		m.cpu[testProcessName] = u.cpu
	}
	m.at = time.Now()
	return m
}

// phase returns the scale-table row and the usage row of the phase from a
// to b; the peaks are those at b (b.ctl.anon the largest anonymous memory
// sampled until then).
func (e *env) phase(base, joined int, name string, converge time.Duration, a, b scaleMark) (scaleRow, phaseUsageRow) {
	u := phaseUsageRow{nodes: base, joined: joined, controller: e.ctl.name, phase: name, wall: b.at.Sub(a.at), cpu: map[string]time.Duration{}}
	for k, v := range b.cpu {
		u.cpu[k] = v - a.cpu[k]
	}
	return scaleRow{nodes: base, joined: joined, controller: e.ctl.name, phase: name, converge: converge,
		cpu: b.ctl.cpu - a.ctl.cpu, peak: b.ctl.peak, peakAnon: b.ctl.anon, writes: minus(b.writes, a.writes), syncs: b.syncs.since(a.syncs)}, u
}

func runScaleJoin(e *env, base, joined int, bins deployedBinaries) outcome {
	specs := make([]nodeSpec, base+joined)
	for i := range specs {
		specs[i] = nodeSpec{name: fmt.Sprintf("node-%05d", i)}
	}
	all, baseNames, joinNames := names(specs), names(specs[:base]), names(specs[base:])
	e.addManyNodes(specs[:base])
	p := e.controllerProcess()
	anon := e.sampleAnon(p)
	timeout := func(n int) time.Duration { return 3*time.Minute + time.Duration(n)*100*time.Millisecond }
	who := fmt.Sprintf("scale %s/%s", shape(base, joined), e.ctl.name)

	// Placement on the base nodes.
	m0 := e.mark(p, anon)
	mon := e.startScaleMonitor("agent", baseNames, -1)
	start := time.Now()
	e.createDaemonSet(newDaemonSet("agent"))
	e.convergeAtScale("agent", baseNames, timeout(base))
	placed := time.Since(start)
	v1, ev1 := mon.stopAndReport()
	m1 := e.mark(p, anon)

	// The join: every new node at once.
	mon = e.startScaleMonitor("agent", all, -1)
	tl := e.startJoinTimeline("agent", joinNames)
	start = time.Now()
	tl.begin(start)
	e.createNodes(specs[base:])
	created := time.Since(start)
	e.convergeAtScale("agent", all, timeout(joined))
	joinTime := time.Since(start)
	v2, ev2 := mon.stopAndReport()
	m2 := e.mark(p, anon)
	e.t.Logf("%s join: %s", who, tl.report(created, joinTime, e.ctl.name))

	// A steady hour, compressed.
	mon = e.startScaleMonitor("agent", all, -1)
	start = time.Now()
	ops := e.steadyHour(all)
	st, place := e.convergeAtScale("agent", all, timeout(len(all)/10))
	steady := time.Since(start)
	time.Sleep(15 * time.Second)
	v3, ev3 := mon.stopAndReport()
	m3 := e.mark(p, anon)
	e.t.Logf("%s steady: the test wrote %s; settled again %s after the first", who, ops, steady.Round(time.Millisecond))

	var rows []scaleRow
	for _, ph := range []struct {
		name     string
		converge time.Duration
		a, b     scaleMark
	}{{phasePlacement, placed, m0, m1}, {phaseJoin, joinTime, m1, m2}, {phaseSteady, steady, m2, m3}} {
		r, u := e.phase(base, joined, ph.name, ph.converge, ph.a, ph.b)
		rows = append(rows, r)
		e.t.Logf("%s %s: %s wall; CPU s: %s", who, ph.name, u.wall.Round(time.Millisecond), cpuSummary(u.cpu))
		resultsMu.Lock()
		phaseUsageRows = append(phaseUsageRows, u)
		resultsMu.Unlock()
	}
	e.recordScale(rows, e.controlPlaneRows(base, joined, bins, p, m3.ctl))
	return outcome{placement: place, status: st, converge: placed + joinTime + steady,
		violations: append(append(v1, v2...), v3...), events: ev1 + ev2 + ev3}
}

// steadyTaint is the taint of the steady phase; the DaemonSet does not
// tolerate it.
var steadyTaint = corev1.Taint{Key: "e2e.daemonplan.io/steady", Value: "maintenance", Effect: corev1.TaintEffectNoSchedule}

// steadyHour makes the steady phase's changes to the nodes (see
// TestScaleJoin) with fastClient, 64 at a time, and returns what it wrote.
func (e *env) steadyHour(nodes []string) string {
	e.t.Helper()
	cs := e.fastClient()
	ctx := context.Background()
	type op struct {
		node, sub string
		pt        types.PatchType
		body      []byte
	}
	var ops []op
	beat := fmt.Sprintf(`{"status":{"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":%q}]}}`, time.Now().UTC().Format(time.RFC3339))
	relabelled, beats := 0, 0
	for i, n := range nodes {
		if i%100 == 0 {
			ops = append(ops, op{node: n, pt: types.MergePatchType, body: []byte(`{"metadata":{"labels":{"e2e.daemonplan.io/steady-relabel":"1"}}}`)})
			relabelled++
		}
		if i%10 == 5 {
			ops = append(ops, op{node: n, sub: "status", pt: types.StrategicMergePatchType, body: []byte(beat)})
			beats++
		}
	}
	apply := func(ops []op) {
		e.t.Helper()
		errs := parallel(len(ops), 64, func(i int) error {
			o := ops[i]
			var subs []string
			if o.sub != "" {
				subs = []string{o.sub}
			}
			_, err := cs.CoreV1().Nodes().Patch(ctx, o.node, o.pt, o.body, metav1.PatchOptions{}, subs...)
			return err
		})
		if errs != nil {
			e.t.Fatalf("steady phase: %d patches of nodes failed, the first: %v", len(errs), errs[0])
		}
	}
	apply(ops)

	k := max(3, len(nodes)/1000)
	taint := fmt.Sprintf(`{"spec":{"taints":[{"key":%q,"value":%q,"effect":%q}]}}`, steadyTaint.Key, steadyTaint.Value, steadyTaint.Effect)
	var tainting, untainting []op
	for i := range k {
		n := nodes[(i*len(nodes)/k+7)%len(nodes)]
		tainting = append(tainting, op{node: n, pt: types.MergePatchType, body: []byte(taint)})
		untainting = append(untainting, op{node: n, pt: types.MergePatchType, body: []byte(`{"spec":{"taints":null}}`)})
	}
	apply(tainting)
	// The taints stay until the DaemonSet's status counts the k nodes out
	// (desired less k, k misscheduled) or for at most 10 seconds:
	// kube-controller-manager 1.37 never does, for it syncs a DaemonSet on
	// a node update only when a pod must be created or deleted there, or
	// when its status already counts misscheduled pods (syncNodeUpdate).
	want, tainted := int32(len(nodes)-k), time.Now()
	counted := "not within 10s"
	for time.Since(tainted) < 10*time.Second {
		ds, err := e.admin.AppsV1().DaemonSets(testNamespace).Get(ctx, "agent", metav1.GetOptions{})
		if err != nil {
			e.t.Fatalf("daemonset agent: %v", err)
		}
		if st := ds.Status; st.DesiredNumberScheduled == want && st.NumberMisscheduled == int32(k) {
			counted = "after " + sec(time.Since(tainted))
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	apply(untainting)
	return fmt.Sprintf("%d patches: %d relabels, %d heartbeats, %d taints and %d untaints (%s; the status counted the tainted nodes out %s)",
		len(ops)+2*k, relabelled, beats, k, k, steadyTaint.ToString(), counted)
}

// joinTimeline follows the pods of app on the joined nodes and records
// when the first was created and when the last was created, bound and
// available, and how many the scheduler first found unschedulable
// (PodScheduled False: their node not yet in its cache, for one), with the
// first such message.
type joinTimeline struct {
	monitorCore
	app                                  string
	joined                               map[string]bool
	t0                                   time.Time       // the start of the join
	created, bound, avail, unschedulable map[string]bool // by node
	why                                  string
	first                                time.Duration
	last                                 [3]time.Duration // created, bound, available
}

// startJoinTimeline watches the pods of the test namespace until the end
// of the test.
func (c *cluster) startJoinTimeline(app string, joined []string) *joinTimeline {
	c.t.Helper()
	tl := &joinTimeline{app: app, joined: nodeSet(joined), created: map[string]bool{}, bound: map[string]bool{}, avail: map[string]bool{}, unschedulable: map[string]bool{}, t0: time.Now()}
	c.watchPods(tl.start(), &tl.monitorCore, c.fastClient(), "join timeline", func([]corev1.Pod) {}, tl.observe)
	c.t.Cleanup(tl.halt)
	return tl
}

// begin sets the time the join started.
func (tl *joinTimeline) begin(t time.Time) {
	tl.mu.Lock()
	tl.t0 = t
	tl.mu.Unlock()
}

func (tl *joinTimeline) observe(typ watch.EventType, p *corev1.Pod) {
	node := targetNode(p)
	if typ == watch.Deleted || p.Labels["app"] != tl.app || !tl.joined[node] {
		return
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.events++
	now := time.Since(tl.t0)
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && !tl.unschedulable[node] {
			tl.unschedulable[node] = true
			if tl.why == "" {
				tl.why = c.Reason + ": " + c.Message
			}
		}
	}
	for i, s := range []struct {
		set map[string]bool
		ok  bool
	}{{tl.created, true}, {tl.bound, p.Spec.NodeName != ""}, {tl.avail, available(p)}} {
		if !s.ok || s.set[node] {
			continue
		}
		if i == 0 && len(s.set) == 0 {
			tl.first = now
		}
		s.set[node] = true
		if len(s.set) == len(tl.joined) {
			tl.last[i] = now
		}
	}
}

// report stops the timeline and renders it, with the time the node
// creates took and the time to converge; it also keeps it for the
// timeline table.
func (tl *joinTimeline) report(created, converged time.Duration, controller string) string {
	tl.halt()
	tl.mu.Lock()
	defer tl.mu.Unlock()
	r := joinTimelineRow{joined: len(tl.joined), controller: controller, created: created, first: tl.first, last: tl.last, converged: converged,
		unschedulable: len(tl.unschedulable), why: tl.why}
	resultsMu.Lock()
	joinTimelineRows = append(joinTimelineRows, r)
	resultsMu.Unlock()
	return r.String()
}

// joinTimelineRow is one join's timeline, from the first node create.
type joinTimelineRow struct {
	joined     int
	controller string
	created    time.Duration // the last node create answered
	first      time.Duration // the first pod on a joined node created
	last       [3]time.Duration
	converged  time.Duration
	// unschedulable: pods the scheduler first turned away; why: the first's reason and message
	unschedulable int
	why           string
}

func (r joinTimelineRow) String() string {
	rate := 0.0
	if d := r.last[0] - r.first; d > 0 {
		rate = float64(r.joined) / d.Seconds()
	}
	return fmt.Sprintf("%d nodes created in %s; their first pod created at %s, the last at %s (%.0f creates/s), bound at %s, available at %s; DaemonSet settled at %s; %d pods first found unschedulable (%q)",
		r.joined, sec(r.created), sec(r.first), sec(r.last[0]), rate, sec(r.last[1]), sec(r.last[2]), sec(r.converged), r.unschedulable, r.why)
}

func sec(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// cpuSummary renders CPU seconds by process, in a fixed order.
func cpuSummary(cpu map[string]time.Duration) string {
	keys := make([]string, 0, len(cpu))
	for k := range cpu {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.1f", k, cpu[k].Seconds())
	}
	return strings.Join(parts, ", ")
}

// printPhaseUsage writes TestScaleJoin's CPU by process and phase, and the
// joins' timelines, in Markdown; the caller holds resultsMu.
func printPhaseUsage(w io.Writer) {
	if len(phaseUsageRows) == 0 {
		return
	}
	cols := append([]string{"controller"}, controlPlaneNames...)
	cols = append(cols, testProcessName)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| nodes | phase | cluster of | wall s | %s CPU s |\n", strings.Join(cols, " CPU s | "))
	fmt.Fprintln(w, "|---:|---|---|---:|"+strings.Repeat("---:|", len(cols)))
	rows := append([]phaseUsageRow(nil), phaseUsageRows...)
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].nodes != rows[j].nodes {
			return rows[i].nodes < rows[j].nodes
		}
		return phaseOrder[rows[i].phase] < phaseOrder[rows[j].phase]
	})
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %.1f |", shape(r.nodes, r.joined), r.phase, r.controller, r.wall.Seconds())
		for _, c := range cols {
			fmt.Fprintf(w, " %.1f |", r.cpu[c].Seconds())
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| joined | cluster of | nodes created | first pod created | last created | last bound | last available | settled | first unschedulable |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range joinTimelineRows {
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %s | %s | %d |\n", r.joined, r.controller, sec(r.created), sec(r.first), sec(r.last[0]), sec(r.last[1]), sec(r.last[2]), sec(r.converged), r.unschedulable)
	}
}
