package upstreambench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"

	"k8s.io/kubernetes/pkg/controller/daemon"
)

// The two functions of kube-controller-manager that read the controller's
// clock around one whole sync: syncDaemonSet's first statement, and the
// deferred function that logs the sync's duration.
const (
	syncStartFunc = "k8s.io/kubernetes/pkg/controller/daemon.(*DaemonSetsController).syncDaemonSet"
	syncEndFunc   = syncStartFunc + ".func1"
)

// syncCost is what one sync of upstream's controller took: wall time
// between its two clock reads, and the bytes and objects the process
// allocated in between. seq numbers the syncs from 1; start is when the
// sync began.
type syncCost struct {
	seq           int64
	start         time.Time
	took          time.Duration
	bytes, allocs uint64
}

// add adds o to c.
func (c *syncCost) add(o syncCost) {
	c.took += o.took
	c.bytes += o.bytes
	c.allocs += o.allocs
}

// syncProbe is the clock given to upstream's controller (through its
// failed-pods backoff). Every caller reads the same fixed time; the two
// reads that open and close syncDaemonSet also measure the sync, and each
// closing read sends the sync's cost on ended.
type syncProbe struct {
	*testingclock.FakeClock

	mu      sync.Mutex
	open    int64 // the sync in progress, 0 between syncs
	t0      time.Time
	m0      runtime.MemStats
	ended   chan syncCost
	syncs   atomic.Int64 // syncs begun
	dropped atomic.Int64 // syncs ended when ended was full
}

// newSyncProbe returns a probe whose clock reads at.
func newSyncProbe(at time.Time) *syncProbe {
	return &syncProbe{FakeClock: testingclock.NewFakeClock(at), ended: make(chan syncCost, 1024)}
}

// Now returns the probe's fixed time, measuring a sync when the caller is
// syncDaemonSet's opening or closing read.
func (p *syncProbe) Now() time.Time {
	var pcs [1]uintptr
	if runtime.Callers(2, pcs[:]) == 1 {
		frame, _ := runtime.CallersFrames(pcs[:]).Next()
		switch frame.Function {
		case syncStartFunc:
			p.start()
		case syncEndFunc:
			p.end()
		}
	}
	return p.FakeClock.Now()
}

// start opens a sync: the memory counters first, then the time, so that
// reading the counters falls outside the interval.
func (p *syncProbe) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	runtime.ReadMemStats(&p.m0)
	p.open = p.syncs.Add(1)
	p.t0 = time.Now()
}

// end closes the sync start opened: the time first, then the counters.
func (p *syncProbe) end() {
	t1 := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open == 0 {
		return
	}
	var m1 runtime.MemStats
	runtime.ReadMemStats(&m1)
	c := syncCost{seq: p.open, start: p.t0, took: t1.Sub(p.t0), bytes: m1.TotalAlloc - p.m0.TotalAlloc, allocs: m1.Mallocs - p.m0.Mallocs}
	p.open = 0
	select {
	case p.ended <- c:
	default:
		p.dropped.Add(1)
	}
}

// current returns the number of the sync in progress, 0 between syncs.
func (p *syncProbe) current() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open
}

// apiCalls counts the controller's calls to the fake API server by the
// sync that made them (0: outside any sync) and by verb and resource
// ("delete pods", "update daemonsets/status").
type apiCalls struct {
	mu sync.Mutex
	n  map[int64]map[string]int
}

// record counts a, made during sync seq.
func (c *apiCalls) record(seq int64, a k8stesting.Action) {
	key := a.GetVerb() + " " + a.GetResource().Resource
	if sub := a.GetSubresource(); sub != "" {
		key += "/" + sub
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[seq] == nil {
		c.n[seq] = map[string]int{}
	}
	c.n[seq][key]++
}

// of returns a copy of the counts of sync seq.
func (c *apiCalls) of(seq int64) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.n[seq] {
		out[k] = v
	}
	return out
}

// upstream is kube-controller-manager v1.37.2's DaemonSet controller running
// over one cluster: a fake clientset holding the cluster's objects, shared
// informers fed from it, the controller built by NewDaemonSetsController
// and started with Run and one worker.
type upstream struct {
	client  *fake.Clientset
	factory informers.SharedInformerFactory
	probe   *syncProbe
	calls   *apiCalls
	cancel  context.CancelFunc
	running bool // Run was started; stopped is closed when it returns
	stopped chan struct{}
	strays  int // syncs that began before the trigger awaited (see sync)
	// listed is the cluster as the controller's informers hold it: the
	// objects daemonplan plans in the same benchmark.
	listed cluster
}

// startUpstream starts upstream's controller over c and waits for the sync
// its informers' first events cause. The caller stops it with stop.
func startUpstream(c cluster) (*upstream, error) {
	objs := []kruntime.Object{c.ds}
	for _, n := range c.nodes {
		objs = append(objs, n)
	}
	for _, p := range c.pods {
		objs = append(objs, p)
	}
	for _, r := range c.revisions {
		objs = append(objs, r)
	}
	u := &upstream{
		client:  fake.NewSimpleClientset(objs...),
		probe:   newSyncProbe(now),
		calls:   &apiCalls{n: map[int64]map[string]int{}},
		stopped: make(chan struct{}),
	}
	u.client.PrependReactor("*", "*", func(a k8stesting.Action) (bool, kruntime.Object, error) {
		u.calls.record(u.probe.current(), a)
		return false, nil, nil
	})
	// A pod delete answers NotFound: the controller lowers its expectations
	// at once, the pod stays, and the next sync starts from the same cluster.
	u.client.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, kruntime.Object, error) {
		u.calls.record(u.probe.current(), a)
		name := a.(k8stesting.DeleteAction).GetName()
		return true, nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
	})
	// kube-controller-manager's backoff, on the probe's clock.
	backoff := flowcontrol.NewBackOff(time.Second, 15*time.Minute)
	backoff.Clock = u.probe
	u.factory = informers.NewSharedInformerFactory(u.client, 0)
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	u.cancel = cancel
	dsc, err := daemon.NewDaemonSetsController(ctx,
		u.factory.Apps().V1().DaemonSets(),
		u.factory.Apps().V1().ControllerRevisions(),
		u.factory.Core().V1().Pods(),
		u.factory.Core().V1().Nodes(),
		u.client,
		backoff,
	)
	if err != nil {
		cancel()
		return nil, err
	}
	u.factory.Start(ctx.Done())
	for typ, ok := range u.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			u.stop()
			return nil, fmt.Errorf("informer of %v did not sync", typ)
		}
	}
	u.running = true
	go func() {
		defer close(u.stopped)
		dsc.Run(ctx, 1)
	}()
	if err := u.list(c.ds); err != nil {
		u.stop()
		return nil, err
	}
	// The DaemonSet's add event queues the first sync.
	if _, err := u.await(ctx); err != nil {
		u.stop()
		return nil, err
	}
	return u, nil
}

// list fills u.listed from the informers' caches.
func (u *upstream) list(ds *appsv1.DaemonSet) error {
	var err error
	l := &u.listed
	if l.ds, err = u.factory.Apps().V1().DaemonSets().Lister().DaemonSets(ds.Namespace).Get(ds.Name); err != nil {
		return err
	}
	if l.nodes, err = u.factory.Core().V1().Nodes().Lister().List(labels.Everything()); err != nil {
		return err
	}
	if l.pods, err = u.factory.Core().V1().Pods().Lister().Pods(ds.Namespace).List(labels.Everything()); err != nil {
		return err
	}
	l.revisions, err = u.factory.Apps().V1().ControllerRevisions().Lister().ControllerRevisions(ds.Namespace).List(labels.Everything())
	return err
}

// await waits for the next sync to end and returns its cost.
func (u *upstream) await(ctx context.Context) (syncCost, error) {
	select {
	case c := <-u.probe.ended:
		return c, nil
	case <-time.After(5 * time.Minute):
		return syncCost{}, fmt.Errorf("no sync ended within 5 minutes (%d syncs so far)", u.probe.syncs.Load())
	case <-ctx.Done():
		return syncCost{}, ctx.Err()
	}
}

// sync makes the controller sync the DaemonSet once and returns what the
// sync cost. The trigger is an Update of the DaemonSet as stored, whose
// watch event the controller's handler queues; the sync measured is the
// first to begin after the Update was sent. Syncs that began before it are
// counted in strays and skipped: the informers' initial events queue the
// DaemonSet many times, and how many syncs that makes depends on timing.
// Every sync of the cluster does the same work, as nothing any sync does
// changes it.
func (u *upstream) sync(ctx context.Context) (syncCost, error) {
	ds, err := u.factory.Apps().V1().DaemonSets().Lister().DaemonSets(u.listed.ds.Namespace).Get(u.listed.ds.Name)
	if err != nil {
		return syncCost{}, err
	}
	sent := time.Now()
	if _, err := u.client.AppsV1().DaemonSets(ds.Namespace).Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		return syncCost{}, err
	}
	for {
		c, err := u.await(ctx)
		if err != nil || !c.start.Before(sent) {
			return c, err
		}
		u.strays++
	}
}

// stop stops the controller and its informers and waits for them.
func (u *upstream) stop() {
	u.cancel()
	u.factory.Shutdown()
	if !u.running {
		return
	}
	select {
	case <-u.stopped:
	case <-time.After(time.Minute):
	}
}

// startUpstreamTB is startUpstream for a test or benchmark, stopped at its
// cleanup.
func startUpstreamTB(tb testing.TB, c cluster) *upstream {
	tb.Helper()
	u, err := startUpstream(c)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(u.stop)
	return u
}
