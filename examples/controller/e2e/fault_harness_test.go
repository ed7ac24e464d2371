package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The rollout every fault scenario disturbs: faultNodes desired nodes (and
// two the nodeSelector excludes), a RollingUpdate of maxUnavailable
// faultMaxUnavailable and no surge, so that a wave deletes and creates
// several pods in one sync.
const (
	faultNodes          = 18
	faultMaxUnavailable = 3
	// faultTimeout bounds the rollout under a fault, and every wait for an
	// action to inject it at.
	faultTimeout = 4 * time.Minute
)

// faultTarget is a DaemonSet controller a fault scenario starts, kills and
// starts again, always as its own process.
type faultTarget struct {
	name string
	// prefix names its processes: prefix-1, prefix-2, ….
	prefix string
	// start runs one instance; extra flags follow (and override) its usual
	// ones.
	start func(c *cluster, name string, extra ...string) *process
	// leaderElect are the flags of a replica under leader election.
	leaderElect []string
	// verbose make it log client-go's reflector at level 4 (watch closed,
	// too old resource version) as well as its relists.
	verbose []string
}

// faultTargets are run, in this order, on a fresh cluster each for every
// fault: the example controller in replace mode and kube-controller-
// manager's DaemonSet controller alone, both with the flags of the
// side-by-side scenarios.
var faultTargets = []faultTarget{
	{
		name: "example", prefix: "example-controller",
		start: func(c *cluster, name string, extra ...string) *process {
			return c.startExampleProcess(name, extra...)
		},
		leaderElect: []string{"--leader-elect"},
		verbose:     []string{"-v=4"},
	},
	{
		name: "upstream", prefix: "kube-controller-manager",
		start: func(c *cluster, name string, extra ...string) *process {
			return c.startControllerManagerWith(name, extra...)
		},
		leaderElect: []string{"--leader-elect=true"},
		verbose:     []string{"--v=4"},
	},
}

// startControllerManagerWith is startControllerManager with extra flags
// after its own.
func (c *cluster) startControllerManagerWith(name string, extra ...string) *process {
	c.t.Helper()
	saved := c.extraArgs[roleControllerManager]
	c.extraArgs[roleControllerManager] = append(saved[:len(saved):len(saved)], extra...)
	defer func() { c.extraArgs[roleControllerManager] = saved }()
	return c.startControllerManager(name)
}

// kill sends SIGKILL and waits until the process is gone.
func (p *process) kill() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// respawn starts the component name again with the role and flags it was
// started with (same ports, same data directory), after it has stopped;
// its output goes to a new log, and the old process stays listed for the
// logs dumped when the test fails.
func (c *cluster) respawn(name string) *process {
	c.t.Helper()
	old := c.procs[name]
	if !old.exited() {
		c.t.Fatalf("respawn %s: still running", name)
	}
	n := 1
	for c.procs[fmt.Sprintf("%s-before-restart-%d", name, n)] != nil {
		n++
	}
	c.procs[fmt.Sprintf("%s-before-restart-%d", name, n)] = old
	tmp := fmt.Sprintf("%s-restart-%d", name, n)
	p := c.start(tmp, old.role, old.args...)
	delete(c.procs, tmp)
	c.procs[name] = p
	return p
}

// faultEnv is one fault scenario's run against one controller.
type faultEnv struct {
	*cluster
	target faultTarget
	// extra are flags every instance of the controller gets.
	extra []string
	// instances are the controller's processes, in start order.
	instances []*process
	// sw watches the store from the moment the rollout starts.
	sw *storeWatch
	// injected counts the faults injected; notes say what and when.
	injected int
	notes    []string

	// State of particular faults: the watch cutter the controller reaches
	// the API server through, the length of each instance's log when the
	// first fault came, a counter read when the rollout started.
	cutter        *watchCutter
	marks         map[*process]int
	baseline      int
	baselineAudit int
}

// startInstance starts one more instance of the controller, with extra
// flags after the env's.
func (f *faultEnv) startInstance(extra ...string) *process {
	f.t.Helper()
	name := fmt.Sprintf("%s-%d", f.target.prefix, len(f.instances)+1)
	p := f.target.start(f.cluster, name, append(append([]string(nil), f.extra...), extra...)...)
	f.instances = append(f.instances, p)
	return p
}

// current is the newest instance.
func (f *faultEnv) current() *process { return f.instances[len(f.instances)-1] }

func (f *faultEnv) note(format string, args ...any) {
	f.notes = append(f.notes, fmt.Sprintf(format, args...))
}

// atEachAction injects one fault at each action of moments in turn, as
// soon as the store watch sees it: each action counts only when seen after
// the moment the previous inject returned (the first, after the watch
// began). It counts each injection. When an action does not come within
// timeout it fails the test, naming the fault by name, and stops. It
// returns the note of each injection, as inject gave it.
func (f *faultEnv) atEachAction(name string, moments []string, timeout time.Duration, inject func(ev faultEvent) (next time.Time, note string)) []string {
	f.t.Helper()
	var notes []string
	after := time.Time{}
	for i, kind := range moments {
		ev, ok := f.sw.next(kind, after, timeout)
		if !ok {
			f.t.Errorf("%s %d: no %s action of the controller within %s", name, i+1, kind, timeout)
			break
		}
		var note string
		after, note = inject(ev)
		f.injected++
		notes = append(notes, note)
	}
	return notes
}

// logOf returns what the process has logged so far.
func logOf(p *process) string {
	data, _ := os.ReadFile(p.log)
	return string(data)
}

// faultScenario is one kind of fault, injected into the same rollout for
// each controller.
type faultScenario struct {
	kind string
	// upstreamMayBreak, when set, says why kube-controller-manager is
	// known to break a bound under this fault: its violations are then
	// reported, not failures. The example controller's always fail.
	upstreamMayBreak string
	// cluster are the options of its clusters.
	cluster []clusterOption
	// setup runs on the fresh cluster before the controller starts.
	setup func(f *faultEnv)
	// start starts the controller; nil starts one instance.
	start func(f *faultEnv)
	// inject runs once the template has changed, while the rollout runs;
	// it returns when it has injected its faults.
	inject func(f *faultEnv)
	// verify runs once the rollout has converged, to prove the fault had
	// its effect (count 429s, relists); it may fail the test.
	verify func(f *faultEnv)
}

// faultOutcome is what one controller's run of a fault scenario ends with.
type faultOutcome struct {
	outcome
	// broken counts the pod states that broke a bound (violations shows
	// the first few).
	broken    int
	injected  int
	notes     []string
	revisions []string
}

// faultRow is one line of the fault table.
type faultRow struct {
	kind, controller string
	o                faultOutcome
}

var (
	faultRows  []faultRow
	faultTally passFailTally
)

// addFaultRow adds r to the fault table.
func addFaultRow(r faultRow) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	faultRows = append(faultRows, r)
}

// countFault adds t's result to the fault tally.
func countFault(t *testing.T) { faultTally.count(t) }

// runFault runs sc once per controller of faultTargets, each on a fresh
// cluster: faultNodes nodes and two excluded ones, a DaemonSet placed at v1,
// then a rollout to v2 into which sc injects its faults. Every pod state
// committed to etcd during the rollout is checked against the bounds of
// rolloutCheck; the rollout must converge within faultTimeout, leave no
// pod or revision behind, and end as kube-controller-manager's does.
func runFault(t *testing.T, sc faultScenario) {
	got := map[string]faultOutcome{}
	for _, tgt := range faultTargets {
		t.Run(tgt.name, func(t *testing.T) {
			countResult(t)
			countFault(t)
			c := newCluster(t, sc.cluster...)
			f := &faultEnv{cluster: c, target: tgt}
			o := f.run(sc)
			for _, v := range o.violations {
				if tgt.name == "upstream" && sc.upstreamMayBreak != "" {
					t.Logf("safety bound broken by kube-controller-manager (known: %s): %s", sc.upstreamMayBreak, v)
					continue
				}
				t.Errorf("safety bound broken: %s", v)
			}
			t.Logf("fault %s/%s: %d injected (%s); converged in %s; %d API writes (%s); %d pod states checked",
				sc.kind, tgt.name, o.injected, strings.Join(o.notes, "; "), o.converge.Round(100*time.Millisecond),
				total(o.writes), summary(o.writes), o.events)
			got[tgt.name] = o
			addFaultRow(faultRow{kind: sc.kind, controller: tgt.name, o: o})
		})
	}
	ex, up, ok := exampleAndUpstream(got)
	if !ok {
		return
	}
	countResult(t)
	countFault(t)
	compareWithUpstream(t, "fault "+sc.kind, ex.outcome, up.outcome)
	if d := cmp.Diff(up.revisions, ex.revisions); d != "" {
		t.Errorf("fault %s: ControllerRevisions (-upstream +example):\n%s", sc.kind, d)
	}
}

func (f *faultEnv) run(sc faultScenario) faultOutcome {
	f.t.Helper()
	if sc.setup != nil {
		sc.setup(f)
	}
	pool := map[string]string{"pool": "a"}
	nodes := workers("node", faultNodes, pool)
	f.addNodes(append(workers("excluded", 2, map[string]string{"pool": "b"}), nodes...)...)
	f.createDaemonSet(newDaemonSet("agent", nodeSelector(pool), rolling(faultMaxUnavailable, 0)))
	if sc.start != nil {
		sc.start(f)
	} else {
		f.startInstance()
	}
	want := names(nodes)
	f.converge("agent", want, faultTimeout)

	f.sw = f.startStoreWatch(rolloutCheck("agent", want, faultMaxUnavailable, 1))
	begin := time.Now()
	f.setImage("agent", "example.invalid/agent:v2")
	sc.inject(f)
	_, st, place := f.converge("agent", want, faultTimeout)
	took := time.Since(begin)
	for _, l := range f.leftovers("agent", 2) {
		f.t.Errorf("left behind: %s", l)
	}
	violations, broken, events := f.sw.stopAndCount()
	if sc.verify != nil {
		sc.verify(f)
	}
	return faultOutcome{
		outcome:   outcome{placement: place, status: st, converge: took, writes: f.writes(), violations: violations, events: events},
		broken:    broken,
		injected:  f.injected,
		notes:     f.notes,
		revisions: f.revisionsOf("agent"),
	}
}

// rolloutCheck is the safety bound of a rolling update without surge,
// evaluated on every pod state: at most maxUnavailable of the desired
// nodes without an available pod of app, at most maxPerNode pods of app for
// one node (by the node a pod is bound or pinned to, terminating pods
// included, as the controller counts them: a pod that has finished and is
// being deleted no longer does), and no pod of app for a node outside
// desired or for no node at all.
func rolloutCheck(app string, desired []string, maxUnavailable, maxPerNode int) func(map[string]*corev1.Pod) string {
	want := nodeSet(desired)
	return func(pods map[string]*corev1.Pod) string {
		avail := map[string]bool{}
		count := map[string]int{}
		names := make([]string, 0, len(pods))
		for name := range pods {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			p := pods[name]
			if p.Labels["app"] != app {
				continue
			}
			n, v := placedNode(p, want)
			if v != "" {
				return v
			}
			finished := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
			if !(finished && p.DeletionTimestamp != nil) {
				count[n]++
				if count[n] > maxPerNode {
					return fmt.Sprintf("node %s has %d pods, at most %d allowed", n, count[n], maxPerNode)
				}
			}
			if available(p) {
				avail[n] = true
			}
		}
		return unavailableViolation(desired, avail, maxUnavailable)
	}
}

// leftovers waits until no pod of the namespace is terminating and then
// lists what a converged DaemonSet app must not leave behind: a pod or a
// ControllerRevision it does not control, two revisions of one hash, or
// another number of revisions than revisions.
func (c *cluster) leftovers(app string, revisions int) []string {
	c.t.Helper()
	ctx := context.Background()
	c.eventually("terminating pods gone", faultTimeout, func() (bool, string) {
		for _, p := range c.pods() {
			if p.DeletionTimestamp != nil {
				return false, fmt.Sprintf("pod %s is terminating", p.Name)
			}
		}
		return true, ""
	})
	ds := c.daemonSet(app)
	var out []string
	for _, p := range c.pods() {
		if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != ds.UID {
			out = append(out, fmt.Sprintf("pod %s is not controlled by daemonset %s", p.Name, app))
		}
	}
	list, err := c.admin.AppsV1().ControllerRevisions(testNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("listing controller revisions: %v", err)
	}
	hashes := map[string]string{}
	for _, r := range list.Items {
		if ref := metav1.GetControllerOf(&r); ref == nil || ref.UID != ds.UID {
			out = append(out, fmt.Sprintf("controllerrevision %s is not controlled by daemonset %s", r.Name, app))
		}
		h := r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
		if other, ok := hashes[h]; ok {
			out = append(out, fmt.Sprintf("controllerrevisions %s and %s have hash %s", other, r.Name, h))
		}
		hashes[h] = r.Name
	}
	if len(list.Items) != revisions {
		out = append(out, fmt.Sprintf("%d controllerrevisions, want %d", len(list.Items), revisions))
	}
	return out
}

// revisionsOf returns the DaemonSet's revisions as "number:hash", by
// number.
func (c *cluster) revisionsOf(app string) []string {
	c.t.Helper()
	list, err := c.admin.AppsV1().ControllerRevisions(testNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("listing controller revisions: %v", err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Revision < list.Items[j].Revision })
	var out []string
	for _, r := range list.Items {
		out = append(out, fmt.Sprintf("%d:%s", r.Revision, r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]))
	}
	return out
}

// printFaults writes the fault table in Markdown, one line per controller
// and fault, and the fault tally, when a fault scenario ran. The caller
// holds resultsMu.
func printFaults(w io.Writer) {
	if len(faultRows) == 0 {
		return
	}
	sorted := append([]faultRow(nil), faultRows...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].kind < sorted[j].kind })
	fmt.Fprintln(w, "| fault | controller | injected | violations | converged in | API writes | pod states checked | what was injected |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---|")
	for _, r := range sorted {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %.1fs | %d | %d | %s |\n", r.kind, r.controller, r.o.injected, r.o.broken,
			r.o.converge.Seconds(), total(r.o.writes), r.o.events, strings.ReplaceAll(strings.Join(r.o.notes, "; "), "|", "/"))
	}
	for _, r := range sorted {
		fmt.Fprintf(w, "fault %s controller=%s injected=%d violations=%d converged=%s\n", r.kind, r.controller, r.o.injected,
			r.o.broken, r.o.converge.Round(100*time.Millisecond))
	}
	passed, failed := faultTally.counts()
	fmt.Fprintf(w, "faults: %d passed, %d failed\n", passed, failed)
}
