package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/kubernetes/scheme"
)

// The etcd keys under which kube-apiserver stores the test namespace's pods
// and DaemonSets (its default --etcd-prefix, /registry).
const (
	podsKeyPrefix       = "/registry/pods/" + testNamespace + "/"
	daemonSetsKeyPrefix = "/registry/daemonsets/" + testNamespace + "/"
)

// Kinds of faultEvent: what a DaemonSet controller just did, as the store
// shows it.
const (
	actionCreate = "create" // a pod was created
	actionDelete = "delete" // a pod got its deletion timestamp
	actionStatus = "status" // a DaemonSet's status changed at an unchanged generation
)

// faultEvent is one action of the controller seen in the store, the moment
// a fault can be injected at.
type faultEvent struct {
	kind string
	// what names the object, for the report.
	what string
	at   time.Time
}

// storeWatch is a monitor fed from etcd itself rather than from
// kube-apiserver: it reads the test namespace's pods and follows every
// change etcd commits, resuming from the last revision it saw when etcd
// or kube-apiserver restarts, so that a fault of the control plane does
// not hide a single pod state from the check. It also reports the
// controller's actions (pod creates, pod deletes, status writes) on
// events, for the scenarios that inject a fault at such a moment.
type storeWatch struct {
	*monitor
	events chan faultEvent
	client *clientv3.Client
}

// etcdEndpoint is the client URL of the cluster's etcd.
func (c *cluster) etcdEndpoint() string {
	c.t.Helper()
	if p := c.procs["etcd"]; p != nil {
		for _, a := range p.args {
			if v, ok := strings.CutPrefix(a, "--listen-client-urls="); ok {
				return v
			}
		}
	}
	c.t.Fatal("etcd: no client URL")
	return ""
}

// startStoreWatch reads the pods of the test namespace from etcd, checks
// them with check, and then checks them again after every change etcd
// commits, until the test ends or stopAndReport is called.
func (c *cluster) startStoreWatch(check func(map[string]*corev1.Pod) string) *storeWatch {
	c.t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{c.etcdEndpoint()}, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		c.t.Fatalf("store watch: etcd client: %v", err)
	}
	m := newMonitor(check)
	ctx := m.start()
	w := &storeWatch{monitor: m, events: make(chan faultEvent, 4096), client: cli}
	pods, err := cli.Get(ctx, podsKeyPrefix, clientv3.WithPrefix())
	if err != nil {
		c.t.Fatalf("store watch: reading pods: %v", err)
	}
	rev := pods.Header.Revision
	for _, kv := range pods.Kvs {
		p, err := decodeAs[*corev1.Pod](kv.Value)
		if err != nil {
			c.t.Fatalf("store watch: %s: %v", kv.Key, err)
		}
		m.pods[p.Name] = p
	}
	dss, err := cli.Get(ctx, daemonSetsKeyPrefix, clientv3.WithPrefix(), clientv3.WithRev(rev))
	if err != nil {
		c.t.Fatalf("store watch: reading daemonsets: %v", err)
	}
	daemonSets := map[string]*appsv1.DaemonSet{}
	for _, kv := range dss.Kvs {
		ds, err := decodeAs[*appsv1.DaemonSet](kv.Value)
		if err != nil {
			c.t.Fatalf("store watch: %s: %v", kv.Key, err)
		}
		daemonSets[ds.Name] = ds
	}
	m.evaluate("initial read")

	var wg sync.WaitGroup
	wg.Go(func() { w.followPods(ctx, rev) })
	wg.Go(func() { w.followDaemonSets(ctx, rev, daemonSets) })
	go func() {
		wg.Wait()
		cli.Close()
		close(m.done)
	}()
	c.t.Cleanup(m.halt)
	return w
}

func decodeAs[T any](data []byte) (T, error) {
	var zero T
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return zero, err
	}
	t, ok := obj.(T)
	if !ok {
		return zero, fmt.Errorf("decoded a %T, want %T", obj, zero)
	}
	return t, nil
}

func (w *storeWatch) publish(kind, what string) {
	select {
	case w.events <- faultEvent{kind: kind, what: what, at: time.Now()}:
	default:
	}
}

// watch follows prefix from revision rev+1 and hands each event to fn; a
// compacted or failed watch is a violation (events were lost).
func (w *storeWatch) watch(ctx context.Context, prefix string, rev int64, fn func(*clientv3.Event)) {
	for resp := range w.client.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1)) {
		if ctx.Err() != nil {
			return
		}
		if resp.CompactRevision != 0 {
			w.record(fmt.Sprintf("store watch of %s compacted at revision %d: pod states were not checked", prefix, resp.CompactRevision))
			return
		}
		if err := resp.Err(); err != nil {
			w.record(fmt.Sprintf("store watch of %s failed: %v", prefix, err))
			return
		}
		for _, ev := range resp.Events {
			fn(ev)
		}
	}
}

func (w *storeWatch) followPods(ctx context.Context, rev int64) {
	w.watch(ctx, podsKeyPrefix, rev, func(ev *clientv3.Event) {
		name := strings.TrimPrefix(string(ev.Kv.Key), podsKeyPrefix)
		if ev.Type == clientv3.EventTypeDelete {
			w.mu.Lock()
			delete(w.pods, name)
			w.mu.Unlock()
			w.evaluate("DELETED " + name)
			return
		}
		p, err := decodeAs[*corev1.Pod](ev.Kv.Value)
		if err != nil {
			w.record(fmt.Sprintf("pod %s: %v", name, err))
			return
		}
		w.mu.Lock()
		prev := w.pods[name]
		w.pods[name] = p
		w.mu.Unlock()
		switch {
		case ev.IsCreate():
			w.publish(actionCreate, name)
		case prev != nil && prev.DeletionTimestamp == nil && p.DeletionTimestamp != nil:
			w.publish(actionDelete, name)
		}
		w.evaluate("PUT " + name)
	})
}

func (w *storeWatch) followDaemonSets(ctx context.Context, rev int64, known map[string]*appsv1.DaemonSet) {
	w.watch(ctx, daemonSetsKeyPrefix, rev, func(ev *clientv3.Event) {
		name := strings.TrimPrefix(string(ev.Kv.Key), daemonSetsKeyPrefix)
		if ev.Type == clientv3.EventTypeDelete {
			delete(known, name)
			return
		}
		ds, err := decodeAs[*appsv1.DaemonSet](ev.Kv.Value)
		if err != nil {
			w.record(fmt.Sprintf("daemonset %s: %v", name, err))
			return
		}
		prev := known[name]
		known[name] = ds
		if prev != nil && prev.Generation == ds.Generation && !equality.Semantic.DeepEqual(prev.Status, ds.Status) {
			st := ds.Status
			w.publish(actionStatus, fmt.Sprintf("%s observed %d updated %d available %d", name, st.ObservedGeneration, st.UpdatedNumberScheduled, st.NumberAvailable))
		}
	})
}

// next waits for the next action of kind seen after after, at most
// timeout; earlier actions and those of other kinds are dropped.
func (w *storeWatch) next(kind string, after time.Time, timeout time.Duration) (faultEvent, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case ev := <-w.events:
			if ev.kind == kind && ev.at.After(after) {
				return ev, true
			}
		case <-deadline.C:
			return faultEvent{}, false
		}
	}
}

// stopAndCount ends the watch and returns the violations seen (the first
// few), how many pod states broke a bound, and how many were checked.
func (w *storeWatch) stopAndCount() ([]string, int, int) {
	shown, events := w.stopAndReport()
	w.mu.Lock()
	defer w.mu.Unlock()
	return shown, len(w.violations), events
}
