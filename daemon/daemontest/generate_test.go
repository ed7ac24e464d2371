package daemontest_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/affinity"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

var allExported = cmp.Exporter(func(reflect.Type) bool { return true })

func TestGenerateClusterDeterministic(t *testing.T) {
	for _, cfg := range []dt.ClusterConfig{{}, {Healthy: true}, {Healthy: true, Rollout: true}, {Nodes: 30}} {
		for seed := range uint64(20) {
			a := dt.GenerateCluster(rand.New(rand.NewPCG(seed, 9)), cfg)
			b := dt.GenerateCluster(rand.New(rand.NewPCG(seed, 9)), cfg)
			if reflect.DeepEqual(a, b) {
				continue
			}
			if diff := cmp.Diff(a, b, allExported); diff != "" {
				t.Fatalf("config %+v, seed %d: two clusters from one seed differ (-first +second):\n%s", cfg, seed, diff)
			}
		}
	}
	a := dt.GenerateCluster(rand.New(rand.NewPCG(1, 9)), dt.ClusterConfig{Nodes: 5})
	b := dt.GenerateCluster(rand.New(rand.NewPCG(2, 9)), dt.ClusterConfig{Nodes: 5})
	if cmp.Equal(a, b, allExported) {
		t.Errorf("seeds 1 and 2 gave the same cluster")
	}
}

func TestGenerateClusterNodes(t *testing.T) {
	tests := []struct {
		name   string
		cfg    dt.ClusterConfig
		lo, hi int
	}{
		{name: "zero picks 0 to 12 chaotic nodes", cfg: dt.ClusterConfig{}, lo: 0, hi: 12},
		{name: "zero picks 1 to 12 healthy nodes", cfg: dt.ClusterConfig{Healthy: true}, lo: 1, hi: 12},
		{name: "an exact count", cfg: dt.ClusterConfig{Nodes: 40}, lo: 40, hi: 40},
		{name: "one node", cfg: dt.ClusterConfig{Nodes: 1, Healthy: true}, lo: 1, hi: 1},
		{name: "negative means none", cfg: dt.ClusterConfig{Nodes: -1}, lo: 0, hi: 0},
	}
	if raceEnabled {
		t.Skip("slow under the race detector, and the generator runs no goroutines")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[int]bool{}
			for seed := range uint64(200) {
				c := dt.GenerateCluster(rand.New(rand.NewPCG(seed, 0)), tt.cfg)
				n := len(c.Nodes)
				if n < tt.lo || n > tt.hi {
					t.Fatalf("seed %d: %d nodes, want %d to %d", seed, n, tt.lo, tt.hi)
				}
				seen[n] = true
			}
			if len(seen) != tt.hi-tt.lo+1 {
				t.Errorf("node counts seen %v, want every count from %d to %d", seen, tt.lo, tt.hi)
			}
		})
	}
}

// TestGenerateClusterVariety checks that chaotic clusters exercise every
// situation GenerateCluster promises, each in at least one of 500 seeds.
func TestGenerateClusterVariety(t *testing.T) {
	hash := appsv1.ControllerRevisionHashLabelKey
	hasNode := func(f func(*corev1.Node) bool) func(*simulate.Cluster) bool {
		return func(c *simulate.Cluster) bool {
			for _, n := range c.Nodes {
				if f(n) {
					return true
				}
			}
			return false
		}
	}
	hasPod := func(f func(c *simulate.Cluster, p *corev1.Pod) bool) func(*simulate.Cluster) bool {
		return func(c *simulate.Cluster) bool {
			for _, p := range c.Pods {
				if f(c, p) {
					return true
				}
			}
			return false
		}
	}
	hasRev := func(f func(c *simulate.Cluster, r *appsv1.ControllerRevision) bool) func(*simulate.Cluster) bool {
		return func(c *simulate.Cluster) bool {
			for _, r := range c.Revisions {
				if f(c, r) {
					return true
				}
			}
			return false
		}
	}
	taint := func(key string, effect corev1.TaintEffect) func(*corev1.Node) bool {
		return func(n *corev1.Node) bool {
			for _, t := range n.Spec.Taints {
				if t.Key == key && t.Effect == effect {
					return true
				}
			}
			return false
		}
	}
	budget := func(get func(*appsv1.RollingUpdateDaemonSet) string, want string) func(*simulate.Cluster) bool {
		return func(c *simulate.Cluster) bool {
			ru := c.DaemonSet.Spec.UpdateStrategy.RollingUpdate
			return ru != nil && get(ru) == want
		}
	}
	maxU := func(ru *appsv1.RollingUpdateDaemonSet) string {
		if ru.MaxUnavailable == nil {
			return "nil"
		}
		return ru.MaxUnavailable.String()
	}
	maxS := func(ru *appsv1.RollingUpdateDaemonSet) string {
		if ru.MaxSurge == nil {
			return "nil"
		}
		return ru.MaxSurge.String()
	}
	features := map[string]func(*simulate.Cluster) bool{
		"no nodes":               func(c *simulate.Cluster) bool { return len(c.Nodes) == 0 },
		"control-plane taint":    hasNode(taint("node-role.kubernetes.io/control-plane", corev1.TaintEffectNoSchedule)),
		"NotReady node":          hasNode(taint(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute)),
		"cordoned node":          hasNode(func(n *corev1.Node) bool { return n.Spec.Unschedulable }),
		"custom NoExecute taint": hasNode(taint("dedicated", corev1.TaintEffectNoExecute)),
		"nodeSelector":           func(c *simulate.Cluster) bool { return len(c.DaemonSet.Spec.Template.Spec.NodeSelector) > 0 },
		"required affinity":      func(c *simulate.Cluster) bool { return c.DaemonSet.Spec.Template.Spec.Affinity != nil },
		"template nodeName":      func(c *simulate.Cluster) bool { return c.DaemonSet.Spec.Template.Spec.NodeName != "" },
		"Gt toleration": func(c *simulate.Cluster) bool {
			for _, tol := range c.DaemonSet.Spec.Template.Spec.Tolerations {
				if tol.Operator == corev1.TolerationOpGt {
					return true
				}
			}
			return false
		},
		"hostNetwork": func(c *simulate.Cluster) bool { return c.DaemonSet.Spec.Template.Spec.HostNetwork },
		"OnDelete": func(c *simulate.Cluster) bool {
			return c.DaemonSet.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType
		},
		"nil rollingUpdate": func(c *simulate.Cluster) bool {
			return c.DaemonSet.Spec.UpdateStrategy.Type == "RollingUpdate" && c.DaemonSet.Spec.UpdateStrategy.RollingUpdate == nil
		},
		"maxUnavailable 0":         budget(maxU, "0"),
		"maxUnavailable 100%":      budget(maxU, "100%"),
		"maxUnavailable 10%":       budget(maxU, "10%"),
		"maxUnavailable nil":       budget(maxU, "nil"),
		"maxUnavailable invalid":   budget(maxU, "abc%"),
		"maxSurge 2":               budget(maxS, "2"),
		"maxSurge 50%":             budget(maxS, "50%"),
		"maxSurge 100%":            budget(maxS, "100%"),
		"both budgets zero":        func(c *simulate.Cluster) bool { return budget(maxU, "0")(c) && budget(maxS, "0")(c) },
		"minReadySeconds":          func(c *simulate.Cluster) bool { return c.DaemonSet.Spec.MinReadySeconds > 0 },
		"nil revisionHistoryLimit": func(c *simulate.Cluster) bool { return c.DaemonSet.Spec.RevisionHistoryLimit == nil },
		"template generation": func(c *simulate.Cluster) bool {
			return c.DaemonSet.Annotations[appsv1.DeprecatedTemplateGeneration] != ""
		},
		"selector {}": func(c *simulate.Cluster) bool {
			return reflect.DeepEqual(c.DaemonSet.Spec.Selector, &metav1.LabelSelector{})
		},
		"DaemonSet being deleted":  func(c *simulate.Cluster) bool { return c.DaemonSet.DeletionTimestamp != nil },
		"collisionCount":           func(c *simulate.Cluster) bool { return c.DaemonSet.Status.CollisionCount != nil },
		"stale observedGeneration": func(c *simulate.Cluster) bool { return c.DaemonSet.Status.ObservedGeneration < c.DaemonSet.Generation },
		"current pod":              hasPod(func(c *simulate.Cluster, p *corev1.Pod) bool { return p.Labels[hash] == dt.Hash(c.DaemonSet) }),
		"pod of an old revision": hasPod(func(c *simulate.Cluster, p *corev1.Pod) bool {
			return p.Labels[hash] != "" && p.Labels[hash] != dt.Hash(c.DaemonSet)
		}),
		"pod without hash label":  hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool { _, ok := p.Labels[hash]; return !ok }),
		"pod-template-generation": hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool { return p.Labels["pod-template-generation"] != "" }),
		"failed pod":              hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed }),
		"succeeded pod":           hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool { return p.Status.Phase == corev1.PodSucceeded }),
		"pending pod":             hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool { return p.Status.Phase == corev1.PodPending }),
		"pod being deleted":       hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool { return p.DeletionTimestamp != nil }),
		"unready pod": hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool {
			return p.Status.Phase == corev1.PodRunning && !readyPod(p)
		}),
		"orphan pod": hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool { return metav1.GetControllerOf(p) == nil }),
		"pod of a ReplicaSet": hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool {
			r := metav1.GetControllerOf(p)
			return r != nil && r.Kind == "ReplicaSet"
		}),
		"pod in another namespace": hasPod(func(c *simulate.Cluster, p *corev1.Pod) bool { return p.Namespace != c.DaemonSet.Namespace }),
		"pod to release":           hasPod(func(c *simulate.Cluster, p *corev1.Pod) bool { return strings.HasSuffix(p.Labels["app"], "-renamed") }),
		"unscheduled pod":          hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool { return p.Spec.NodeName == "" && p.Spec.Affinity != nil }),
		"pod without target": hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool {
			_, err := affinity.GetTargetNodeName(p)
			return err != nil
		}),
		"pod on a missing node": hasPod(func(_ *simulate.Cluster, p *corev1.Pod) bool {
			n, _ := affinity.GetTargetNodeName(p)
			return strings.HasPrefix(n, "gone-")
		}),
		"several pods on a node": func(c *simulate.Cluster) bool {
			seen := map[string]bool{}
			for _, p := range c.Pods {
				if p.Spec.NodeName != "" && seen[p.Spec.NodeName] {
					return true
				}
				seen[p.Spec.NodeName] = true
			}
			return false
		},
		"no revisions": func(c *simulate.Cluster) bool { return c.Revisions == nil },
		"current revision": hasRev(func(c *simulate.Cluster, r *appsv1.ControllerRevision) bool {
			return r.Name == c.DaemonSet.Name+"-"+dt.Hash(c.DaemonSet) && r.OwnerReferences != nil
		}),
		"duplicate revision":    hasRev(func(_ *simulate.Cluster, r *appsv1.ControllerRevision) bool { return strings.HasSuffix(r.Name, "-dup") }),
		"revision without hash": hasRev(func(_ *simulate.Cluster, r *appsv1.ControllerRevision) bool { _, ok := r.Labels[hash]; return !ok }),
		"orphan revision": hasRev(func(_ *simulate.Cluster, r *appsv1.ControllerRevision) bool {
			return r.OwnerReferences == nil && r.Labels[hash] != ""
		}),
		"colliding revision name": hasRev(func(_ *simulate.Cluster, r *appsv1.ControllerRevision) bool { return r.UID == "rev-taken" }),
		"failed-pod backoff":      func(c *simulate.Cluster) bool { return c.FailedPodBackoff.Len() > 0 },
		"small burst":             func(c *simulate.Cluster) bool { return c.BurstReplicas > 0 },
		"comparison operators":    func(c *simulate.Cluster) bool { return c.EnableTaintTolerationComparisonOperators },
	}
	if raceEnabled {
		t.Skip("slow under the race detector, and the generator runs no goroutines")
	}
	found := map[string]int{}
	for seed := range uint64(500) {
		c := dt.GenerateCluster(rand.New(rand.NewPCG(seed, 11)), dt.ClusterConfig{})
		for name, has := range features {
			if has(c) {
				found[name]++
			}
		}
	}
	for name := range features {
		if found[name] == 0 {
			t.Errorf("no cluster of 500 has %s", name)
		}
	}
}

func readyPod(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// TestGenerateHealthy checks the promise of healthy clusters: settled ones
// need no action at all and are converged; rollouts start a rollout.
func TestGenerateHealthy(t *testing.T) {
	for seed := range uint64(sample(200)) {
		c := dt.GenerateCluster(rand.New(rand.NewPCG(seed, 12)), dt.ClusterConfig{Healthy: true})
		rep := dt.CheckPlan(c.Input(), dt.CheckOptions{Seed: seed})
		if err := rep.Err(); err != nil || rep.ComputeErr != nil {
			t.Fatalf("seed %d: %v, Compute error %v", seed, err, rep.ComputeErr)
		}
		if !rep.Plan.IsZero() {
			t.Errorf("seed %d: a settled healthy cluster gets a plan: %d creates, %d deletes, status write %v, history zero %v, requeue %v",
				seed, len(rep.Plan.Creates), len(rep.Plan.Deletes), rep.Plan.StatusChanged, rep.Plan.History.IsZero(), rep.Plan.RequeueAfter)
		}
		if err := simulate.Converged(c, rep.Plan.Hash); err != nil {
			t.Errorf("seed %d: a settled healthy cluster is not converged: %v", seed, err)
		}

		c = dt.GenerateCluster(rand.New(rand.NewPCG(seed, 12)), dt.ClusterConfig{Healthy: true, Rollout: true})
		rep = dt.CheckPlan(c.Input(), dt.CheckOptions{Seed: seed})
		if err := rep.Err(); err != nil || rep.ComputeErr != nil {
			t.Fatalf("seed %d, rollout: %v, Compute error %v", seed, err, rep.ComputeErr)
		}
		onDelete := c.DaemonSet.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType
		if err := simulate.Converged(c, rep.Plan.Hash); (err == nil) != (onDelete || len(c.Pods) == 0) {
			t.Errorf("seed %d: a cluster starting a rollout: Converged() = %v", seed, err)
		}
	}
}

// TestGenerateClusterInput checks that Input and DeepCopy carry every
// field, and that DeepCopy shares no object.
func TestGenerateClusterInput(t *testing.T) {
	c := dt.GenerateCluster(rand.New(rand.NewPCG(5, 5)), dt.ClusterConfig{Nodes: 4})
	c.BurstReplicas, c.EnableTaintTolerationComparisonOperators = 3, true
	in := c.Input()
	if in.DaemonSet != c.DaemonSet || in.Options.Now != c.Now || in.Options.BurstReplicas != 3 ||
		!in.Options.EnableTaintTolerationComparisonOperators || len(in.Nodes) != 4 {
		t.Errorf("Input() = %+v does not carry the cluster", in.Options)
	}
	cp := c.DeepCopy()
	if diff := cmp.Diff(c, cp, allExported); diff != "" {
		t.Errorf("DeepCopy() differs (-original +copy):\n%s", diff)
	}
	if len(c.Nodes) > 0 && cp.Nodes[0] == c.Nodes[0] || cp.DaemonSet == c.DaemonSet {
		t.Errorf("DeepCopy() shares objects")
	}
	if (*simulate.Cluster)(nil).DeepCopy() != nil {
		t.Errorf("DeepCopy() of nil is not nil")
	}
}

// TestGenerateChaosStatusUsesClusterGate: the stored status that chaotic
// clusters take from Compute is computed with the cluster's own
// comparison-operators gate, which decides which nodes count as desired.
// It once ignored the gate, storing the counts of a cluster without it.
func TestGenerateChaosStatusUsesClusterGate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("needs thousands of clusters to meet a few where the gate matters")
	}
	counts := func(st appsv1.DaemonSetStatus) appsv1.DaemonSetStatus {
		st.ObservedGeneration = 0
		return st
	}
	gateMatters := 0
	for seed := range uint64(3000) {
		c := dt.GenerateCluster(rand.New(rand.NewPCG(seed, 13)), dt.ClusterConfig{})
		if c.DaemonSet == nil || !c.EnableTaintTolerationComparisonOperators {
			continue
		}
		withGate, err1 := c.Input().Compute()
		in := c.Input()
		in.Options.EnableTaintTolerationComparisonOperators = false
		withoutGate, err2 := in.Compute()
		if err1 != nil || err2 != nil {
			continue
		}
		on, off, stored := counts(withGate.Status), counts(withoutGate.Status), counts(c.DaemonSet.Status)
		if reflect.DeepEqual(on, off) {
			continue
		}
		switch {
		case reflect.DeepEqual(stored, off):
			t.Errorf("seed %d: the stored status %+v is Compute's without the cluster's gate (with it: %+v)", seed, stored, on)
		case reflect.DeepEqual(stored, on):
			gateMatters++
		}
	}
	if gateMatters == 0 {
		t.Errorf("no cluster of 3000 stores Compute's status where the gate changes it")
	}
}
