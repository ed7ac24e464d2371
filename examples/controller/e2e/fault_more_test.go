package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// The API Priority and Fairness objects of the throttling fault: a
// priority level of one seat that rejects what it cannot run at once, and
// a FlowSchema that puts every request of controllerUser in it. The test
// users are system:masters, whose requests the mandatory FlowSchema
// "exempt" matches first, so in this fault controllerUser is in
// throttledGroup instead, bound to cluster-admin.
const (
	throttleLevel  = "e2e-throttled"
	throttleSchema = "e2e-throttle-controller"
	throttledGroup = "e2e:throttled"
)

// TestFaultThrottle: with API Priority and Fairness on, every request of
// the controller's user is classified into a priority level with one seat
// that rejects the rest with 429 Too Many Requests. The controller is
// throttled from its start; the test proves 429s happened during the
// rollout (kube-apiserver's apiserver_flowcontrol_rejected_requests_total
// for the level, and the rejected writes in the audit log) and that the
// rollout still converges within its bounds.
func TestFaultThrottle(t *testing.T) {
	runFault(t, faultScenario{
		kind: "throttle",
		cluster: []clusterOption{
			withAPIServerArgs(
				"--enable-priority-and-fairness=true",
				// One seat for the level: ceil(150 × 1 / (1 + the
				// default levels' 245 shares)).
				"--max-requests-inflight=100",
				"--max-mutating-requests-inflight=50",
			),
			// system:masters is exempt from API Priority and Fairness:
			// the controller's user is an ordinary cluster-admin here.
			withGroup(controllerUser, throttledGroup),
		},
		setup: func(f *faultEnv) { f.throttle(controllerUser) },
		inject: func(f *faultEnv) {
			f.baseline, f.baselineAudit = f.rejected(), rejectedWrites(f.writes())
		},
		verify: func(f *faultEnv) {
			f.injected = f.rejected() - f.baseline
			audited := rejectedWrites(f.writes()) - f.baselineAudit
			f.note("%d requests rejected with 429 during the rollout (apiserver_flowcontrol_rejected_requests_total{priority_level=%q}), %d of them writes (audit log)", f.injected, throttleLevel, audited)
			if f.injected == 0 {
				f.t.Errorf("no request of %s was rejected during the rollout: the throttle did not bite", controllerUser)
			}
		},
	})
}

// throttle binds user to cluster-admin, creates the priority level and
// FlowSchema for user and waits until kube-apiserver authorizes user and
// classifies its requests by the FlowSchema.
func (f *faultEnv) throttle(user string) {
	f.t.Helper()
	ctx := context.Background()
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-throttled-cluster-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := f.admin.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		f.t.Fatalf("binding %s to cluster-admin: %v", user, err)
	}
	pl := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: throttleLevel},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](1),
				LendablePercent:          ptr.To[int32](0),
				BorrowingLimitPercent:    ptr.To[int32](0),
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}
	if _, err := f.admin.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, pl, metav1.CreateOptions{}); err != nil {
		f.t.Fatalf("priority level %s: %v", throttleLevel, err)
	}
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: throttleSchema},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: throttleLevel},
			MatchingPrecedence:         100,
			DistinguisherMethod:        &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: user}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
					Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"},
				}},
				NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
			}},
		},
	}
	created, err := f.admin.FlowcontrolV1().FlowSchemas().Create(ctx, fs, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatalf("flow schema %s: %v", throttleSchema, err)
	}
	cfg := f.restConfig(user, 1, 1)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		f.t.Fatalf("http client of %s: %v", user, err)
	}
	f.eventually("requests of "+user+" classified by "+throttleSchema, time.Minute, func() (bool, string) {
		req, _ := http.NewRequest(http.MethodGet, f.server+"/api/v1/namespaces/"+testNamespace, nil)
		req.Header.Set("Authorization", "Bearer "+cfg.BearerToken)
		resp, err := hc.Do(req)
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false, fmt.Sprintf("GET as %s: %s", user, resp.Status)
		}
		got := resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID)
		return got == string(created.UID), fmt.Sprintf("classified by FlowSchema UID %q, want %s", got, created.UID)
	})
}

// rejectedWrites counts the writes rejected with 429 in writes.
func rejectedWrites(writes map[string]int) int {
	n := 0
	for k, v := range writes {
		if strings.HasSuffix(k, "(429)") {
			n += v
		}
	}
	return n
}

// rejected sums kube-apiserver's apiserver_flowcontrol_rejected_requests_total
// over the throttled priority level.
func (f *faultEnv) rejected() int {
	f.t.Helper()
	var body []byte
	f.eventually("kube-apiserver /metrics", time.Minute, func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var err error
		body, err = f.admin.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	n := 0
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_flowcontrol_rejected_requests_total{") || !strings.Contains(line, `priority_level="`+throttleLevel+`"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			f.t.Fatalf("metric line %q: %v", line, err)
		}
		n += int(v)
	}
	return n
}

// The watch-loss fault: kube-apiserver serves the four resources the
// controllers watch without a watch cache, straight from etcd, and
// compacts etcd every two seconds; the controller reaches it through a
// watchCutter that ends all its watches at three moments of the rollout
// and holds the next ones for watchHold. A watch resumed after that asks
// for a compacted revision: 410 Gone, and the informer lists again.
const watchHold = 8 * time.Second

// TestFaultWatchLoss: the controller's watches are cut three times
// mid-rollout and its caches stand still for watchHold each time while
// its writes go through; each informer whose watch resumes at a compacted
// revision gets 410 Gone and lists again. The controller's own log
// (client-go's reflector at level 4) must show both, and the rollout
// converges within its bounds.
func TestFaultWatchLoss(t *testing.T) {
	runFault(t, faultScenario{
		kind: "watch-loss",
		cluster: []clusterOption{withAPIServerArgs(
			"--watch-cache-sizes=pods#0,nodes#0,daemonsets.apps#0,controllerrevisions.apps#0",
			"--etcd-compaction-interval=2s",
		)},
		setup: func(f *faultEnv) {
			f.cutter = f.startWatchCutter()
			f.extra = append([]string{"--kubeconfig=" + f.cutter.kubeconfig(f.cluster, controllerUser)}, f.target.verbose...)
		},
		inject: func(f *faultEnv) {
			f.marks = map[*process]int{}
			for _, p := range f.instances {
				f.marks[p] = len(logOf(p))
			}
			at := f.atEachAction("watch cut", []string{actionDelete, actionCreate, actionDelete}, faultTimeout, func(ev faultEvent) (time.Time, string) {
				ended := f.cutter.cut(watchHold)
				f.eventually("the hold over", 2*watchHold, func() (bool, string) {
					return !f.cutter.holding(), "holding"
				})
				return time.Now(), fmt.Sprintf("%s %s (%d watches ended)", ev.kind, ev.what, ended)
			})
			f.note("watches cut after %s, held %s each", strings.Join(at, ", "), watchHold)
		},
		verify: func(f *faultEnv) {
			gone, relists := 0, 0
			for p, mark := range f.marks {
				since := logOf(p)[mark:]
				gone += strings.Count(since, "too old")
				relists += strings.Count(since, "Caches populated")
			}
			f.note("%d watches held back; since the first cut the controller logged %d \"too old\" (410 Gone) and %d relists (\"Caches populated\")", f.cutter.heldWatches(), gone, relists)
			if gone == 0 || relists == 0 {
				f.t.Errorf("the watch cuts forced %d 410s and %d relists, want at least one of each", gone, relists)
			}
		},
	})
}

// holding reports whether a cut still holds new watches back.
func (w *watchCutter) holding() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Now().Before(w.holdUntil)
}

// leaderMarker is what client-go's leader election logs when it takes the
// Lease, in the example controller and in kube-controller-manager alike.
const leaderMarker = "Successfully acquired lease"

// upstreamOverBudgetAfterFailover is what kube-controller-manager was
// seen to do under TestFaultLeaderElection (why is not investigated: a
// standby that takes the Lease acts on informer caches of its own).
const upstreamOverBudgetAfterFailover = "kube-controller-manager, its leader SIGKILLed mid-rollout, left 4 desired nodes without an available pod " +
	"against a budget of 3 after the standby took over: once in a full run on v1.36.3 (2026-11-28, passed on rerun) and once on v1.37.2 " +
	"(2026-12-02, the machine under load); the example controller broke no bound in the same runs"

// TestFaultLeaderElection: two replicas of the controller run with leader
// election (for upstream, two kube-controller-managers with
// --leader-elect=true and the DaemonSet controller only); mid-rollout, the
// leader is SIGKILLed, so its Lease is not released; the standby takes
// the Lease when it expires (15s) and finishes the rollout.
func TestFaultLeaderElection(t *testing.T) {
	runFault(t, faultScenario{
		kind:             "leader-election",
		upstreamMayBreak: upstreamOverBudgetAfterFailover,
		start: func(f *faultEnv) {
			f.startInstance(f.target.leaderElect...)
			f.startInstance(f.target.leaderElect...)
			f.eventually("one replica leads", time.Minute, func() (bool, string) {
				l := f.leaders()
				return len(l) == 1, fmt.Sprintf("%d leaders", len(l))
			})
		},
		inject: injectLeaderKill,
	})
}

// injectLeaderKill waits for the leader's first delete, SIGKILLs the
// leader and waits until another replica leads.
func injectLeaderKill(f *faultEnv) {
	f.t.Helper()
	ev, ok := f.sw.next(actionDelete, time.Time{}, faultTimeout)
	if !ok {
		f.t.Fatalf("no delete action of the leader within %s", faultTimeout)
	}
	leaders := f.leaders()
	if len(leaders) != 1 {
		f.t.Fatalf("%d leaders, want 1", len(leaders))
	}
	leader := leaders[0]
	leader.kill()
	killed := time.Now()
	f.injected++
	var standby *process
	f.eventually("the standby leads", 2*time.Minute, func() (bool, string) {
		for _, p := range f.leaders() {
			standby = p
			return true, ""
		}
		return false, "no leader"
	})
	f.note("SIGKILL leader %s after delete %s; %s led %s later", leader.name, ev.what, standby.name, time.Since(killed).Round(100*time.Millisecond))
}

// leaders returns the running instances that took the Lease.
func (f *faultEnv) leaders() []*process {
	var out []*process
	for _, p := range f.instances {
		if !p.exited() && strings.Contains(logOf(p), leaderMarker) {
			out = append(out, p)
		}
	}
	return out
}
