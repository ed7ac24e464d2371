package e2e

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// updateTemplate changes the DaemonSet's pod template with mutate.
func (c *cluster) updateTemplate(name string, mutate func(*corev1.PodTemplateSpec)) {
	c.t.Helper()
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		ds := c.daemonSet(name)
		mutate(&ds.Spec.Template)
		_, err := c.admin.AppsV1().DaemonSets(testNamespace).Update(ctx, ds, metav1.UpdateOptions{})
		if err == nil {
			return
		}
		if attempt > 5 {
			c.t.Fatalf("updating daemonset %s: %v", name, err)
		}
	}
}

// newRevision returns a template change to image with the pod label key
// set to "true" (a kwok fault label, kwok_faults_test.go) or, for key "",
// with the fault labels removed.
func newRevision(image, key string) func(*corev1.PodTemplateSpec) {
	return func(tpl *corev1.PodTemplateSpec) {
		tpl.Spec.Containers[0].Image = image
		delete(tpl.Labels, crashLabel)
		delete(tpl.Labels, imagePullLabel)
		if key != "" {
			tpl.Labels[key] = "true"
		}
	}
}

// failingPod reports whether p shows that its own containers fail (what a
// kubelet reports of a crashing or unpullable agent): a container waiting
// for another reason than ContainerCreating, or restarted.
func failingPod(p *corev1.Pod) bool {
	for _, c := range p.Status.ContainerStatuses {
		if c.RestartCount > 0 || c.State.Waiting != nil && c.State.Waiting.Reason != "ContainerCreating" {
			return true
		}
	}
	return false
}

// workloadBudgetCheck is budgetCheck for a rollout whose new revision
// fails. A node is broken by the workload from the moment a pod on it
// fails by itself (failingPod; a pod that crashes after it became
// available was counted available when the controller decided) until the
// node runs an available pod again: replacing its failed pod takes
// nothing more down (upstream deletes an unavailable old pod outside the
// budget too). The nodes without an available pod that are not broken
// are what the controller took down: at most maxUnavailable on every pod
// event, and at most one pod per node. The health gates are what keeps
// the broken nodes few. The function keeps state and serves one monitor.
func workloadBudgetCheck(app string, desired []string, maxUnavailable int) func(map[string]*corev1.Pod) string {
	broken := map[string]bool{}
	want := nodeSet(desired)
	return func(pods map[string]*corev1.Pod) string {
		avail := map[string]bool{}
		count := map[string]int{}
		for _, p := range pods {
			if p.Labels["app"] != app {
				continue
			}
			count[p.Spec.NodeName]++
			if available(p) {
				avail[p.Spec.NodeName] = true
			}
			if failingPod(p) {
				broken[p.Spec.NodeName] = true
			}
		}
		takenDown, brokenDown := 0, 0
		for n := range want {
			switch {
			case avail[n]:
				delete(broken, n)
			case broken[n]:
				brokenDown++
			default:
				takenDown++
			}
		}
		if takenDown > maxUnavailable {
			return fmt.Sprintf("%d desired nodes without an available pod besides %d the new revision broke, budget %d", takenDown, brokenDown, maxUnavailable)
		}
		for n, k := range count {
			if n != "" && k > 1 {
				return fmt.Sprintf("node %s has %d pods, at most 1 allowed", n, k)
			}
		}
		return ""
	}
}

// deleteRecord keeps, for every old pod (of oldHash) of app, when its
// deletion was asked for, as the API server recorded it (deletedAt), or
// when the monitor first found it gone.
type deleteRecord struct {
	mu      sync.Mutex
	oldHash string
	live    map[string]string // pod name → node
	at      map[string]time.Time
	nodeOf  map[string]string
}

func newDeleteRecord(oldHash string) *deleteRecord {
	return &deleteRecord{oldHash: oldHash, live: map[string]string{}, at: map[string]time.Time{}, nodeOf: map[string]string{}}
}

func (d *deleteRecord) check(pods map[string]*corev1.Pod) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	present := map[string]bool{}
	for _, p := range pods {
		if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != d.oldHash {
			continue
		}
		present[p.Name] = true
		d.nodeOf[p.Name] = p.Spec.NodeName
		if at, ok := deletedAt(p); ok {
			if _, seen := d.at[p.Name]; !seen {
				d.at[p.Name] = at
			}
		} else {
			d.live[p.Name] = p.Spec.NodeName
		}
	}
	for name := range d.live {
		if _, seen := d.at[name]; !present[name] && !seen {
			d.at[name] = now
		}
	}
}

// deleted returns the nodes whose old pod was deleted, by deletion time.
func (d *deleteRecord) deleted() (nodes []string, at []time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var names []string
	for n := range d.at {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		return d.at[names[i]].Before(d.at[names[j]]) || d.at[names[i]].Equal(d.at[names[j]]) && names[i] < names[j]
	})
	for _, n := range names {
		nodes = append(nodes, d.nodeOf[n])
		at = append(at, d.at[n])
	}
	return nodes, at
}

func (d *deleteRecord) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.at)
}

// startDeleteMonitor starts a monitor of check that also records, in the
// deleteRecord it returns, the deletions of the old pods of app (of the
// DaemonSet's current revision, now).
func (c *cluster) startDeleteMonitor(app string, check func(map[string]*corev1.Pod) string) (*monitor, *deleteRecord) {
	c.t.Helper()
	dr := newDeleteRecord(c.currentHash(c.daemonSet(app)))
	m := c.startMonitor(func(pods map[string]*corev1.Pod) string {
		dr.check(pods)
		return check(pods)
	})
	return m, dr
}

// warningEvents returns the messages of the Warning events of reason that
// the companion recorded on the DaemonSet name.
func (c *cluster) warningEvents(name, reason string) []string {
	c.t.Helper()
	list, err := c.admin.CoreV1().Events(testNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("events: %v", err)
	}
	var out []string
	for _, ev := range list.Items {
		if ev.InvolvedObject.Kind == "DaemonSet" && ev.InvolvedObject.Name == name && ev.Source.Component == syncer.ComponentName &&
			ev.Reason == reason && ev.Type == corev1.EventTypeWarning {
			out = append(out, ev.Message)
		}
	}
	return out
}

// waitWarning waits until the companion recorded a Warning event of
// reason on name and returns its messages.
func (c *cluster) waitWarning(name, reason string) []string {
	c.t.Helper()
	var got []string
	c.eventually("a Warning event "+reason, 20*time.Second, func() (bool, string) {
		got = c.warningEvents(name, reason)
		return len(got) > 0, fmt.Sprintf("events %s: %q (any type: %q)", reason, got, c.eventsOf(name, syncer.ComponentName, reason))
	})
	return got
}

// failingPods returns the live pods of app of revision hash that fail by
// themselves (failingPod), by name, with their nodes, and the earliest
// crash (a last termination's finishedAt) among them.
func (c *cluster) failingPods(app, hash string) (pods map[string]string, firstCrash time.Time) {
	pods = map[string]string{}
	for _, p := range c.pods() {
		if p.Labels["app"] != app || p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != hash || p.DeletionTimestamp != nil || !failingPod(&p) {
			continue
		}
		pods[p.Name] = p.Spec.NodeName
		for _, s := range p.Status.ContainerStatuses {
			if t := s.LastTerminationState.Terminated; t != nil && (firstCrash.IsZero() || t.FinishedAt.Time.Before(firstCrash)) {
				firstCrash = t.FinishedAt.Time
			}
		}
	}
	return pods, firstCrash
}
