package rollout_test

import (
	"cmp"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/rollout"
)

// policyInput puts policy facts on the nodes of stepInput, drawn from a
// generator seeded with data: holds, ranks, domains and waves, each on or
// off; and a policy (partition, strict, domain budgets, a wave barrier).
func policyInput(data []byte) (nodes []rollout.Node, p rollout.Policy) {
	h := fnv.New64a()
	h.Write(data)
	r := rand.New(rand.NewPCG(h.Sum64(), 0x7761766573))
	_, nodes = stepInput(data)
	hold, rank, domain, waves := r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0
	for i := range nodes {
		n := &nodes[i]
		if hold {
			n.Frozen = r.IntN(4) == 0
		}
		if rank {
			n.Rank = r.Int32N(6)
		}
		if domain {
			n.Domain = r.Int32N(3)
		}
		if waves {
			n.Wave = r.Int32N(3) - 1
		}
	}
	p.Partition = []int{0, 0, 1, 3}[r.IntN(4)]
	p.Strict = r.IntN(3) == 0
	if domain {
		p.DomainMaxUnavailable = []*intstr.IntOrString{nil, ip(1), sp("50%")}[r.IntN(3)]
		p.DomainMaxSurge = []*intstr.IntOrString{nil, ip(1)}[r.IntN(2)]
	}
	if waves {
		p.Waves = &rollout.WaveBarrier{Bake: []time.Duration{0, 30 * time.Minute, 2 * time.Hour}[r.IntN(3)]}
	}
	return nodes, p
}

// FuzzRollingUpdatePolicy checks the policy step on decoded input: it
// never panics; it modifies nothing; its step does not depend on the order
// of the nodes; it starts no replacement on a held node; it keeps the
// partition; and under a wave barrier it starts nothing on a node of a
// wave after the first one that is not done (every desired node not held
// running one live pod, new and available) and baked (the last wave needs
// no bake); and, with maxSurge 0, it leaves at most max(maxUnavailable,
// before) desired nodes without an available live pod, Strict and domain
// budgets included (see unavailableAfter).
func FuzzRollingUpdatePolicy(f *testing.F) {
	for _, seed := range stepSeeds {
		f.Add(seed)
	}
	f.Add([]byte("waves of nodes, held ones, ranks and domains"))
	// Strict with a domain budget of 1 (maxUnavailable 50%, 2 here): the step left
	// an unavailable old pod in a full domain uncounted and deleted one
	// available pod too many, 3 nodes down after it for a budget of 2.
	f.Add([]byte("\b\x00\x01\xb58d\n\x11\x99\x1d\x91\x02\xcd\xfc\x904\x8f:\xb2\x9e\xa3|\x8eEJE\xa2\xf6GuM\xcaa\xf6p\x8e\xde\x121\x94\x8c\x18\xcb\xcd{\x96\x8ch1\xfe\x89\x02{/"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, _ := stepInput(data)
		nodes, p := policyInput(data)
		before := deepCopyNodes(nodes)
		step, err := rollout.RollingUpdatePolicy(ds, nodes, newHash, stepNow, p)
		if !reflect.DeepEqual(before, nodes) {
			t.Fatal("RollingUpdatePolicy modified its nodes")
		}
		if err != nil {
			return
		}
		shuffled := slices.Clone(nodes)
		rand.New(rand.NewPCG(uint64(len(data)), 3)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		again, err := rollout.RollingUpdatePolicy(ds, shuffled, newHash, stepNow, p)
		if err != nil || !reflect.DeepEqual(step, again) {
			t.Fatalf("step depends on node order: %v\n%+v\n%+v", err, step, again)
		}
		byName := map[string]*rollout.Node{}
		for i := range nodes {
			byName[nodes[i].Name] = &nodes[i]
		}
		started := map[string]bool{}
		for _, c := range step.Creates {
			started[c.NodeName] = true
		}
		for _, d := range step.Deletes {
			if d.Reason == rollout.ReasonRollingUpdate || d.Reason == rollout.ReasonReplaceUnavailable {
				started[d.NodeName] = true
			}
		}
		for name := range started {
			if byName[name].Frozen {
				t.Fatalf("a replacement on held node %s", name)
			}
		}
		if pol := step.Policy; pol != nil && p.Partition > 0 && len(started) > max(pol.Remaining-p.Partition, 0) {
			t.Fatalf("%d replacements, partition leaves %d", len(started), max(pol.Remaining-p.Partition, 0))
		}
		if p.Waves != nil {
			checkWaves(t, ds.Spec.MinReadySeconds, nodes, p.Waves.Bake, started)
		}
		if step.MaxSurge == 0 && step.Desired > 0 {
			deleted := map[*corev1.Pod]bool{}
			for _, d := range step.Deletes {
				deleted[d.Pod] = true
			}
			before, after := unavailableAfter(ds, nodes, nil), unavailableAfter(ds, nodes, deleted)
			if after > max(step.MaxUnavailable, before) {
				t.Fatalf("%d desired nodes without an available pod after the step, %d before, maxUnavailable %d", after, before, step.MaxUnavailable)
			}
		}
	})
}

// unavailableAfter counts the desired nodes (ShouldRun, not Missing) with
// no live available pod once the pods in gone are deleted.
func unavailableAfter(ds *appsv1.DaemonSet, nodes []rollout.Node, gone map[*corev1.Pod]bool) int {
	gen, _ := rollout.GetTemplateGeneration(ds)
	down := 0
	for i := range nodes {
		n := &nodes[i]
		if n.Missing || !n.ShouldRun {
			continue
		}
		up := false
		for _, pod := range n.Pods {
			if pod != nil && !gone[pod] && pod.DeletionTimestamp == nil {
				up = up || rollout.StateOf(pod, newHash, gen, ds.Spec.MinReadySeconds, stepNow).Available
			}
		}
		if !up {
			down++
		}
	}
	return down
}

// checkWaves is the barrier's invariant, judged from the nodes alone.
func checkWaves(t *testing.T, minReady int32, nodes []rollout.Node, bake time.Duration, started map[string]bool) {
	t.Helper()
	type wave struct {
		done bool
		last time.Time
	}
	waves := map[int32]*wave{}
	var keys []int32
	for i := range nodes {
		n := &nodes[i]
		w := waves[n.Wave]
		if w == nil {
			w = &wave{done: true}
			waves[n.Wave] = w
			keys = append(keys, n.Wave)
		}
		if n.Missing || !n.ShouldRun || n.Frozen {
			continue
		}
		var live []int
		for k, pod := range n.Pods {
			if pod != nil && pod.DeletionTimestamp == nil {
				live = append(live, k)
			}
		}
		if len(live) != 1 {
			w.done = false
			continue
		}
		pod := n.Pods[live[0]]
		if !rollout.IsPodUpdated(pod, newHash, nil) || !rollout.IsPodAvailable(pod, minReady, stepNow) {
			w.done = false
			continue
		}
		at := pod.Status.Conditions[0].LastTransitionTime.Add(time.Duration(minReady) * time.Second)
		if at.After(w.last) {
			w.last = at
		}
	}
	slices.SortFunc(keys, cmp.Compare)
	for k, key := range keys {
		w := waves[key]
		if w.done && (k == len(keys)-1 || !stepNow.Before(w.last.Add(bake))) {
			continue
		}
		for i := range nodes {
			if nodes[i].Wave > key && started[nodes[i].Name] {
				t.Fatalf("node %s of wave %d started while wave %d is not done and baked", nodes[i].Name, nodes[i].Wave, key)
			}
		}
		return
	}
}
