package companion

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// progress is where a rollout stands, as the companion reports it in its
// conditions, events and metrics: counts over the desired nodes in the
// policy's scope, per wave when the policy orders by a label.
type progress struct {
	// Desired is the number of desired nodes in scope; Updated of them run
	// an updated, available pod and no old one.
	Desired, Updated int
	// Held is the number of desired nodes outside the scope; Old the
	// number of desired nodes in scope that run an old pod.
	Held, Old int
	// Label is the order label; Waves its values in update order (nil
	// without one).
	Label string
	Waves []wave
	// Waiting are the desired nodes in scope whose pod is being replaced:
	// none yet, being deleted, or updated and not yet available. Sorted by
	// name.
	Waiting []string
	// LastAvailable is the latest moment an updated pod on a desired node
	// in scope became available (zero when none has).
	LastAvailable time.Time
}

// wave is one value of the order label.
type wave struct {
	Value string
	// Unlabelled is true for the nodes without the label (Value "").
	Unlabelled bool
	// Desired counts the wave's desired nodes, Updated those of them that
	// run an updated, available pod and no old one, Old those that run an
	// old pod.
	Desired, Updated, Old int
}

func (w wave) complete() bool { return w.Updated == w.Desired }

func (w wave) name(label string) string {
	short := label[strings.LastIndexByte(label, '/')+1:]
	if w.Unlabelled {
		return "nodes without " + short
	}
	return short + " " + w.Value
}

// measure computes the progress of ds's rollout to revision hash under
// policy at now. elig is ds's compiled placement check. Pods not
// controlled by ds are ignored.
func measure(ds *appsv1.DaemonSet, elig *daemon.Eligibility, policy *daemon.RolloutPolicy, nodes []*corev1.Node, pods []*corev1.Pod, hash string, now time.Time) progress {
	generation, _ := rollout.GetTemplateGeneration(ds)
	byNode := map[string][]*corev1.Pod{}
	for _, p := range pods {
		if ref := metav1.GetControllerOf(p); ref == nil || ref.UID != ds.UID {
			continue
		}
		n, err := affinity.GetTargetNodeName(p)
		if err != nil {
			continue
		}
		byNode[n] = append(byNode[n], p)
	}
	var scope labels.Selector
	if policy.Scope != nil {
		// A malformed scope fails Compute first; treat it as everything.
		scope, _ = metav1.LabelSelectorAsSelector(policy.Scope)
	}
	var pr progress
	pr.Label = policy.Order.Label
	waves := map[string]*wave{}
	for _, node := range nodes {
		if run, _ := elig.ShouldRun(node); !run {
			continue
		}
		if scope != nil && !scope.Matches(labels.Set(node.Labels)) {
			pr.Held++
			continue
		}
		var w *wave
		if pr.Label != "" {
			v, ok := node.Labels[pr.Label]
			key := "=" + v
			if !ok {
				key = "!"
			}
			if w = waves[key]; w == nil {
				w = &wave{Value: v, Unlabelled: !ok}
				waves[key] = w
			}
			w.Desired++
		}
		pr.Desired++
		var live, updated, updatedAvailable, old int
		for _, p := range byNode[node.Name] {
			if p.DeletionTimestamp != nil {
				continue
			}
			live++
			if !rollout.IsPodUpdated(p, hash, generation) {
				old++
				continue
			}
			updated++
			if rollout.IsPodAvailable(p, ds.Spec.MinReadySeconds, now) {
				updatedAvailable++
				if at := rollout.AvailableSince(p, ds.Spec.MinReadySeconds); at.After(pr.LastAvailable) {
					pr.LastAvailable = at
				}
			}
		}
		if old > 0 {
			pr.Old++
			if w != nil {
				w.Old++
			}
		}
		switch {
		case updatedAvailable > 0 && old == 0:
			pr.Updated++
			if w != nil {
				w.Updated++
			}
		case live == 0 || updated > 0:
			pr.Waiting = append(pr.Waiting, node.Name)
		}
	}
	slices.Sort(pr.Waiting)
	for _, w := range waves {
		pr.Waves = append(pr.Waves, *w)
	}
	rank := func(w wave) int {
		if w.Unlabelled {
			return len(policy.Order.Values) + 1
		}
		if i := slices.Index(policy.Order.Values, w.Value); i >= 0 {
			return i
		}
		return len(policy.Order.Values)
	}
	slices.SortFunc(pr.Waves, func(a, b wave) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.Value, b.Value))
	})
	return pr
}

// current is the index of the first wave not complete, -1 when every wave
// is (or there are none).
func (p progress) current() int {
	for i, w := range p.Waves {
		if !w.complete() {
			return i
		}
	}
	return -1
}

// summary says where the rollout is, for people: "zone us-east-1b: 4/10
// updated (wave 2 of 3); 14/30 nodes updated; waiting for w-17 to become
// available". A complete rollout (complete at a partition too) names no
// current wave.
func (p progress) summary(complete bool) string {
	var parts []string
	if i := p.current(); i >= 0 && !complete {
		w := p.Waves[i]
		parts = append(parts, fmt.Sprintf("%s: %d/%d updated (wave %d of %d)", w.name(p.Label), w.Updated, w.Desired, i+1, len(p.Waves)))
	}
	total := fmt.Sprintf("%d/%d nodes updated", p.Updated, p.Desired)
	if p.Held > 0 {
		total += fmt.Sprintf(" (%d outside the scope)", p.Held)
	}
	parts = append(parts, total)
	if len(p.Waiting) > 0 {
		parts = append(parts, "waiting for "+nodeList(p.Waiting, 3)+" to become available")
	}
	return strings.Join(parts, "; ")
}

// nodeList names up to n nodes, then how many more there are.
func nodeList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
