package e2e

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// kstatusOf is the status GitOps tools (Flux, kpt, Config Sync, cli-utils)
// give the DaemonSet: cli-utils' own kstatus.Compute on it as unstructured
// content, the form those tools read it in.
func kstatusOf(ds *appsv1.DaemonSet) (kstatus.Status, string, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ds)
	if err != nil {
		return "", "", fmt.Errorf("daemonset %s as unstructured: %w", ds.Name, err)
	}
	u := &unstructured.Unstructured{Object: content}
	// A typed client's objects come without their kind; kstatus picks its
	// rules by it.
	u.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("DaemonSet"))
	res, err := kstatus.Compute(u)
	if err != nil {
		return "", "", fmt.Errorf("kstatus of daemonset %s: %w", ds.Name, err)
	}
	return res.Status, res.Message, nil
}

// kstatusRecord computes kstatus on every watch event of one DaemonSet
// and keeps the statuses in the order they were first seen, and each
// change of status with its message.
type kstatusRecord struct {
	mu      sync.Mutex
	seen    []kstatus.Status
	changes []string
	last    kstatus.Status
	errs    []string
	stop    context.CancelFunc
	done    chan struct{}
}

// recordKstatus starts a kstatusRecord on the DaemonSet name, from its
// current state on.
func (c *cluster) recordKstatus(name string) *kstatusRecord {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &kstatusRecord{stop: cancel, done: make(chan struct{})}
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	go func() {
		defer close(r.done)
		for ctx.Err() == nil {
			// A watch without a resourceVersion starts with the object as
			// it is (an ADDED event).
			wi, err := c.admin.AppsV1().DaemonSets(testNamespace).Watch(ctx, metav1.ListOptions{FieldSelector: sel})
			if err != nil {
				if ctx.Err() == nil {
					r.fail(fmt.Sprintf("watch: %v", err))
					time.Sleep(200 * time.Millisecond)
				}
				continue
			}
			for ev := range wi.ResultChan() {
				if ds, ok := ev.Object.(*appsv1.DaemonSet); ok && ev.Type != watch.Bookmark && ev.Type != watch.Deleted {
					r.add(ds)
				}
			}
			wi.Stop()
		}
	}()
	c.t.Cleanup(r.halt)
	return r
}

func (r *kstatusRecord) fail(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, msg)
}

func (r *kstatusRecord) add(ds *appsv1.DaemonSet) {
	s, msg, err := kstatusOf(ds)
	if err != nil {
		r.fail(err.Error())
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.seen, s) {
		r.seen = append(r.seen, s)
	}
	if s != r.last {
		r.changes = append(r.changes, fmt.Sprintf("%s (%s, generation %d)", s, msg, ds.Generation))
		r.last = s
	}
}

func (r *kstatusRecord) halt() {
	r.stop()
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
	}
}

// now returns the latest status seen.
func (r *kstatusRecord) now() kstatus.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// saw returns the distinct statuses seen so far, in the order first seen.
func (r *kstatusRecord) saw() []kstatus.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// report ends the record, adds "kstatus: SCENARIO saw STATUS[, STATUS…]"
// to the lines TestMain prints at the end, and returns the statuses seen
// and a failure for each want not among them (in order: want is a
// subsequence of the changes) and each error of the record.
func (r *kstatusRecord) report(scenario string, want ...kstatus.Status) (seen []kstatus.Status, problems []string) {
	r.halt()
	r.mu.Lock()
	defer r.mu.Unlock()
	seen = slices.Clone(r.seen)
	names := make([]string, len(seen))
	for i, s := range seen {
		names[i] = string(s)
	}
	line := fmt.Sprintf("kstatus: %s saw %s", scenario, strings.Join(names, ", "))
	kstatusLines.add(line)
	problems = append(problems, r.errs...)
	// want must appear in this order among the changes.
	i := 0
	for _, ch := range r.changes {
		if i < len(want) && strings.HasPrefix(ch, string(want[i])+" ") {
			i++
		}
	}
	if i < len(want) {
		problems = append(problems, fmt.Sprintf("kstatus: %s: want %v in this order, the changes were %s", scenario, want, strings.Join(r.changes, " → ")))
	}
	return seen, problems
}

// waitKstatus waits, at most timeout, until r's latest status is want.
func (c *cluster) waitKstatus(r *kstatusRecord, want kstatus.Status, timeout time.Duration) {
	c.t.Helper()
	c.eventually("kstatus "+string(want), timeout, func() (bool, string) {
		return r.now() == want, "kstatus changes: " + r.changesString()
	})
}

// reportKstatus is r.report failing t on each problem.
func reportKstatus(t *testing.T, r *kstatusRecord, scenario string, want ...kstatus.Status) {
	t.Helper()
	seen, problems := r.report(scenario, want...)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("kstatus: %s saw %v; changes: %s", scenario, seen, r.changesString())
}

// changesString is every change of status with its message.
func (r *kstatusRecord) changesString() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.changes, " → ")
}

// lineCollector keeps the lines scenarios add, for TestMain to print
// after the tallies.
type lineCollector struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineCollector) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

func (l *lineCollector) print(w io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		fmt.Fprintln(w, line)
	}
}

// kstatusLines are the "kstatus: …" lines of the scenarios that ran.
var kstatusLines lineCollector
