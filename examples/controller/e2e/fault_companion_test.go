package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/deploy"
)

// companionTarget runs the example controller in companion mode as its own
// process: the shipped Deployment's flags, as its ServiceAccount (a
// TokenRequest token), beside kube-controller-manager's DaemonSet
// controller.
var companionTarget = faultTarget{
	name: "companion", prefix: "companion",
	start: func(c *cluster, name string, extra ...string) *process {
		return c.startCompanionProcess(name, extra...)
	},
	leaderElect: []string{"--leader-elect=true"},
	verbose:     []string{"-v=4"},
}

// startCompanionProcess runs one companion replica under the process name
// name: the flags of the shipped Deployment but its --metrics-addr, then
// exampleArgs as the companion (its kubeconfig, the client rate limits and
// workers, /metrics on a free loopback port, -v=2), then extra.
func (c *cluster) startCompanionProcess(name string, extra ...string) *process {
	c.t.Helper()
	objs, err := deploy.Companion()
	if err != nil {
		c.t.Fatalf("deploy manifests: %v", err)
	}
	var args []string
	for _, o := range objs {
		if dep, ok := o.(*appsv1.Deployment); ok {
			for _, a := range dep.Spec.Template.Spec.Containers[0].Args {
				if !strings.HasPrefix(a, "--metrics-addr") {
					args = append(args, a)
				}
			}
		}
	}
	if len(args) == 0 {
		c.t.Fatal("deploy manifests: the Deployment has no flags")
	}
	kc, ok := c.kubeconfigs[companionUser]
	if !ok {
		cfg := c.companionConfig()
		kc = c.write("kubeconfig-companion", kubeconfig(c.server, companionUser, cfg.BearerToken))
		c.kubeconfigs[companionUser] = kc
	}
	return c.start(name, roleExample, append(args, c.exampleArgsWith(kc, extra...)...)...)
}

// companionMaxUnavailable is the rollout budget the companion faults
// annotate.
const companionMaxUnavailable = 3

// runCompanionFault runs sc against companion mode on a fresh cluster:
// the objects of deploy/ (but the Deployment), kube-controller-manager's
// DaemonSet controller, faultNodes nodes and two excluded ones, an OnDelete
// DaemonSet opted in with max-unavailable 3, placed at v1 and rolled out by
// the companion to v2 while sc injects its faults. Every pod state
// committed to etcd is checked against rolloutCheck (the companion never
// surges, and under OnDelete kube-controller-manager keeps one pod per
// node); the rollout must complete (kube-controller-manager's counters and
// the companion's RolloutComplete for the generation), leave no pod or
// revision behind, and the companion must not delete more than the old
// pods. sc.start defaults to one replica without leader election.
func runCompanionFault(t *testing.T, sc faultScenario) {
	t.Run(companionTarget.name, func(t *testing.T) {
		countResult(t)
		countFault(t)
		c := newCluster(t, sc.cluster...)
		c.applyDeploy()
		c.startControllerManager("kube-controller-manager")
		f := &faultEnv{cluster: c, target: companionTarget}
		if sc.setup != nil {
			sc.setup(f)
		}
		pool := map[string]string{"pool": "a"}
		nodes := workers("node", faultNodes, pool)
		f.addNodes(append(workers("excluded", 2, map[string]string{"pool": "b"}), nodes...)...)
		f.createDaemonSet(newDaemonSet("agent", nodeSelector(pool), onDelete(), annotate(map[string]string{
			progressive.AnnotationMaxUnavailable: strconv.Itoa(companionMaxUnavailable),
		})))
		if sc.start != nil {
			sc.start(f)
		} else {
			f.extra = []string{"--leader-elect=false"}
			f.startInstance()
		}
		want := names(nodes)
		f.waitRolledOut("v1 placed and reported complete", "agent", want, faultTimeout)

		f.sw = f.startStoreWatch(rolloutCheck("agent", want, companionMaxUnavailable, 1))
		begin := time.Now()
		f.setImage("agent", "example.invalid/agent:v2")
		sc.inject(f)
		f.waitRolledOut("v2 rolled out and reported complete", "agent", want, faultTimeout)
		took := time.Since(begin)
		for _, l := range f.leftovers("agent", 2) {
			t.Errorf("left behind: %s", l)
		}
		violations, broken, events := f.sw.stopAndCount()
		for _, v := range violations {
			t.Errorf("safety bound broken: %s", v)
		}
		writes := withoutReads(f.auditOf(companionUser))
		if d := writes["delete pods"]; d > faultNodes {
			t.Errorf("the companion deleted %d pods, more than the %d old ones", d, faultNodes)
		}
		if sc.verify != nil {
			sc.verify(f)
		}
		ds := f.daemonSet("agent")
		st := ds.Status
		st.Conditions = nil
		o := faultOutcome{
			outcome:   outcome{placement: placementOf(f.pods(), "agent"), status: st, converge: took, writes: writes, violations: violations, events: events},
			broken:    broken,
			injected:  f.injected,
			notes:     f.notes,
			revisions: f.revisionsOf("agent"),
		}
		t.Logf("fault %s/companion: %d injected (%s); converged in %s; the companion wrote %s; kube-controller-manager wrote %s; %d pod states checked",
			sc.kind, o.injected, strings.Join(o.notes, "; "), took.Round(100*time.Millisecond), summary(writes), summary(f.writes()), events)
		addFaultRow(faultRow{kind: sc.kind, controller: "companion", o: o})
	})
}

// TestFaultCompanionSIGKILL: in companion mode, beside kube-controller-
// manager, one companion replica without leader election (a restarted
// replica would otherwise wait for its dead predecessor's Lease, which is
// TestFaultCompanionLeaderElection's subject) is SIGKILLed at the six
// moments of killPlan and started again each time: after a status write,
// mid-delete (the companion's), after kube-controller-manager recreated a
// pod.
func TestFaultCompanionSIGKILL(t *testing.T) {
	runCompanionFault(t, faultScenario{kind: "companion-sigkill", inject: injectKills})
}

// TestFaultCompanionLeaderElection: two companion replicas with leader
// election, as the shipped Deployment runs them; mid-rollout, just after
// the leader deleted a pod, it is SIGKILLed (its Lease is not released);
// the standby takes the Lease when it expires (15s) and finishes.
func TestFaultCompanionLeaderElection(t *testing.T) {
	runCompanionFault(t, faultScenario{
		kind: "companion-leader-election",
		start: func(f *faultEnv) {
			f.startInstance()
			f.startInstance()
			f.eventually("one replica leads", time.Minute, func() (bool, string) {
				l := f.leaders()
				return len(l) == 1, fmt.Sprintf("%d leaders", len(l))
			})
		},
		inject: injectLeaderKill,
	})
}
