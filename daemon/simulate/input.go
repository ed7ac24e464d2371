package simulate

import (
	"math/rand/v2"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// Input is the argument list of one daemon.Compute call.
type Input struct {
	DaemonSet *appsv1.DaemonSet
	Nodes     []*corev1.Node
	Pods      []*corev1.Pod
	Options   daemon.Options
}

// Compute calls daemon.Compute on in.
func (in Input) Compute() (daemon.Plan, error) {
	return daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, in.Options)
}

// DeepCopy returns a copy of in that shares no object with it: the
// DaemonSet, every node, pod and revision are deep-copied. nil entries and
// nil slices stay nil; the backoff state is an immutable value and is
// shared.
func (in Input) DeepCopy() Input {
	out := in
	out.DaemonSet = in.DaemonSet.DeepCopy()
	out.Nodes = deepCopyAll(in.Nodes, (*corev1.Node).DeepCopy)
	out.Pods = deepCopyAll(in.Pods, (*corev1.Pod).DeepCopy)
	out.Options.Revisions = deepCopyAll(in.Options.Revisions, (*appsv1.ControllerRevision).DeepCopy)
	return out
}

// Permute returns a copy of in whose nodes, pods and revisions are shuffled
// by r. The objects themselves are shared with in; in is not modified.
func (in Input) Permute(r *rand.Rand) Input {
	out := in
	out.Nodes = slices.Clone(in.Nodes)
	out.Pods = slices.Clone(in.Pods)
	out.Options.Revisions = slices.Clone(in.Options.Revisions)
	r.Shuffle(len(out.Nodes), func(i, j int) { out.Nodes[i], out.Nodes[j] = out.Nodes[j], out.Nodes[i] })
	r.Shuffle(len(out.Pods), func(i, j int) { out.Pods[i], out.Pods[j] = out.Pods[j], out.Pods[i] })
	revs := out.Options.Revisions
	r.Shuffle(len(revs), func(i, j int) { revs[i], revs[j] = revs[j], revs[i] })
	return out
}

// deepCopyAll copies every element of s with cp; nil stays nil (the
// generated DeepCopy methods return nil for a nil receiver).
func deepCopyAll[T any](s []*T, cp func(*T) *T) []*T {
	if s == nil {
		return nil
	}
	out := make([]*T, len(s))
	for i, x := range s {
		out[i] = cp(x)
	}
	return out
}
