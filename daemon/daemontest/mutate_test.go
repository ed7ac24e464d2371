package daemontest_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon/backoff"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// mutation changes one input in place; r draws its choices. It returns a
// short description.
type mutation func(in *simulate.Input, r *rand.Rand) string

// mutations are the changes mutate draws from. Each keeps names unique
// (so the input stays a possible cluster, mostly) and never panics on empty
// slices.
var mutations = []mutation{
	func(in *simulate.Input, r *rand.Rand) string {
		d := time.Duration(r.Int64N(int64(2*time.Hour))) - time.Hour
		in.Options.Now = in.Options.Now.Add(d)
		return "clock " + d.String()
	},
	func(in *simulate.Input, r *rand.Rand) string {
		if len(in.Nodes) == 0 {
			return "no node to drop"
		}
		i := r.IntN(len(in.Nodes))
		in.Nodes = slices.Delete(in.Nodes, i, i+1)
		return "drop a node"
	},
	func(in *simulate.Input, r *rand.Rand) string {
		n := someNode(in, r).DeepCopy()
		if n == nil || r.IntN(2) == 0 {
			n = dt.Node("x")
		}
		n.Name = fmt.Sprintf("fuzz-node-%d", r.IntN(1000))
		n.UID = types.UID("uid-" + n.Name)
		switch r.IntN(4) {
		case 0:
			dt.NotReady()(n)
		case 1:
			dt.WithTaint("dedicated", "infra", corev1.TaintEffectNoExecute)(n)
		}
		if slices.ContainsFunc(in.Nodes, func(m *corev1.Node) bool { return m != nil && m.Name == n.Name }) {
			return "node exists"
		}
		in.Nodes = append(in.Nodes, n)
		return "add node " + n.Name
	},
	func(in *simulate.Input, r *rand.Rand) string {
		if len(in.Pods) == 0 {
			return "no pod to drop"
		}
		i := r.IntN(len(in.Pods))
		in.Pods = slices.Delete(in.Pods, i, i+1)
		return "drop a pod"
	},
	func(in *simulate.Input, r *rand.Rand) string {
		p := somePod(in, r)
		if p == nil {
			return "no pod"
		}
		p.Status.Phase = []corev1.PodPhase{corev1.PodRunning, corev1.PodPending, corev1.PodFailed, corev1.PodSucceeded, corev1.PodUnknown}[r.IntN(5)]
		return "phase " + string(p.Status.Phase)
	},
	func(in *simulate.Input, r *rand.Rand) string {
		p := somePod(in, r)
		if p == nil {
			return "no pod"
		}
		since := in.Options.Now.Add(-time.Duration(r.IntN(120)) * time.Second)
		if r.IntN(2) == 0 {
			dt.ReadySince(since)(p)
			return "ready"
		}
		dt.NotReadyPod()(p)
		return "not ready"
	},
	func(in *simulate.Input, r *rand.Rand) string {
		p := somePod(in, r)
		if p == nil {
			return "no pod"
		}
		if p.DeletionTimestamp != nil {
			p.DeletionTimestamp = nil
			return "undelete"
		}
		p.DeletionTimestamp = &metav1.Time{Time: in.Options.Now}
		return "deleting"
	},
	func(in *simulate.Input, r *rand.Rand) string {
		p := somePod(in, r)
		if p == nil || p.Spec.NodeName == "" {
			return "no scheduled pod"
		}
		dt.Unscheduled()(p)
		return "unschedule"
	},
	func(in *simulate.Input, r *rand.Rand) string {
		p, q := somePod(in, r), somePod(in, r)
		if p == nil {
			return "no pod"
		}
		p.Labels = maps(p.Labels)
		p.Labels[appsv1.ControllerRevisionHashLabelKey] = q.Labels[appsv1.ControllerRevisionHashLabelKey]
		return "copy a hash"
	},
	func(in *simulate.Input, r *rand.Rand) string {
		p, n := somePod(in, r), someNode(in, r)
		if p == nil || n == nil {
			return "no pod or node"
		}
		q := p.DeepCopy()
		q.Name = fmt.Sprintf("%s-fuzz-%d", p.Name, r.IntN(1000))
		q.UID = types.UID("uid-" + q.Name)
		q.Spec.NodeName = n.Name
		q.Spec.Affinity = nil
		q.CreationTimestamp = metav1.Time{Time: in.Options.Now.Add(-time.Duration(r.IntN(3)) * time.Second)}
		if slices.ContainsFunc(in.Pods, func(x *corev1.Pod) bool { return x != nil && x.Namespace == q.Namespace && x.Name == q.Name }) {
			return "pod exists"
		}
		in.Pods = append(in.Pods, q)
		return "copy a pod to " + q.Spec.NodeName
	},
	func(in *simulate.Input, r *rand.Rand) string {
		p := somePod(in, r)
		if p == nil {
			return "no pod"
		}
		p.OwnerReferences = nil
		return "orphan"
	},
	func(in *simulate.Input, r *rand.Rand) string {
		if in.DaemonSet == nil {
			return "no DaemonSet"
		}
		budgets := []string{"0", "1", "2", "0%", "10%", "50%", "100%"}
		mu, ms := intstr.Parse(budgets[r.IntN(len(budgets))]), intstr.Parse(budgets[r.IntN(len(budgets))])
		in.DaemonSet.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &mu, MaxSurge: &ms}}
		return "budgets " + mu.String() + "/" + ms.String()
	},
	func(in *simulate.Input, r *rand.Rand) string {
		if in.DaemonSet == nil {
			return "no DaemonSet"
		}
		in.DaemonSet.Spec.MinReadySeconds = []int32{0, 1, 10, 60}[r.IntN(4)]
		return "minReadySeconds " + strconv.Itoa(int(in.DaemonSet.Spec.MinReadySeconds))
	},
	func(in *simulate.Input, r *rand.Rand) string {
		in.Options.BurstReplicas = r.IntN(4)
		return "burst " + strconv.Itoa(in.Options.BurstReplicas)
	},
	func(in *simulate.Input, r *rand.Rand) string {
		revs := in.Options.Revisions
		if len(revs) == 0 {
			return "no revision"
		}
		i := r.IntN(len(revs))
		if r.IntN(2) == 0 {
			in.Options.Revisions = slices.Delete(revs, i, i+1)
			return "drop a revision"
		}
		if revs[i] == nil {
			return "nil revision"
		}
		revs[i].Labels = maps(revs[i].Labels)
		delete(revs[i].Labels, appsv1.ControllerRevisionHashLabelKey)
		return "unlabel a revision"
	},
	func(in *simulate.Input, r *rand.Rand) string {
		n := someNode(in, r)
		if in.DaemonSet == nil || n == nil {
			return "no DaemonSet or node"
		}
		key := backoff.Key{UID: in.DaemonSet.UID, ObservedGeneration: in.DaemonSet.Status.ObservedGeneration, NodeName: n.Name}
		in.Options.FailedPodBackoff = backoff.New(append(in.Options.FailedPodBackoff.Entries(), backoff.Entry{
			Key: key, Delay: time.Duration(1+r.IntN(16)) * time.Second, LastUpdate: in.Options.Now.Add(-time.Duration(r.IntN(20)) * time.Second),
		})...)
		return "backoff on " + n.Name
	},
	func(in *simulate.Input, r *rand.Rand) string {
		if in.DaemonSet == nil {
			return "no DaemonSet"
		}
		in.DaemonSet.Spec.Template.Spec.Containers = slices.Clone(in.DaemonSet.Spec.Template.Spec.Containers)
		if len(in.DaemonSet.Spec.Template.Spec.Containers) > 0 {
			in.DaemonSet.Spec.Template.Spec.Containers[0].Image = fmt.Sprintf("registry.example/fuzz:%d", r.IntN(3))
		}
		in.DaemonSet.Generation++
		return "template change"
	},
}

// somePod returns a pod of in drawn by r, or nil when in has none.
func somePod(in *simulate.Input, r *rand.Rand) *corev1.Pod {
	var pods []*corev1.Pod
	for _, p := range in.Pods {
		if p != nil {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		return nil
	}
	return pods[r.IntN(len(pods))]
}

// someNode returns a node of in drawn by r, or nil when in has none.
func someNode(in *simulate.Input, r *rand.Rand) *corev1.Node {
	var nodes []*corev1.Node
	for _, n := range in.Nodes {
		if n != nil {
			nodes = append(nodes, n)
		}
	}
	if len(nodes) == 0 {
		return nil
	}
	return nodes[r.IntN(len(nodes))]
}

func maps(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// mutate returns a deep copy of base changed by zero to four mutations
// drawn by r, and their descriptions. base is not modified.
func mutate(base simulate.Input, r *rand.Rand) (simulate.Input, []string) {
	in := base.DeepCopy()
	var did []string
	for range r.IntN(5) {
		did = append(did, mutations[r.IntN(len(mutations))](&in, r))
	}
	return in.Permute(r), did
}
