package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/progressivetest"
	"github.com/daemonplan/daemonplan/examples/controller/internal/companion"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// badInputsHold is how long a refused or held row's DaemonSet must keep
// every old pod after its template changed.
const badInputsHold = 30 * time.Second

// badInputsTally is the corpus' tally over its three layers (library,
// dsplan on the live cluster, the companion), printed at the end of the
// suite when TestCompanionBadInputs ran.
var badInputsTally struct {
	mu  sync.Mutex
	ran bool
	all progressivetest.Tally
}

// printBadInputsTally prints "bad-inputs: N tried, N refused or held, 0
// silently accepted" when the corpus ran.
func printBadInputsTally(w io.Writer) {
	badInputsTally.mu.Lock()
	defer badInputsTally.mu.Unlock()
	if badInputsTally.ran {
		fmt.Fprintln(w, badInputsTally.all)
	}
}

// TestCompanionBadInputs runs the bad-input corpus (daemon/progressive's
// testdata/bad-inputs.json) on three layers and counts them in one tally:
// the library (progressivetest.Judge on the corpus cluster), dsplan
// simulate on the live cluster, and the companion beside
// kube-controller-manager. Three nodes in zone-a, zone-b and zone-c; one
// OnDelete DaemonSet per row with the row's annotations (a row naming the
// revision under way gets them once the template changed), every
// template then changed. Each refused or held row's DaemonSet keeps every
// old pod for 30s (0 deletes), and a condition and a Warning event of the
// companion name what the row says; a control DaemonSet with valid
// annotations rolls out meanwhile, so the companion is acting. Beside
// them, a RollingUpdate DaemonSet with a canary gets the companion's
// RolloutAnnotationsIgnored Warning and condition (its annotations are
// inert, progressive.Inert).
func TestCompanionBadInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no control plane")
	}
	data, err := os.ReadFile("../../../daemon/progressive/testdata/bad-inputs.json")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := progressivetest.Corpus(data)
	if err != nil {
		t.Fatal(err)
	}
	var lib, cli, live progressivetest.Tally
	defer func() {
		badInputsTally.mu.Lock()
		badInputsTally.ran = true
		badInputsTally.all = badInputsTally.all.Plus(lib).Plus(cli).Plus(live)
		badInputsTally.mu.Unlock()
		t.Logf("bad-inputs by layer: library %s; dsplan %s; companion %s", lib, cli, live)
	}()
	for _, r := range rows {
		ds, nodes, pods, revs := progressivetest.Cluster(r.AnnotationsFor(progressivetest.Hash()))
		got, text, err := progressivetest.Judge(ds, nodes, pods, revs, time.Now(), time.LoadLocation)
		if err != nil {
			t.Errorf("library: %s: %v", r.Name(), err)
		}
		if msg := lib.Add(r, got, text); msg != "" {
			t.Errorf("library: %s", msg)
		}
	}

	e, nodes := startCompanionScenario(t, []string{"zone-a", "zone-b", "zone-c"}, 1)
	name := func(i int) string { return fmt.Sprintf("bad-%03d", i+1) }
	for i, r := range rows {
		ann := map[string]string{}
		if !r.NeedsHash() {
			ann = r.AnnotationsFor("")
		}
		e.createDaemonSet(newDaemonSet(name(i), onDelete(), annotate(ann)))
	}
	e.createDaemonSet(newDaemonSet("bad-control", onDelete(), annotate(map[string]string{progressive.AnnotationMaxUnavailable: "1"})))
	e.createDaemonSet(newDaemonSet("bad-inert", annotate(map[string]string{progressive.AnnotationCanary: "1"})))
	for i := range rows {
		e.converge(name(i), names(nodes), 2*time.Minute)
	}
	e.converge("bad-control", names(nodes), time.Minute)
	before := e.podUIDs()

	start := time.Now()
	for i := range rows {
		e.updateTemplate(name(i), newRevision("example.invalid/agent:v2", ""))
	}
	e.updateTemplate("bad-control", newRevision("example.invalid/agent:v2", ""))
	for i, r := range rows {
		if r.NeedsHash() {
			e.annotateWithHash(name(i), r)
		}
	}

	// Each row's condition and Warning event, as soon as they are there.
	seen := make([]string, len(rows))
	e.eventually("every refused or held row named in a condition and a Warning event", 2*time.Minute, func() (bool, string) {
		warnings := e.allWarnings()
		missing := 0
		var first string
		for i, r := range rows {
			if seen[i] != "" || r.Want == progressivetest.Accepted {
				continue
			}
			ds := e.daemonSet(name(i))
			conds := conditionText(ds)
			evs := strings.Join(warnings[name(i)], " | ")
			if strings.Contains(conds, r.Names[0]) && strings.Contains(evs, r.Names[0]) {
				seen[i] = "conditions: " + conds + "; Warning events: " + evs
				continue
			}
			missing++
			if first == "" {
				first = fmt.Sprintf("%s (%s): conditions %q, Warning events %q", name(i), r.Name(), conds, evs)
			}
		}
		return missing == 0, fmt.Sprintf("%d rows not named yet, the first %s", missing, first)
	})
	e.waitRolledOut("the control DaemonSet rolled out", "bad-control", names(nodes), 2*time.Minute)
	if rest := badInputsHold - time.Since(start); rest > 0 {
		time.Sleep(rest)
	}
	after := e.podUIDs()
	warnings := e.allWarnings()
	for i, r := range rows {
		deleted := 0
		for uid := range before[name(i)] {
			if !after[name(i)][uid] {
				deleted++
			}
		}
		ds := e.daemonSet(name(i))
		text := seen[i]
		if text == "" {
			text = "conditions: " + conditionText(ds) + "; Warning events: " + strings.Join(warnings[name(i)], " | ")
		}
		got := liveOutcome(ds, deleted)
		if deleted > 0 {
			text = fmt.Sprintf("%d old pods deleted in %s; %s", deleted, time.Since(start).Round(time.Second), text)
		}
		if msg := live.Add(r, got, text); msg != "" {
			t.Errorf("companion: %s", msg)
		}
		// dsplan on the live cluster, as a user previews it.
		code, out, errOut := e.dsplan("simulate", "--daemonset", testNamespace+"/"+name(i))
		if msg := cli.Add(r, dsplanOutcome(code, errOut+out), errOut+out); msg != "" {
			t.Errorf("dsplan (exit %d): %s", code, msg)
		}
	}

	// The inert annotations of a RollingUpdate DaemonSet.
	e.eventually("the inert annotations said", time.Minute, func() (bool, string) {
		ok, why := e.conditionIs("bad-inert", companion.ConditionProgressing, corev1.ConditionFalse, companion.ReasonAnnotationsIgnored)
		if !ok {
			return false, why
		}
		return len(e.warningEvents("bad-inert", companion.ReasonAnnotationsIgnored)) > 0, "no RolloutAnnotationsIgnored Warning yet"
	})
	t.Logf("companion-bad-inputs: %d rows on %d DaemonSets, %d nodes; inert: %s", len(rows), len(rows), len(nodes),
		e.warningEvents("bad-inert", companion.ReasonAnnotationsIgnored)[0])
}

// liveOutcome is what became of a row's DaemonSet beside
// kube-controller-manager: Accepted when an old pod was deleted, Refused
// when the companion refused the annotations (RolloutProgressing
// InvalidAnnotations), Held otherwise.
func liveOutcome(ds *appsv1.DaemonSet, deleted int) progressivetest.Outcome {
	switch c := conditionOf(ds, companion.ConditionProgressing); {
	case deleted > 0:
		return progressivetest.Accepted
	case c != nil && c.Reason == syncer.ReasonInvalidAnnotations:
		return progressivetest.Refused
	}
	return progressivetest.Held
}

// dsplanOutcome is what "dsplan simulate" said of a row's DaemonSet:
// Accepted on exit 0, Refused on exit 1 naming a field, Held otherwise.
func dsplanOutcome(code int, text string) progressivetest.Outcome {
	switch {
	case code == 0:
		return progressivetest.Accepted
	case code == 1 && strings.Contains(text, "metadata.annotations["):
		return progressivetest.Refused
	}
	return progressivetest.Held
}

// conditionText is the companion's conditions of ds, "TYPE STATUS REASON:
// MESSAGE", joined.
func conditionText(ds *appsv1.DaemonSet) string {
	var parts []string
	for _, c := range ds.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s %s %s: %s", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(parts, " | ")
}

// podUIDs are the UIDs of the test namespace's pods, by their app label.
func (c *cluster) podUIDs() map[string]map[types.UID]bool {
	c.t.Helper()
	list, err := c.admin.CoreV1().Pods(testNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("listing pods: %v", err)
	}
	out := map[string]map[types.UID]bool{}
	for _, p := range list.Items {
		app := p.Labels["app"]
		if out[app] == nil {
			out[app] = map[types.UID]bool{}
		}
		out[app][p.UID] = true
	}
	return out
}

// allWarnings are the companion's Warning events in the test namespace,
// "REASON: MESSAGE", by DaemonSet name.
func (c *cluster) allWarnings() map[string][]string {
	c.t.Helper()
	list, err := c.admin.CoreV1().Events(testNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("events: %v", err)
	}
	out := map[string][]string{}
	for _, ev := range list.Items {
		if ev.InvolvedObject.Kind == "DaemonSet" && ev.Source.Component == syncer.ComponentName && ev.Type == corev1.EventTypeWarning {
			out[ev.InvolvedObject.Name] = append(out[ev.InvolvedObject.Name], ev.Reason+": "+ev.Message)
		}
	}
	return out
}

// annotateWithHash gives name the annotations of r naming the revision
// under way, once kube-controller-manager wrote that revision.
func (c *cluster) annotateWithHash(name string, r progressivetest.Row) {
	c.t.Helper()
	ds := c.daemonSet(name)
	var hash string
	c.eventually("the new revision of "+name, time.Minute, func() (bool, string) {
		ds = c.daemonSet(name)
		if ds.Status.ObservedGeneration < ds.Generation {
			return false, "generation not observed"
		}
		hash = c.currentHash(ds)
		return hash != "", "no revision"
	})
	for attempt := 0; ; attempt++ {
		ds = c.daemonSet(name)
		if ds.Annotations == nil {
			ds.Annotations = map[string]string{}
		}
		for k, v := range r.AnnotationsFor(hash) {
			ds.Annotations[k] = v
		}
		_, err := c.admin.AppsV1().DaemonSets(testNamespace).Update(context.Background(), ds, metav1.UpdateOptions{})
		if err == nil {
			return
		}
		if attempt > 5 {
			c.t.Fatalf("annotating daemonset %s: %v", name, err)
		}
	}
}
