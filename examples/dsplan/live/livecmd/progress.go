package livecmd

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// progress is where a rollout stands: desired nodes, those updated and
// available, per wave of the order label.
type progress struct {
	desired, updated int
	label            string
	waves            []waveCount
	// lastAvailable is when the last updated pod became available (zero
	// when none has, or none recorded when).
	lastAvailable time.Time
}

type waveCount struct {
	name             string
	updated, desired int
}

// measure counts the desired nodes and those running an updated,
// available pod of ds (the revision of its template), per wave of the
// policy's order label.
func measure(ds *appsv1.DaemonSet, policy *daemon.RolloutPolicy, nodes []*corev1.Node, pods []*corev1.Pod, opts daemon.Options) (progress, error) {
	byNode, err := daemon.StatusByNode(ds, nodes, pods, opts)
	if err != nil {
		return progress{}, err
	}
	hash := rollout.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
	done := map[string]bool{}
	var pr progress
	for _, p := range pods {
		if ref := metav1.GetControllerOfNoCopy(p); ref == nil || ref.UID != ds.UID || p.DeletionTimestamp != nil || p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != hash {
			continue
		}
		if rollout.IsPodAvailable(p, ds.Spec.MinReadySeconds, opts.Now) {
			done[p.Spec.NodeName] = true
			if at := rollout.AvailableSince(p, ds.Spec.MinReadySeconds); at.After(pr.lastAvailable) {
				pr.lastAvailable = at
			}
		}
	}
	var desired []*corev1.Node
	for _, n := range byNode {
		if n.ShouldRun {
			desired = append(desired, n.Node)
			pr.desired++
			if done[n.Node.Name] {
				pr.updated++
			}
		}
	}
	pr.label = policy.Order.Label
	for _, wv := range policy.WavesOf(desired) {
		c := waveCount{name: strings.TrimPrefix(wv.Name, pr.label+"="), desired: len(wv.Nodes)}
		for _, n := range wv.Nodes {
			if done[n] {
				c.updated++
			}
		}
		pr.waves = append(pr.waves, c)
	}
	return pr, nil
}

// line is the progress line: the counts, per wave, and the reason.
func (pr progress) line(reason daemon.RolloutReason) string {
	s := fmt.Sprintf("%d/%d nodes updated and available", pr.updated, pr.desired)
	if len(pr.waves) > 0 {
		parts := make([]string, len(pr.waves))
		for i, wv := range pr.waves {
			parts[i] = fmt.Sprintf("%s %d/%d", wv.name, wv.updated, wv.desired)
		}
		s += " (waves by " + pr.label + ": " + strings.Join(parts, ", ") + ")"
	}
	return s + "; " + reason.String()
}
