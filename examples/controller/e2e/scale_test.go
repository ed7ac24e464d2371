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

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
)

// scaleNodesEnv sets the size of TestScale; CI runs the default.
const (
	scaleNodesEnv     = "E2E_SCALE_NODES"
	defaultScaleNodes = 2000
)

// exampleFlagsEnv adds flags to the example controller of the side-by-side
// scenarios, to compare settings by hand, for example
// E2E_EXAMPLE_FLAGS="--status-write-interval=-1s --sync-interval=-1s" for
// a write and a sync per change, as kube-controller-manager.
const exampleFlagsEnv = "E2E_EXAMPLE_FLAGS"

// extraExampleFlags returns the flags of E2E_EXAMPLE_FLAGS, split at
// spaces.
func extraExampleFlags() []string { return strings.Fields(os.Getenv(exampleFlagsEnv)) }

// scaleNodes returns the number of nodes of TestScale.
func scaleNodes(t *testing.T) int {
	t.Helper()
	v := os.Getenv(scaleNodesEnv)
	if v == "" {
		return defaultScaleNodes
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 10 {
		t.Fatalf("%s=%q: want a number of nodes, at least 10", scaleNodesEnv, v)
	}
	return n
}

// TestScale: a DaemonSet is placed on N kwok nodes (2,000, or
// E2E_SCALE_NODES), then rolled out to a new template with maxUnavailable
// 10%, by each controller on a fresh cluster. At every pod watch event of
// the placement no node has two pods of it, no pod is for a node outside
// the N or for none, and no more pods were created than N; at every event
// of the rollout at most 10% of the nodes lack an available pod and none
// has two. Each phase records the time to converge, the controller
// process's CPU seconds (from /proc, its own accounting), its peak resident
// memory, its API writes (audit log) and its syncs with their durations
// (its /metrics); the control plane's CPU and peak memory are logged too.
// Each controller runs as it is deployed, from its own executable, which
// TestScale builds first (buildDeployed), not as the test binary in a role
// as in the other scenarios: that binary holds the whole control plane,
// and the pages of it every process maps would count in the controller's
// resident memory. TestMain prints the scale table.
func TestScale(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e: the scale scenario is not a -short scenario")
	}
	n := scaleNodes(t)
	bins := buildDeployed(t)
	sideBySideOf(t, bins.controllers(), fmt.Sprintf("scale-%d", n), func(e *env) outcome { return runScale(e, n, bins) })
}

// scaleRow is one line of the scale table: one phase of one controller.
type scaleRow struct {
	nodes int
	// joined is the number of nodes a TestScaleJoin run added to the
	// nodes; 0 in TestScale.
	joined     int
	controller string
	phase      string
	converge   time.Duration
	cpu        time.Duration
	peak       int64 // VmHWM
	peakAnon   int64 // the largest RssAnon sampled
	writes     map[string]int
	syncs      syncStats
}

// controlPlaneRow is what one control-plane component used over a whole
// scale run.
type controlPlaneRow struct {
	nodes      int
	joined     int // as scaleRow's
	controller string
	component  string
	usage      usage
}

// The phases of TestScale and TestScaleJoin, in the order they run
// (TestScaleJoin's placement is phasePlacement).
const (
	phasePlacement = "placement"
	phaseRollout   = "rollout 10%"
	phaseJoin      = "join"
	phaseSteady    = "steady"
)

var phaseOrder = map[string]int{phasePlacement: 0, phaseRollout: 1, phaseJoin: 2, phaseSteady: 3}

var (
	scaleRows        []scaleRow
	controlPlaneRows []controlPlaneRow
)

func runScale(e *env, n int, bins deployedBinaries) outcome {
	nodes := make([]nodeSpec, n)
	for i := range nodes {
		nodes[i] = nodeSpec{name: fmt.Sprintf("node-%05d", i)}
	}
	want := names(nodes)
	e.addManyNodes(nodes)
	timeout := 3*time.Minute + time.Duration(n)*100*time.Millisecond

	p := e.controllerProcess()
	anon := e.sampleAnon(p)
	u0, s0 := e.usage(p), e.syncStats(p)
	w0 := e.writes()
	e.t.Logf("scale %d/%s: before the DaemonSet (%d nodes created): CPU %.1fs, RSS %s", n, e.ctl.name, n, u0.cpu.Seconds(), mib(u0.rss))

	// Placement.
	m := e.startScaleMonitor("agent", want, -1)
	start := time.Now()
	budget := intstr.FromString("10%")
	zero := intstr.FromInt32(0)
	e.createDaemonSet(newDaemonSet("agent", func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{
			Type:          appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &budget, MaxSurge: &zero},
		}
	}))
	e.convergeAtScale("agent", want, timeout)
	placed := time.Since(start)
	v1, ev1 := m.stopAndReport()
	u1, s1, w1 := e.usage(p), e.syncStats(p), e.writes()
	anon1 := anon.max()

	// Rollout.
	maxUnavailable := n / 10
	m = e.startScaleMonitor("agent", want, maxUnavailable)
	start = time.Now()
	e.setImage("agent", "example.invalid/agent:v2")
	st, place := e.convergeAtScale("agent", want, timeout)
	rolled := time.Since(start)
	v2, ev2 := m.stopAndReport()
	u2, s2, w2 := e.usage(p), e.syncStats(p), e.writes()
	anon2 := anon.max()

	rows := []scaleRow{
		{nodes: n, controller: e.ctl.name, phase: phasePlacement, converge: placed, cpu: u1.cpu - u0.cpu, peak: u1.peak, peakAnon: anon1, writes: minus(w1, w0), syncs: s1.since(s0)},
		{nodes: n, controller: e.ctl.name, phase: phaseRollout, converge: rolled, cpu: u2.cpu - u1.cpu, peak: u2.peak, peakAnon: anon2, writes: minus(w2, w1), syncs: s2.since(s1)},
	}
	u2.anon = anon2 // the peak, for the table
	e.recordScale(rows, e.controlPlaneRows(n, 0, bins, p, u2))
	return outcome{placement: place, status: st, converge: placed + rolled, violations: append(v1, v2...), events: ev1 + ev2}
}

// controlPlaneRows measures the floors of the test binary and of the
// controller's own binary, and reads what etcd, kube-apiserver,
// kube-scheduler and kwok have used so far; the last row is the
// controller p's usage u over its whole run (u.anon its peak).
func (e *env) controlPlaneRows(n, joined int, bins deployedBinaries, p *process, u usage) []controlPlaneRow {
	e.t.Helper()
	var cp []controlPlaneRow
	own, ownRole := bins.example, roleExample
	if e.ctl.name == "upstream" {
		own, ownRole = bins.upstream, roleControllerManager
	}
	for i, f := range []struct{ bin, role string }{{"", roleExample}, {own, ownRole}} {
		floor := e.binaryFloor(fmt.Sprintf("binary-floor-%d", i), f.bin, f.role)
		cp = append(cp, controlPlaneRow{nodes: n, joined: joined, controller: e.ctl.name, component: floorName(f.bin), usage: floor})
	}
	for _, name := range controlPlaneNames {
		if proc := e.procs[name]; proc != nil {
			cp = append(cp, controlPlaneRow{nodes: n, joined: joined, controller: e.ctl.name, component: name, usage: e.usage(proc)})
		}
	}
	return append(cp, controlPlaneRow{nodes: n, joined: joined, controller: e.ctl.name, component: p.name + " (whole run)", usage: u})
}

// controlPlaneNames are the processes of the control plane, by name.
var controlPlaneNames = []string{"etcd", "kube-apiserver", "kube-scheduler", "kwok"}

// recordScale logs the rows and adds them to the scale table.
func (e *env) recordScale(rows []scaleRow, cp []controlPlaneRow) {
	for _, r := range rows {
		e.t.Logf("scale %s/%s %s: converged in %s, CPU %.1fs, peak RSS %s (anonymous %s), %d API writes (%s), syncs %s",
			shape(r.nodes, r.joined), r.controller, r.phase, r.converge.Round(time.Millisecond), r.cpu.Seconds(), mib(r.peak), mib(r.peakAnon), total(r.writes), summary(r.writes), r.syncs)
	}
	for _, r := range cp {
		e.t.Logf("scale %s/%s: %s used CPU %.1fs, peak RSS %s, anonymous %s", shape(r.nodes, r.joined), r.controller, r.component, r.usage.cpu.Seconds(), mib(r.usage.peak), mib(r.usage.anon))
	}
	resultsMu.Lock()
	scaleRows = append(scaleRows, rows...)
	controlPlaneRows = append(controlPlaneRows, cp...)
	resultsMu.Unlock()
}

// shape renders a cluster's size: "2000", or "20000+5000" for a
// TestScaleJoin run (nodes, then the nodes that joined).
func shape(nodes, joined int) string {
	if joined == 0 {
		return strconv.Itoa(nodes)
	}
	return fmt.Sprintf("%d+%d", nodes, joined)
}

// controllerProcess returns the process of the controller under test now
// running (see startExample and startUpstream for the names).
func (e *env) controllerProcess() *process {
	e.t.Helper()
	format := map[string]string{"example": "example-controller-%d", "upstream": "kube-controller-manager-%d"}[e.ctl.name]
	p := e.procs[fmt.Sprintf(format, e.runs)]
	if p == nil {
		e.t.Fatalf("no process for the %s controller, run %d", e.ctl.name, e.runs)
	}
	return p
}

// minus returns the counts of a less those of b.
func minus(a, b map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range a {
		if d := v - b[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// fastClient is an admin client for bulk work: protobuf, and rate limits
// that do not make the test itself the bottleneck.
func (c *cluster) fastClient() kubernetes.Interface {
	c.t.Helper()
	cfg := c.restConfig(adminUser, 2000, 2000)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		c.t.Fatalf("fast client: %v", err)
	}
	return cs
}

// addManyNodes creates the nodes (createNodes) and waits until kwok
// reports every one Ready, listing them every two seconds (every half
// millisecond per node beyond 4,000: a list of 20,000 nodes is tens of
// megabytes the API server encodes), for at most 5 minutes (30 ms per node
// beyond 10,000).
func (c *cluster) addManyNodes(specs []nodeSpec) {
	c.t.Helper()
	cs := c.fastClient()
	ctx := context.Background()
	start := time.Now()
	c.createNodes(specs)
	want := make(map[string]bool, len(specs))
	for _, s := range specs {
		want[s.name] = true
	}
	every := max(2*time.Second, time.Duration(len(specs))*time.Millisecond/2)
	wait := max(5*time.Minute, time.Duration(len(specs))*30*time.Millisecond)
	ready := 0
	deadline := time.Now().Add(wait)
	for {
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err == nil {
			ready = 0
			for i := range nodes.Items {
				if want[nodes.Items[i].Name] && nodeReady(&nodes.Items[i]) {
					ready++
				}
			}
			if ready == len(want) {
				c.t.Logf("%d nodes created and Ready in %s", len(want), time.Since(start).Round(time.Millisecond))
				return
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("nodes Ready: %d of %d after %s (last error: %v)", ready, len(want), wait, err)
		}
		time.Sleep(every)
	}
}

// createNodes creates the nodes, 64 at a time, with fastClient, and
// returns when the last create has been answered.
func (c *cluster) createNodes(specs []nodeSpec) {
	c.t.Helper()
	cs := c.fastClient()
	ctx := context.Background()
	errs := parallel(len(specs), 64, func(i int) error {
		_, err := cs.CoreV1().Nodes().Create(ctx, specs[i].node(), metav1.CreateOptions{})
		return err
	})
	if errs != nil {
		c.t.Fatalf("creating nodes: %d errors, the first: %v", len(errs), errs[0])
	}
}

// convergeAtScale waits until the DaemonSet has settled on want, as
// converge does, without listing every pod four times a second: it reads
// the DaemonSet until its status says settled (observed generation, every
// counter at len(want)), then checks the pods once (settled), and goes on
// reading while they disagree. It returns the status (without conditions)
// and the placement.
func (c *cluster) convergeAtScale(name string, want []string, timeout time.Duration) (appsv1.DaemonSetStatus, placement) {
	c.t.Helper()
	ctx := context.Background()
	n := int32(len(want))
	deadline := time.Now().Add(timeout)
	why := ""
	for time.Now().Before(deadline) {
		ds, err := c.admin.AppsV1().DaemonSets(testNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			why = err.Error()
		} else if st := ds.Status; st.ObservedGeneration != ds.Generation || st.DesiredNumberScheduled != n ||
			st.CurrentNumberScheduled != n || st.UpdatedNumberScheduled != n || st.NumberReady != n ||
			st.NumberAvailable != n || st.NumberMisscheduled != 0 {
			why = fmt.Sprintf("status %+v, want %d everywhere at generation %d", st, n, ds.Generation)
		} else {
			ok, reason, ds, place := c.settled(name, want)
			if ok {
				st := ds.Status
				st.Conditions = nil
				return st, place
			}
			why = reason
			time.Sleep(time.Second)
			continue
		}
		time.Sleep(250 * time.Millisecond)
	}
	c.t.Fatalf("daemonset %s settled: not reached after %s: %s", name, timeout, why)
	return appsv1.DaemonSetStatus{}, nil
}

// printScaleTable writes the scale table and the control plane's usage in
// Markdown, when TestScale or TestScaleJoin ran, and TestScaleJoin's
// usage by phase (printPhaseUsage).
func printScaleTable(w io.Writer) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	if len(scaleRows) == 0 {
		return
	}
	fmt.Fprintln(w)
	rows := append([]scaleRow(nil), scaleRows...)
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.nodes != b.nodes {
			return a.nodes < b.nodes
		}
		if a.joined != b.joined {
			return a.joined < b.joined
		}
		return phaseOrder[a.phase] < phaseOrder[b.phase]
	})
	fmt.Fprintln(w, "| nodes | phase | controller | converged in | CPU s | peak RSS (anonymous) | API writes | writes by kind | syncs, mean, p50/p90/p99 bound |")
	fmt.Fprintln(w, "|---:|---|---|---:|---:|---:|---:|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %.1fs | %.1f | %s (%s) | %d | %s | %s |\n", shape(r.nodes, r.joined), r.phase, r.controller,
			r.converge.Seconds(), r.cpu.Seconds(), mib(r.peak), mib(r.peakAnon), total(r.writes), strings.ReplaceAll(summary(r.writes), "|", "/"), r.syncs)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| nodes | cluster of | process | CPU s (whole run) | peak RSS | anonymous (at the end; the controller's: peak) |")
	fmt.Fprintln(w, "|---:|---|---|---:|---:|---:|")
	for _, r := range controlPlaneRows {
		fmt.Fprintf(w, "| %s | %s | %s | %.1f | %s | %s |\n", shape(r.nodes, r.joined), r.controller, r.component, r.usage.cpu.Seconds(), mib(r.usage.peak), mib(r.usage.anon))
	}
	printPhaseUsage(w)
}
