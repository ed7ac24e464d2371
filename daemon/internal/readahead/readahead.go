package readahead

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/internal/namesort"
)

// Batch is how many objects a pass reads ahead at a time: enough
// independent reads to keep the memory system busy, few enough that the
// batch is still in the nearest caches when it is decided. 8 measured best
// of 4, 8 and 16 in the plan, and of 1, 8, 16 and 32 in the read floor
// (BENCHMARKS.md, 2026-11-25).
const Batch = 8

// Names reads the name of every node of batch, which its sort key is made
// from.
func Names(batch []*corev1.Node) int {
	sum := 0
	for _, n := range batch {
		sum += firstByte(n.Name)
	}
	return sum
}

// Pods reads what claiming and judging the pods of batch reads: their
// metadata (the name and the namespace, the claim's first read, lie in
// two cache lines), target node, phase and conditions, then their label map,
// names, owner references and conditions, then the revision hash label and
// the controller flag of the first owner reference (a pointer to a bool of
// its own, which the claim reads first).
func Pods(batch []*corev1.Pod) int {
	sum := 0
	for _, p := range batch {
		sum += len(p.Name) + len(p.Namespace) + len(p.Spec.NodeName) + len(p.Status.Phase) +
			len(p.Status.Conditions) + len(p.OwnerReferences) + boolInt(p.Labels != nil)
	}
	for _, p := range batch {
		sum += len(p.Labels) + firstByte(p.Name) + firstByte(p.Spec.NodeName)
		for k := range p.Status.Conditions {
			sum += len(p.Status.Conditions[k].Type)
		}
		if refs := p.OwnerReferences; len(refs) > 0 {
			sum += len(refs[0].UID)
		}
	}
	for _, p := range batch {
		sum += len(p.Labels[appsv1.ControllerRevisionHashLabelKey])
		if refs := p.OwnerReferences; len(refs) > 0 && refs[0].Controller != nil {
			sum += boolInt(*refs[0].Controller)
		}
	}
	return sum
}

// Nodes reads, of the nodes that keys index, what their eligibility check
// reads: their name (the node's view copies it, the node affinity reads
// it), label map and taints, then the map's entry for labelKey, a
// hint: the first label the check reads (see LabelKey), "" when it reads
// none.
func Nodes(nodes []*corev1.Node, keys []namesort.Key, labelKey string) int {
	sum := 0
	for _, k := range keys {
		n := nodes[k.Index()]
		sum += len(n.Name) + len(n.Spec.Taints) + boolInt(n.Labels != nil)
	}
	for _, k := range keys {
		n := nodes[k.Index()]
		sum += len(n.Labels)
		if t := n.Spec.Taints; len(t) > 0 {
			sum += len(t[0].Key) + len(t[len(t)-1].Key)
		}
	}
	if labelKey != "" {
		for _, k := range keys {
			sum += len(nodes[k.Index()].Labels[labelKey])
		}
	}
	return sum
}

// firstByte returns s's first byte, 0 when s is empty.
func firstByte(s string) int {
	if s == "" {
		return 0
	}
	return int(s[0])
}

// boolInt returns 1 for true and 0 for false.
// NodeIdentities reads the identity of every node of batch: the name and
// resourceVersion a Planner's memo recognises a node by (two cache lines
// of its metadata). Unlike the others it reads objects no one has checked
// yet: it skips nil ones.
func NodeIdentities(batch []*corev1.Node) int {
	sum := 0
	for _, n := range batch {
		if n != nil {
			sum += len(n.Name) + len(n.ResourceVersion)
		}
	}
	return sum
}

// PodIdentities is NodeIdentities for pods.
func PodIdentities(batch []*corev1.Pod) int {
	sum := 0
	for _, p := range batch {
		if p != nil {
			sum += len(p.Name) + len(p.ResourceVersion)
		}
	}
	return sum
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// LabelKey returns the node label the placement check of spec reads
// first: the least key of the nodeSelector, else the key of the first
// label requirement of the required node affinity, else "". It is the hint
// Nodes takes.
func LabelKey(spec *corev1.PodSpec) string {
	if len(spec.NodeSelector) > 0 {
		first, least := true, ""
		for key := range spec.NodeSelector {
			if first || key < least {
				first, least = false, key
			}
		}
		return least
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			if len(term.MatchExpressions) > 0 {
				return term.MatchExpressions[0].Key
			}
		}
	}
	return ""
}
