package daemontest

import (
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/backoff"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// chaosState is what the chaotic generator shares between its parts.
type chaosState struct {
	c *simulate.Cluster
	// old are copies of the DaemonSet with the templates of previous
	// generations, oldest first.
	old []*appsv1.DaemonSet
	// nodeNames are the input nodes' names; missing are names pods target
	// that no node has.
	nodeNames, missing []string
	// calm clusters have fewer oddities: mostly one running pod per node,
	// so that the create/delete pass often has nothing to do and the
	// rolling step runs.
	calm bool
}

// chaotic draws a cluster with a little of everything; see GenerateCluster.
func (g *generator) chaotic(cfg ClusterConfig) *simulate.Cluster {
	r := g.r
	s := &chaosState{c: &simulate.Cluster{Now: Epoch.Add(time.Duration(r.IntN(3600)) * time.Second)}}
	s.calm = g.chance(0.5)
	s.c.EnableTaintTolerationComparisonOperators = g.chance(0.3)
	g.chaosDaemonSet(s)
	g.chaosNodes(s, nodeCount(r, cfg, 0))
	ds := s.c.DaemonSet
	if g.chance(0.02) && len(s.nodeNames) > 0 {
		ds.Spec.Template.Spec.NodeName = pick(r, s.nodeNames...)
	}
	g.chaosPods(s)
	g.chaosRevisions(s)
	g.chaosStatus(s)

	if g.chance(0.2) {
		var entries []backoff.Entry
		for _, n := range s.nodeNames {
			if g.chance(0.4) {
				entries = append(entries, backoff.Entry{
					Key:        backoff.Key{UID: ds.UID, ObservedGeneration: ds.Status.ObservedGeneration, NodeName: n},
					Delay:      pick(r, time.Second, 2*time.Second, 8*time.Second, backoff.Max),
					LastUpdate: s.c.Now.Add(-pick(r, 0, 500*time.Millisecond, 5*time.Second, 20*time.Minute, 40*time.Minute)),
				})
			}
		}
		s.c.FailedPodBackoff = backoff.New(entries...)
	}
	s.c.BurstReplicas = pick(r, 0, 0, 0, 0, 0, 0, 1, 2, 3)
	return s.c
}

func (g *generator) chaosDaemonSet(s *chaosState) {
	r := g.r
	name := pick(r, "agent", "fluentd", "node-exporter")
	gen := int64(1 + r.IntN(4))
	ds := DaemonSet(name, WithImage(fmt.Sprintf("registry.example/%s:v%d", name, gen)))
	ds.Namespace = pick(r, "default", "default", "kube-system")
	ds.Generation = gen
	if g.chance(0.3) {
		ds.Spec.Template.Labels["tier"] = "node"
		ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"node"}}}
	}
	switch x := r.IntN(100); {
	case x < 3:
		ds.Spec.Selector = &metav1.LabelSelector{}
	case x < 5:
		ds.Spec.Selector.MatchExpressions = append(ds.Spec.Selector.MatchExpressions, metav1.LabelSelectorRequirement{Key: "tier", Operator: "Bogus"})
	case x < 8: // the API server would refuse it; the controller does not check
		ds.Spec.Template.Labels["app"] = name + "-other"
	}
	if g.chance(0.03) {
		ds.DeletionTimestamp = &metav1.Time{Time: Epoch.Add(-time.Minute)}
	}

	spec := &ds.Spec.Template.Spec
	if g.chance(0.2) {
		WithNodeSelector(pick(r, "zone", "role"), pick(r, "a", "worker"))(ds)
	}
	if g.chance(0.2) {
		spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: chaosTerms(g)},
		}}
	}
	if g.chance(0.3) {
		WithToleration(controlPlaneTaint, corev1.TaintEffectNoSchedule)(ds)
	}
	if g.chance(0.15) {
		WithToleration("dedicated", corev1.TaintEffectNoExecute)(ds)
	}
	if g.chance(0.1) {
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "infra", Effect: corev1.TaintEffectNoSchedule})
	}
	if g.chance(0.1) {
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: levelTaint, Operator: corev1.TolerationOpGt, Value: "2", Effect: corev1.TaintEffectNoSchedule})
	}
	spec.HostNetwork = g.chance(0.15)

	switch x := r.IntN(12); {
	case x < 2:
		OnDelete()(ds)
	case x == 2:
		ds.Spec.UpdateStrategy.RollingUpdate = nil
	default:
		ru := ds.Spec.UpdateStrategy.RollingUpdate
		ru.MaxUnavailable = chaosBudget(g, "1", "2", "0%", "10%", "25%", "50%", "100%")
		ru.MaxSurge = chaosBudget(g, "1", "2", "0%", "10%", "50%", "100%")
	}
	ds.Spec.MinReadySeconds = pick[int32](r, 0, 0, 0, 5, 30, 120)
	if g.chance(0.1) {
		ds.Spec.RevisionHistoryLimit = nil
	} else {
		l := pick[int32](r, 0, 1, 2, 10)
		ds.Spec.RevisionHistoryLimit = &l
	}
	if g.chance(0.25) {
		v := strconv.FormatInt(gen, 10)
		if g.chance(0.1) {
			v = "bad"
		}
		ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: v}
	}
	if g.chance(0.1) {
		cc := int32(r.IntN(3))
		ds.Status.CollisionCount = &cc
	}
	for k := int64(1); k < gen; k++ {
		old := ds.DeepCopy()
		WithImage(fmt.Sprintf("registry.example/%s:v%d", name, k))(old)
		s.old = append(s.old, old)
	}
	s.c.DaemonSet = ds
}

// chaosBudget returns a budget: mostly 0 or one of values, sometimes nil or
// unparsable.
func chaosBudget(g *generator, values ...string) *intstr.IntOrString {
	switch x := g.r.IntN(40); {
	case x == 0:
		return nil
	case x == 1:
		v := intstr.FromString("abc%")
		return &v
	case x < 16:
		v := intstr.FromInt32(0)
		return &v
	}
	v := intstr.Parse(pick(g.r, values...))
	return &v
}

func chaosTerms(g *generator) []corev1.NodeSelectorTerm {
	zone := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}}}
	noGPU := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "gpu", Operator: corev1.NodeSelectorOpDoesNotExist}}}
	switch g.r.IntN(3) {
	case 0:
		return []corev1.NodeSelectorTerm{zone}
	case 1:
		return []corev1.NodeSelectorTerm{noGPU}
	}
	return []corev1.NodeSelectorTerm{zone, noGPU}
}

// levelTaint is a taint key with numeric values, for the Gt and Lt
// toleration operators.
const levelTaint = "example.com/level"

func (g *generator) chaosNodes(s *chaosState, n int) {
	r := g.r
	for i := range n {
		name := fmt.Sprintf("node-%d", i)
		node := Node(name, WithLabel("zone", pick(r, "a", "b", "c")), WithLabel("role", pick(r, "worker", "worker", "infra")))
		node.UID = types.UID("uid-" + name)
		if g.chance(0.15) {
			WithLabel("gpu", "true")(node)
		}
		if g.chance(0.15) {
			WithLabel(controlPlaneTaint, "")(node)
			WithTaint(controlPlaneTaint, "", corev1.TaintEffectNoSchedule)(node)
		}
		if g.chance(0.1) && !(s.calm && g.chance(0.7)) {
			NotReady()(node)
		}
		if g.chance(0.1) {
			Unschedulable()(node)
		}
		if g.chance(0.08) {
			WithTaint("dedicated", "infra", pick(r, corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute))(node)
		}
		if g.chance(0.08) {
			WithTaint(corev1.TaintNodeMemoryPressure, "", corev1.TaintEffectNoSchedule)(node)
		}
		if g.chance(0.08) {
			WithTaint(corev1.TaintNodeNetworkUnavailable, "", corev1.TaintEffectNoSchedule)(node)
		}
		if g.chance(0.1) {
			WithTaint(levelTaint, strconv.Itoa(1+r.IntN(5)), corev1.TaintEffectNoSchedule)(node)
		}
		s.c.Nodes = append(s.c.Nodes, node)
		s.nodeNames = append(s.nodeNames, name)
	}
	r.Shuffle(len(s.c.Nodes), func(i, j int) { s.c.Nodes[i], s.c.Nodes[j] = s.c.Nodes[j], s.c.Nodes[i] })
	for i := range r.IntN(3) {
		if s.calm && g.chance(0.7) {
			break
		}
		s.missing = append(s.missing, fmt.Sprintf("gone-%d", i))
	}
}

// chaosStatus writes a stored status that is right, stale or random.
func (g *generator) chaosStatus(s *chaosState) {
	ds := s.c.DaemonSet
	ds.Status.ObservedGeneration = int64(g.r.IntN(int(ds.Generation) + 1))
	if g.chance(0.5) {
		return // all zero: a DaemonSet never synced
	}
	if g.chance(0.5) {
		// What Compute itself finds, with the cluster's own options (the
		// comparison-operators gate decides which nodes count): a settled
		// status (possibly stale in observedGeneration).
		if plan, err := s.c.Input().Compute(); err == nil && plan.Skip == daemon.SkipNone {
			st := plan.Status
			st.ObservedGeneration = ds.Status.ObservedGeneration
			ds.Status = st
		}
		return
	}
	n := int32(len(s.c.Nodes) + 1)
	st := &ds.Status
	st.DesiredNumberScheduled, st.CurrentNumberScheduled = g.r.Int32N(n), g.r.Int32N(n)
	st.NumberReady, st.NumberAvailable = g.r.Int32N(n), g.r.Int32N(n)
	st.UpdatedNumberScheduled, st.NumberUnavailable, st.NumberMisscheduled = g.r.Int32N(n), g.r.Int32N(n), g.r.Int32N(n)
}
