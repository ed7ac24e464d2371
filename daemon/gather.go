package daemon

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Reading in batches.
//
// In a large cluster the nodes and pods a plan reads have left the CPU
// caches, and deciding one object takes a chain of dependent reads: the
// object, then what it points to (its label map, its name's bytes, its
// conditions), then the map's entries. Read one object at a time, each
// link waits for the one before, and the memory system serves one read
// at a time. So the passes over nodes and pods read a batch of objects
// ahead of deciding them, one link at a time: first a field of every
// object of the batch, then what each points to, then the map entries.
// The reads of one link are independent of each other, so the memory
// system serves them together; when the batch is then decided, what it
// needs is in the nearest caches.
//
// The gather functions change no result. They return a number that
// depends on what they read, which the caller adds to scratch.touched so
// that the compiler keeps the reads. They read only objects validateInput
// has accepted (none is nil).

// gatherBatch is how many objects a pass reads ahead at a time: enough
// independent reads to keep the memory system busy, few enough that the
// batch is still in the nearest caches when it is decided. 8 measured best
// of 4, 8 and 16 in the plan, and of 1, 8, 16 and 32 in the read floor
// (BENCHMARKS.md, 2026-11-25).
const gatherBatch = 8

// gatherNames reads the name of every node of batch, which its sort key
// is made from.
func gatherNames(batch []*corev1.Node) int {
	sum := 0
	for _, n := range batch {
		sum += firstByte(n.Name)
	}
	return sum
}

// gatherPods reads what claiming and judging the pods of batch reads:
// their metadata, target node, phase and conditions, then their label map,
// names, owner references and conditions, then the revision hash label.
func gatherPods(batch []*corev1.Pod) int {
	sum := 0
	for _, p := range batch {
		sum += len(p.Name) + len(p.Spec.NodeName) + len(p.Status.Phase) +
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
	}
	return sum
}

// gatherNodes reads, of the nodes that keys index, what their
// eligibility check reads: their label map and taints, then the map's entry for labelKey
// (the first label the check reads; "" when it reads none).
func gatherNodes(nodes []*corev1.Node, keys []nameKey, labelKey string) int {
	sum := 0
	for _, k := range keys {
		n := nodes[k.i]
		sum += len(n.Spec.Taints) + boolInt(n.Labels != nil)
	}
	for _, k := range keys {
		n := nodes[k.i]
		sum += len(n.Labels)
		if t := n.Spec.Taints; len(t) > 0 {
			sum += len(t[0].Key) + len(t[len(t)-1].Key)
		}
	}
	if labelKey != "" {
		for _, k := range keys {
			sum += len(nodes[k.i].Labels[labelKey])
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
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
