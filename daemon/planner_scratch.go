package daemon

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// scratch is the working memory of one plan that a Planner keeps for the
// next: the per-pod and per-node slices of the cluster view, the nodes
// given to the rolling-update step and the create/delete decisions before
// the burst cap. Nothing in it outlives a plan in use:
// what a plan returns is copied out (see detach).
type scratch struct {
	cluster                                    cluster
	placed                                     []placedPod
	claimed, byName, adopt, release, unplaced  []*corev1.Pod
	grouped                                    []*corev1.Pod
	states                                     []rollout.PodState
	kinds                                      []podKind
	claimedKeys, placedKeys, nodeKeys, sortBuf []nameKey
	nodes, missing                             []rollout.Node
	info                                       []nodeInfo
	rollout                                    []rollout.Node
	creates                                    []wantCreate
	deletes                                    []wantDelete
	// touched is a sink for the reads newCluster's passes make ahead of
	// deciding (see gatherBatch).
	touched int
}

// reuse returns *p emptied, with room for n elements: its own memory,
// cleared so that it holds no pointer of an earlier plan, when large
// enough, else new memory, which *p then keeps. A nil *p and n == 0 give
// nil, so that empty results stay nil as Compute's are.
func reuse[T any](p *[]T, n int) []T {
	if cap(*p) < n {
		*p = make([]T, 0, n) // new memory is already zero
		return *p
	}
	s := (*p)[:cap(*p)]
	clear(s)
	return s[:0]
}

// keep records in s the slices the cluster grew by appending, so that the
// next plan starts with their capacity.
func (s *scratch) keep(c *cluster) {
	s.adopt, s.release, s.unplaced = c.adopt, c.release, c.unplaced
	s.missing = c.missing
}

// detach returns pods as a plan may hold them: as is when the plan was
// computed in new memory (s == nil), else a copy, nil when empty, that no
// later plan overwrites.
func detach(pods []*corev1.Pod, s *scratch) []*corev1.Pod {
	if s == nil {
		return pods
	}
	if len(pods) == 0 {
		return nil
	}
	return append([]*corev1.Pod(nil), pods...)
}
