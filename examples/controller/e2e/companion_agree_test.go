package e2e

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/companion"
)

// counts are the numbers a progress report gives: desired nodes in the
// rollout's scope, those of them updated and available, and the desired
// nodes outside the scope.
type counts struct{ updated, desired, held int }

func (n counts) String() string {
	return fmt.Sprintf("%d/%d (%d outside the scope)", n.updated, n.desired, n.held)
}

var (
	nodesUpdated = regexp.MustCompile(`(\d+)/(\d+) nodes updated`)
	outsideScope = regexp.MustCompile(`(\d+) outside the scope`)
)

// countsIn reads the counts of a progress line of "dsplan rollout status"
// or of a RolloutProgressing message: "U/D nodes updated", then "(H
// outside the scope)" when some desired nodes are.
func countsIn(s string) (counts, bool) {
	m := nodesUpdated.FindStringSubmatch(s)
	if m == nil {
		return counts{}, false
	}
	var n counts
	n.updated, _ = strconv.Atoi(m[1])
	n.desired, _ = strconv.Atoi(m[2])
	if h := outsideScope.FindStringSubmatch(s); h != nil {
		n.held, _ = strconv.Atoi(h[1])
	}
	return n, true
}

// reported is one RolloutProgressing message with the status counters of
// the same DaemonSet object.
type reported struct {
	message                  string
	counts                   counts
	statusDesired, statusUpd int32
}

// progressRecord watches one DaemonSet and keeps each RolloutProgressing
// message the companion writes, with kube-controller-manager's counters of
// the same object.
type progressRecord struct {
	mu   sync.Mutex
	seen []reported
	stop context.CancelFunc
	done chan struct{}
}

func (c *cluster) recordProgress(name string) *progressRecord {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &progressRecord{stop: cancel, done: make(chan struct{})}
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	go func() {
		defer close(r.done)
		for ctx.Err() == nil {
			wi, err := c.admin.AppsV1().DaemonSets(testNamespace).Watch(ctx, metav1.ListOptions{FieldSelector: sel})
			if err != nil {
				return
			}
			for ev := range wi.ResultChan() {
				if ds, ok := ev.Object.(*appsv1.DaemonSet); ok && ev.Type != watch.Bookmark {
					r.add(ds)
				}
			}
			wi.Stop()
		}
	}()
	c.t.Cleanup(r.halt)
	return r
}

func (r *progressRecord) add(ds *appsv1.DaemonSet) {
	p := conditionOf(ds, companion.ConditionProgressing)
	if p == nil {
		return
	}
	n, ok := countsIn(p.Message)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if k := len(r.seen); k > 0 && r.seen[k-1].message == p.Message {
		return
	}
	r.seen = append(r.seen, reported{message: p.Message, counts: n, statusDesired: ds.Status.DesiredNumberScheduled, statusUpd: ds.Status.UpdatedNumberScheduled})
}

func (r *progressRecord) halt() {
	r.stop()
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
	}
}

// agreement compares every progress line of "dsplan rollout status" with
// the companion's messages: a line agrees when the companion wrote a
// message with the same counts, and the DaemonSet's status of that
// message counts as many desired nodes (in and outside the scope) and at
// least as many updated ones (kube-controller-manager counts updated pods,
// available or not). It returns the lines that agree, all lines, and a
// note per line that does not.
func (r *progressRecord) agreement(stdout string) (same, lines int, differ []string) {
	r.halt()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range strings.Split(stdout, "\n") {
		if !strings.HasPrefix(l, "[") {
			continue
		}
		n, ok := countsIn(l)
		if !ok {
			continue
		}
		lines++
		agrees := false
		for _, s := range r.seen {
			if s.counts == n && int(s.statusDesired) == n.desired+n.held && int(s.statusUpd) >= n.updated {
				agrees = true
				break
			}
		}
		if agrees {
			same++
			continue
		}
		var msgs []string
		for _, s := range r.seen {
			msgs = append(msgs, fmt.Sprintf("%s [status desired %d, updated %d]", s.counts, s.statusDesired, s.statusUpd))
		}
		differ = append(differ, fmt.Sprintf("%q: %s; the companion wrote %s", l, n, strings.Join(msgs, ", ")))
	}
	return same, lines, differ
}

// agreeScenario rolls out a 24-node DaemonSet (three zones of eight) under
// the annotations ann, with "dsplan rollout status" running beside the
// companion, and requires every progress line it prints to give the
// numbers of one of the companion's RolloutProgressing messages and of
// the DaemonSet's status: it logs "agree: K of K progress lines the same".
// complete says when the rollout is done (the companion's view).
func agreeScenario(t *testing.T, name string, ann map[string]string) {
	e, nodes := startCompanionScenario(t, []string{"zone-a", "zone-b", "zone-c"}, 8)
	// minReadySeconds spaces the nodes further apart than the companion's
	// interval between two message-only writes (5 s), so that it writes
	// every count.
	e.createDaemonSet(newDaemonSet("agent", onDelete(), func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 6 }, annotate(ann)))
	e.converge("agent", names(nodes), 3*time.Minute)
	e.eventually("the companion reports generation 1", time.Minute, func() (bool, string) {
		return e.conditionIs("agent", companion.ConditionProgressing, corev1.ConditionTrue, companion.ReasonComplete)
	})

	// The preview, before the template change: which nodes the rollout
	// will update (the scope's or the partition's share) and in which
	// waves. kwok removes a deleted pod at once: the simulation's grace is
	// 1s.
	pv := e.previewRollout("agent", "--image", "example.invalid/agent:v2", "--grace", "1s")
	if pv.Outcome != "Converged" {
		t.Fatalf("%s: the preview did not converge: %s %s", name, pv.Outcome, pv.Reason)
	}

	rec := e.recordProgress("agent")
	start := time.Now()
	e.setImage("agent", "example.invalid/agent:v2")
	status := e.rolloutStatus("agent", "--timeout", "10m")
	e.eventually("the companion reports generation 2 complete", 8*time.Minute, func() (bool, string) {
		ds := e.daemonSet("agent")
		p := conditionOf(ds, companion.ConditionProgressing)
		if p == nil || p.Reason != companion.ReasonComplete || !strings.HasSuffix(p.Message, fmt.Sprintf("(generation %d)", ds.Generation)) {
			return false, fmt.Sprintf("RolloutProgressing %+v", p)
		}
		return true, ""
	})
	took := time.Since(start)
	if !status.waitOrFail(t, 2*time.Minute, "the companion's RolloutComplete") {
		return
	}
	if status.code != 0 {
		t.Errorf("dsplan rollout status: exit %d, want 0\n%s%s", status.code, status.stdout, status.stderr)
	}
	comparePreview(t, e, name, pv)
	same, lines, differ := rec.agreement(status.stdout)
	t.Logf("%s: agree: %d of %d progress lines the same (rolled out in %s)", name, same, lines, took.Round(100*time.Millisecond))
	if lines == 0 || same != lines {
		t.Errorf("%s: dsplan rollout status and the companion disagree:\n%s\nrollout status printed:\n%s", name, strings.Join(differ, "\n"), status.stdout)
	}
}

// TestCompanionAgreesWithRolloutStatusScoped: with a scope that leaves
// one zone out, "dsplan rollout status" and the companion count the same
// nodes: 16 in scope, 8 outside it. (Before both judged with
// progressive.Judge, rollout status printed 16/24 where the companion
// wrote 16/16 (8 outside the scope): 0 of 10 lines the same.)
func TestCompanionAgreesWithRolloutStatusScoped(t *testing.T) {
	agreeScenario(t, "companion-agree-scope", map[string]string{
		progressive.AnnotationMaxUnavailable: "2",
		progressive.AnnotationScope:          zoneLabel + "!=zone-c",
	})
}

// TestCompanionAgreesWithRolloutStatusPartition: under a partition that
// keeps 8 nodes on the old revision, "dsplan rollout status" and the
// companion count the same nodes.
func TestCompanionAgreesWithRolloutStatusPartition(t *testing.T) {
	agreeScenario(t, "companion-agree-partition", map[string]string{
		progressive.AnnotationMaxUnavailable: "2",
		progressive.AnnotationOrderBy:        zoneLabel,
		progressive.AnnotationPartition:      "8",
	})
}

// comparePreview compares what the preview pv predicted with what the
// rollout did: the nodes it updated (those that run a pod of the current
// revision at the end) are the ones the simulation started. It logs "preview: K/N nodes as predicted".
func comparePreview(t *testing.T, e *companionEnv, name string, pv preview) {
	t.Helper()
	hash := e.currentHash(e.daemonSet("agent"))
	updated := map[string]bool{}
	for _, p := range e.pods() {
		if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash && p.DeletionTimestamp == nil {
			updated[p.Spec.NodeName] = true
		}
	}
	predicted := map[string]bool{}
	for _, n := range pv.startOrder() {
		predicted[n] = true
	}
	var all []string
	for n := range updated {
		all = append(all, n)
	}
	for n := range predicted {
		if !updated[n] {
			all = append(all, n)
		}
	}
	slices.Sort(all)
	same := 0
	var wrong []string
	for _, n := range all {
		if updated[n] == predicted[n] {
			same++
		} else {
			wrong = append(wrong, fmt.Sprintf("%s predicted updated %t, updated %t", n, predicted[n], updated[n]))
		}
	}
	t.Logf("%s: preview: %d/%d nodes as predicted (%d updated; planned waves %d)", name, same, len(all), len(updated), len(pv.PlannedWaves))
	if len(wrong) > 0 || len(updated) == 0 {
		t.Errorf("%s: the preview and the rollout differ: %s", name, strings.Join(wrong, "; "))
	}
}
