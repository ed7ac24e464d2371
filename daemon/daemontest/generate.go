package daemontest

import (
	"fmt"
	"math/rand/v2"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// ClusterConfig configures GenerateCluster. The zero value generates
// chaotic clusters of 0 to 12 nodes.
type ClusterConfig struct {
	// Nodes is the number of nodes. 0 picks it at random: 0 to 12 nodes
	// for chaotic clusters, 1 to 12 for healthy ones. Negative means none.
	Nodes int
	// Healthy generates only valid, healthy clusters, fit to start the
	// simulator from: see GenerateCluster.
	Healthy bool
	// Rollout, with Healthy, starts a rollout: the template has just
	// changed (generation 2), and every pod runs the previous one.
	Rollout bool
}

// GenerateCluster returns a cluster drawn from r, deterministic for a given
// state of r (it draws from r and nothing else). Names sort differently
// from the slice order, which is shuffled.
//
// A chaotic cluster (the default) mixes what upstream meets, each with
// some probability: control-plane, NotReady, cordoned and custom-tainted
// nodes, labelled subsets chosen by a nodeSelector or required node
// affinity, template tolerations (Gt comparisons included), hostNetwork,
// a template nodeName; RollingUpdate with integer and percent budgets (0,
// 100%, both zero, nil, unparsable), OnDelete, minReadySeconds; pods of the
// current and of old revisions (hash label, template-generation label,
// none), ready or not and available or not at Now, pending, failed,
// succeeded, being deleted, several on one node, orphans to adopt, pods of
// other controllers and namespaces, pods to release, never-scheduled pods
// bound by node affinity (also to nodes that do not exist), pods on missing
// nodes, pods with no target node; no revisions yet, current and old ones,
// duplicates of the current one, some without the hash label, orphans,
// others' revisions, a name collision; the template-generation annotation;
// a stored status that is right, stale or wrong; a carried failed-pod
// backoff, a small burst, the comparison-operators gate. Some of these
// make Compute return an error; a few make it skip.
//
// A healthy cluster (cfg.Healthy) is valid and settled: every node is
// Ready; some carry a control-plane taint or are cordoned, or are left out
// by a nodeSelector; the strategy is RollingUpdate with valid budgets
// (sometimes maxSurge, sometimes both zero) or, rarely, OnDelete; every
// node that should run the pod runs exactly one available pod, controlled
// by the DaemonSet, and no other node runs one; the revisions are the
// DaemonSet's own, with their hash labels; the status is up to date. With
// cfg.Rollout the template is one generation ahead of the pods and their
// revision, as right after a user changed the image.
//
// It panics if r is nil.
func GenerateCluster(r *rand.Rand, cfg ClusterConfig) *simulate.Cluster {
	g := &generator{r: r, used: map[string]bool{}}
	if cfg.Healthy {
		return g.healthy(cfg)
	}
	return g.chaotic(cfg)
}

// generator draws a cluster from r.
type generator struct {
	r *rand.Rand
	// used holds the pod names handed out.
	used map[string]bool
}

func (g *generator) chance(p float64) bool { return g.r.Float64() < p }

// pick returns one of xs, drawn from r.
func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// podName returns a new pod name "<prefix>-<5 random characters>".
func (g *generator) podName(prefix string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	for {
		b := make([]byte, 5)
		for i := range b {
			b[i] = alphabet[g.r.IntN(len(alphabet))]
		}
		name := prefix + "-" + string(b)
		if !g.used[name] {
			g.used[name] = true
			return name
		}
	}
}

func nodeCount(r *rand.Rand, cfg ClusterConfig, lo int) int {
	switch {
	case cfg.Nodes > 0:
		return cfg.Nodes
	case cfg.Nodes < 0:
		return 0
	}
	return lo + r.IntN(13-lo)
}

// healthy draws a valid, settled cluster; see GenerateCluster.
func (g *generator) healthy(cfg ClusterConfig) *simulate.Cluster {
	r := g.r
	name := pick(r, "agent", "fluentd", "node-exporter")
	ds := DaemonSet(name)
	switch x := r.IntN(20); {
	case x == 0:
		OnDelete()(ds)
	case x == 1: // both zero: upstream falls back to maxUnavailable 1
		WithMaxUnavailable("0")(ds)
	case x < 8:
		WithMaxSurge(pick(r, "1", "2", "10%", "50%", "100%"))(ds)
		WithMaxUnavailable(pick(r, "0", "0", "0%", "1"))(ds)
	default:
		WithMaxUnavailable(pick(r, "1", "1", "2", "10%", "25%", "50%", "100%"))(ds)
	}
	WithMinReadySeconds(pick[int32](r, 0, 0, 5, 30))(ds)
	if g.chance(0.2) {
		WithNodeSelector("role", "worker")(ds)
	}
	if g.chance(0.3) {
		WithToleration(controlPlaneTaint, corev1.TaintEffectNoSchedule)(ds)
	}

	now := Epoch
	c := &simulate.Cluster{DaemonSet: ds, Now: now}
	for i := range nodeCount(r, cfg, 1) {
		n := Node(fmt.Sprintf("node-%d", i), WithLabel("role", pick(r, "worker", "worker", "infra")),
			WithLabel("zone", pick(r, "a", "b", "c")))
		switch x := r.IntN(10); {
		case x == 0:
			WithLabel(controlPlaneTaint, "")(n)
			WithTaint(controlPlaneTaint, "", corev1.TaintEffectNoSchedule)(n)
		case x == 1:
			Unschedulable()(n)
		}
		c.Nodes = append(c.Nodes, n)
	}
	r.Shuffle(len(c.Nodes), func(i, j int) { c.Nodes[i], c.Nodes[j] = c.Nodes[j], c.Nodes[i] })

	podsOf := ds
	if cfg.Rollout {
		podsOf = ds.DeepCopy()
		ds.Generation = 2
		WithImage(fmt.Sprintf("registry.example/%s:v2", name))(ds)
	}
	c.Revisions = []*appsv1.ControllerRevision{Revision(podsOf, 1)}
	hash := Hash(podsOf)
	elig := eligibility.New(ds, false)
	var desired int32
	for _, n := range c.Nodes {
		if run, _ := elig.ShouldRun(n); !run {
			continue
		}
		desired++
		p := Pod(podsOf, g.podName(name), n.Name, WithHash(hash),
			CreatedAt(now.Add(-2*time.Hour)), ReadySince(now.Add(-time.Hour)))
		p.UID = types.UID("uid-" + p.Name)
		c.Pods = append(c.Pods, p)
	}
	r.Shuffle(len(c.Pods), func(i, j int) { c.Pods[i], c.Pods[j] = c.Pods[j], c.Pods[i] })
	ds.Status = appsv1.DaemonSetStatus{
		ObservedGeneration: 1, DesiredNumberScheduled: desired, CurrentNumberScheduled: desired,
		NumberReady: desired, NumberAvailable: desired, UpdatedNumberScheduled: desired,
	}
	if cfg.Rollout {
		ds.Status.UpdatedNumberScheduled = 0
	}
	return c
}

// controlPlaneTaint is the taint (and label) key of control-plane nodes.
const controlPlaneTaint = "node-role.kubernetes.io/control-plane"
