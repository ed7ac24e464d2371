package e2e

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/companion"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

const zoneLabel = "topology.kubernetes.io/zone"

// rolloutTimeout bounds a companion rollout of a few dozen nodes, one or a
// few at a time.
const rolloutTimeout = 4 * time.Minute

func annotate(ann map[string]string) dsOption {
	return func(ds *appsv1.DaemonSet) {
		if ds.Annotations == nil {
			ds.Annotations = map[string]string{}
		}
		for k, v := range ann {
			ds.Annotations[k] = v
		}
	}
}

// zonedNodes returns perZone nodes in each zone, named <zone>-000, ….
func zonedNodes(zones []string, perZone int) []nodeSpec {
	var out []nodeSpec
	for _, z := range zones {
		out = append(out, workers(z, perZone, map[string]string{zoneLabel: z})...)
	}
	return out
}

// companionEnv is a fresh cluster with kube-controller-manager's DaemonSet
// controller and two companion replicas under the shipped RBAC.
type companionEnv struct {
	*cluster
	replicas []*replica
}

func newCompanionEnv(t *testing.T) *companionEnv {
	t.Helper()
	c := newCluster(t)
	dep := c.applyDeploy()
	c.startControllerManager("kube-controller-manager")
	e := &companionEnv{cluster: c}
	for _, name := range []string{"companion-a", "companion-b"} {
		e.replicas = append(e.replicas, c.startCompanion(name, dep))
	}
	return e
}

// startCompanionScenario begins a companion scenario: it counts t in the
// suite's totals and in the rollout tally, starts a companionEnv and adds
// perZone nodes in each of zones (zonedNodes), which it returns.
func startCompanionScenario(t *testing.T, zones []string, perZone int) (*companionEnv, []nodeSpec) {
	t.Helper()
	countResult(t)
	countRollout(t)
	e := newCompanionEnv(t)
	nodes := zonedNodes(zones, perZone)
	e.addNodes(nodes...)
	return e, nodes
}

// leaders returns the replicas that lead now.
func (e *companionEnv) leaders() []string {
	var out []string
	for _, r := range e.replicas {
		if r.leading.Load() {
			out = append(out, r.name)
		}
	}
	return out
}

func (c *cluster) daemonSet(name string) *appsv1.DaemonSet {
	c.t.Helper()
	ds, err := c.admin.AppsV1().DaemonSets(testNamespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		c.t.Fatalf("daemonset %s: %v", name, err)
	}
	return ds
}

func conditionOf(ds *appsv1.DaemonSet, t appsv1.DaemonSetConditionType) *appsv1.DaemonSetCondition {
	for i := range ds.Status.Conditions {
		if ds.Status.Conditions[i].Type == t {
			return &ds.Status.Conditions[i]
		}
	}
	return nil
}

// rolledOut reports whether the rollout of name is done, as kube-controller-
// manager and the companion both see it: status observed at the
// generation with every desired node updated and available, one Ready pod
// of the current revision on each wanted node and no other, and the
// companion's RolloutProgressing saying RolloutComplete for this
// generation.
func (c *cluster) rolledOut(name string, want []string) (bool, string) {
	return c.rolledOutAs(name, want, companion.ReasonComplete)
}

// rolledOutAs is rolledOut with the RolloutProgressing reason the
// companion reports once every node runs the current revision:
// ReasonComplete, or ReasonRolledBack after a rollback (a failed change
// until a person acknowledges it).
func (c *cluster) rolledOutAs(name string, want []string, reason string) (bool, string) {
	ds := c.daemonSet(name)
	st := ds.Status
	n := int32(len(want))
	if st.ObservedGeneration != ds.Generation || st.DesiredNumberScheduled != n || st.UpdatedNumberScheduled != n || st.NumberAvailable != n {
		return false, fmt.Sprintf("status at generation %d of %d: desired %d, updated %d, available %d (want %d)",
			st.ObservedGeneration, ds.Generation, st.DesiredNumberScheduled, st.UpdatedNumberScheduled, st.NumberAvailable, n)
	}
	hash := c.currentHash(ds)
	perNode := map[string]int{}
	for _, p := range c.pods() {
		if p.Labels["app"] != name || p.DeletionTimestamp != nil {
			continue
		}
		if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != hash || !podReady(&p) {
			return false, fmt.Sprintf("pod %s on %s: hash %s (want %s), ready %v", p.Name, p.Spec.NodeName, p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], hash, podReady(&p))
		}
		perNode[p.Spec.NodeName]++
	}
	for _, w := range want {
		if perNode[w] != 1 {
			return false, fmt.Sprintf("node %s has %d pods", w, perNode[w])
		}
	}
	p := conditionOf(ds, companion.ConditionProgressing)
	if p == nil || p.Reason != reason || !strings.HasSuffix(p.Message, fmt.Sprintf("(generation %d)", ds.Generation)) {
		return false, fmt.Sprintf("RolloutProgressing %+v", p)
	}
	return true, ""
}

// waitRolledOut waits, at most timeout, until the rollout of name is done
// on the nodes want (rolledOut); what names the wait in the failure.
func (c *cluster) waitRolledOut(what, name string, want []string, timeout time.Duration) {
	c.t.Helper()
	c.eventually(what, timeout, func() (bool, string) { return c.rolledOut(name, want) })
}

// zoneRolloutCheck is the safety bound of a companion rollout ordered by
// zone, evaluated on every pod event: at most maxUnavailable desired nodes
// without an available pod, at most one pod per node (kube-controller-
// manager deletes a second under OnDelete, and the companion never
// surges), and no node of a zone started (its old pod deleted) before
// every node of the earlier zones runs an available pod of the new
// revision. Old pods are those with oldHash. It records, in order, the
// nodes as they start. The function keeps state and serves one monitor.
func zoneRolloutCheck(app, oldHash string, nodes []nodeSpec, zones []string, maxUnavailable int, started *[]string) func(map[string]*corev1.Pod) string {
	desired := names(nodes)
	budget := budgetCheck(app, desired, maxUnavailable, 1)
	zoneOf := map[string]int{}
	for _, n := range nodes {
		zoneOf[n.name] = slices.Index(zones, n.labels[zoneLabel])
	}
	seen := map[string]bool{}
	return func(pods map[string]*corev1.Pod) string {
		if v := budget(pods); v != "" {
			return v
		}
		hasOld, updated := map[string]bool{}, map[string]bool{}
		for _, p := range pods {
			if p.Labels["app"] != app || p.DeletionTimestamp != nil {
				continue
			}
			if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == oldHash {
				hasOld[p.Spec.NodeName] = true
			} else if available(p) {
				updated[p.Spec.NodeName] = true
			}
		}
		var newly []string
		for _, n := range desired {
			if !hasOld[n] && !seen[n] {
				seen[n] = true
				newly = append(newly, n)
			}
		}
		sort.Strings(newly)
		*started = append(*started, newly...)
		for _, n := range newly {
			for _, m := range desired {
				if zoneOf[m] < zoneOf[n] && !updated[m] {
					return fmt.Sprintf("node %s (%s) started while %s (%s) has no available updated pod", n, zones[zoneOf[n]], m, zones[zoneOf[m]])
				}
			}
		}
		return ""
	}
}

// TestCompanionZoneRollout: beside kube-controller-manager's DaemonSet
// controller, the companion (two replicas, leader-elected, the shipped
// RBAC) rolls an OnDelete DaemonSet over 24 nodes in three zones, zone by
// zone, one node at a time (max-unavailable 1, order-by the zone label).
// On every pod event at most one desired node lacks an available pod and
// no zone starts before the earlier ones are done. The rollout completes;
// kube-controller-manager's status counters and the companion's conditions
// are both in the final status; the companion made no write beyond its
// role (no pod created, no revision, no status update) and no request of
// it was refused.
func TestCompanionZoneRollout(t *testing.T) {
	zones := []string{"zone-a", "zone-b", "zone-c"}
	e, nodes := startCompanionScenario(t, zones, 8)
	e.createDaemonSet(newDaemonSet("agent", onDelete(), annotate(map[string]string{
		progressive.AnnotationMaxUnavailable:   "1",
		progressive.AnnotationOrderBy:          zoneLabel,
		progressive.AnnotationProgressDeadline: "10m",
	})))
	e.converge("agent", names(nodes), 2*time.Minute)
	e.waitRolledOut("companion reports generation 1 complete", "agent", names(nodes), time.Minute)
	if l := e.leaders(); len(l) != 1 {
		t.Fatalf("leading replicas %q, want one", l)
	}

	oldHash := e.currentHash(e.daemonSet("agent"))
	var started []string
	m := e.startMonitor(zoneRolloutCheck("agent", oldHash, nodes, zones, 1, &started))
	sw := e.watchStatus("agent")
	start := time.Now()
	e.setImage("agent", "example.invalid/agent:v2")
	e.waitRolledOut("rollout to v2 complete", "agent", names(nodes), rolloutTimeout)
	took := time.Since(start)
	violations, events := m.stopAndFailOnViolations(t)
	statusViolations, statusEvents, messages := sw.stopAndReport()
	for _, v := range statusViolations {
		t.Errorf("status fields lost: %s", v)
	}
	if len(started) != len(nodes) {
		t.Errorf("%d nodes started, want %d: %q", len(started), len(nodes), started)
	}

	// Both writers' fields are in the final status.
	ds := e.daemonSet("agent")
	st := ds.Status
	if st.ObservedGeneration != ds.Generation || st.UpdatedNumberScheduled != 24 || st.NumberAvailable != 24 || st.DesiredNumberScheduled != 24 || st.CurrentNumberScheduled != 24 || st.NumberReady != 24 {
		t.Errorf("kube-controller-manager's counters: %+v", st)
	}
	for typ, want := range map[appsv1.DaemonSetConditionType]string{
		companion.ConditionProgressing: "True " + companion.ReasonComplete,
		companion.ConditionPaused:      "False " + companion.ReasonNotPaused,
		companion.ConditionBlocked:     "False " + companion.ReasonNotBlocked,
	} {
		c := conditionOf(ds, typ)
		if c == nil || string(c.Status)+" "+c.Reason != want {
			t.Errorf("%s = %+v, want %s", typ, c, want)
		}
	}

	// Who wrote what.
	kcm := e.writes()
	comp := e.auditOf(companionUser)
	for k, v := range comp {
		if strings.Contains(k, "(403)") {
			t.Errorf("the companion was refused: %s ×%d", k, v)
		}
	}
	compWrites := withoutReads(comp)
	for k, v := range compWrites {
		switch strings.SplitN(k, " (", 2)[0] {
		case "delete pods", "patch daemonsets/status", "create events", "patch events", "create leases", "update leases":
		default:
			t.Errorf("the companion wrote %s ×%d, outside its role", k, v)
		}
	}
	if compWrites["delete pods"] != 24 {
		t.Errorf("the companion deleted %d pods, want 24", compWrites["delete pods"])
	}
	if kcm["create pods"] < 48 || kcm["delete pods"] != 0 {
		t.Errorf("kube-controller-manager: %s", summary(kcm))
	}
	t.Logf("companion-zone-rollout: 24 nodes, 3 zones, max-unavailable 1: rolled out in %s, %d pod events checked, order %s",
		took.Round(100*time.Millisecond), events, strings.Join(started, " "))
	t.Logf("companion-zone-rollout: kube-controller-manager wrote %s", summary(kcm))
	t.Logf("companion-zone-rollout: the companion wrote %s", summary(compWrites))
	// Events are recorded after the conditions, and sent asynchronously.
	var waves []string
	e.eventually("one WaveComplete event per zone and one RolloutComplete", 20*time.Second, func() (bool, string) {
		waves = e.eventsOf("agent", syncer.ComponentName, "WaveComplete")
		done := e.eventsOf("agent", syncer.ComponentName, "RolloutComplete")
		return len(waves) == len(zones) && len(done) > 0 && strings.HasSuffix(done[len(done)-1], "(generation 2)"),
			fmt.Sprintf("WaveComplete %q, RolloutComplete %q", waves, done)
	})
	t.Logf("companion-zone-rollout: %d status events checked; RolloutProgressing messages seen: %q", statusEvents, messages)
	t.Logf("companion-zone-rollout: WaveComplete events: %q", waves)
	addRow(row{scenario: "companion-zone-rollout", controller: "companion+upstream",
		outcome: outcome{placement: placementOf(e.pods(), "agent"), status: st, converge: took, writes: mergeWrites(kcm, compWrites), violations: violations, events: events}})
}

// withoutReads returns the requests counted by auditOf but the reads (get,
// list, watch): what a user wrote.
func withoutReads(requests map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range requests {
		switch verb, _, _ := strings.Cut(k, " "); verb {
		case "get", "list", "watch":
			continue
		}
		out[k] = v
	}
	return out
}

func mergeWrites(a, b map[string]int) map[string]int {
	out := map[string]int{}
	for _, m := range []map[string]int{a, b} {
		for k, v := range m {
			out[k] += v
		}
	}
	return out
}

// eventsOf returns the messages of the events of reason that component
// recorded on the DaemonSet name, oldest first.
func (c *cluster) eventsOf(name, component, reason string) []string {
	c.t.Helper()
	list, err := c.admin.CoreV1().Events(testNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("events: %v", err)
	}
	sort.SliceStable(list.Items, func(i, j int) bool { return list.Items[i].FirstTimestamp.Before(&list.Items[j].FirstTimestamp) })
	var out []string
	for _, ev := range list.Items {
		if ev.InvolvedObject.Kind == "DaemonSet" && ev.InvolvedObject.Name == name && ev.Source.Component == component && ev.Reason == reason {
			for range max(ev.Count, 1) {
				out = append(out, ev.Message)
			}
		}
	}
	return out
}
