package scenario

import (
	"encoding/json"
	"errors"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// ExpectedPlan builds, from the recorded outcome alone, a plan and error
// that Judge accepts: a reference to test the judge and the harness with,
// not a planner. It reads no input besides s.
//
//   - A recorded Error becomes errors.New of its text, with an otherwise
//     zero plan; for a collision, History.CollisionCount is the recorded
//     collisionCount. (Error nil is a clean run, so ErrorMay is not used.)
//   - Each list X is taken with, when XCount asks for more, the first
//     entries of XMay up to XCount.Min. Pods and revisions are the
//     scenario's own pointers when a name is found among s.Pods or
//     s.Revisions, else new objects carrying only the name.
//   - Creates hold the recorded pod of CreatedPods for their node, else a
//     pod carrying only the node name in spec.nodeName.
//   - Hash is Hash; Status is the recorded status with StatusChanged, or,
//     when the status is null, the stored status with StatusChanged false.
//
// Its signature mirrors daemon.Compute: the error is the recorded one. A nil
// s gives a zero plan and an error saying so; a recorded pod that does not
// decode (Load refuses those) leaves a pod with only the node name, which
// Judge then reports.
func ExpectedPlan(s *Scenario) (daemon.Plan, error) {
	if s == nil {
		return daemon.Plan{}, errors.New("scenario is nil")
	}
	e := &s.Expected
	var plan daemon.Plan
	if e.Error != nil {
		msg := *e.Error
		if isCollision(msg) {
			for _, st := range append([]*appsv1.DaemonSetStatus{e.Status}, e.StatusMay...) {
				if st != nil && st.CollisionCount != nil {
					c := *st.CollisionCount
					plan.History.CollisionCount = &c
					break
				}
			}
		}
		return plan, errors.New(msg)
	}

	pods := make(map[string]*corev1.Pod, len(s.Pods))
	for _, p := range s.Pods {
		if p != nil {
			pods[p.Name] = p
		}
	}
	revs := make(map[string]*appsv1.ControllerRevision, len(s.Revisions))
	for _, r := range s.Revisions {
		if r != nil {
			revs[r.Name] = r
		}
	}
	pod := func(name string) *corev1.Pod {
		if p, ok := pods[name]; ok {
			return p
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	podList := func(names []string) []*corev1.Pod {
		var out []*corev1.Pod
		for _, n := range names {
			out = append(out, pod(n))
		}
		return out
	}
	revList := func(names []string) []*appsv1.ControllerRevision {
		var out []*appsv1.ControllerRevision
		for _, n := range names {
			if r, ok := revs[n]; ok {
				out = append(out, r)
				continue
			}
			out = append(out, &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: n}})
		}
		return out
	}

	lists := make(map[string][]string)
	for _, l := range e.Lists() {
		lists[l.Name] = pick(l)
	}
	for _, node := range lists["creates"] {
		p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: node}}
		if raw, ok := e.CreatedPods[node]; ok {
			var decoded corev1.Pod
			if err := json.Unmarshal(raw, &decoded); err == nil {
				p = &decoded
			}
		}
		plan.Creates = append(plan.Creates, daemon.Create{NodeName: node, Pod: p, Reason: daemon.ReasonNodeNeedsPod})
	}
	for _, name := range lists["deletes"] {
		p := pod(name)
		plan.Deletes = append(plan.Deletes, daemon.Delete{Pod: p, NodeName: p.Spec.NodeName})
	}
	plan.Adopt = podList(lists["adopts"])
	plan.Release = podList(lists["releases"])
	plan.History.Relabel = podList(lists["relabels"])
	if created := revList(lists["revisionsCreated"]); len(created) > 0 {
		plan.History.Create = created[0]
	}
	plan.History.Delete = revList(lists["revisionsDeleted"])
	plan.History.Update = revList(lists["revisionsUpdated"])
	plan.History.Adopt = revList(lists["revisionsAdopted"])
	plan.History.Release = revList(lists["revisionsReleased"])
	plan.Hash = e.Hash

	switch {
	case e.Status != nil:
		plan.Status = *e.Status.DeepCopy()
		plan.StatusChanged = true
	case s.DaemonSet != nil:
		plan.Status = *s.DaemonSet.Status.DeepCopy()
		plan.Status.ObservedGeneration = s.DaemonSet.Generation
	}
	return plan, nil
}

// pick returns l.Want followed by the first entries of l.May needed to reach
// l.Count.Min.
func pick(l NamedList) []string {
	out := slices.Clone(l.Want)
	for _, m := range l.May {
		if l.Count == nil || len(out) >= l.Count.Min {
			break
		}
		out = append(out, m)
	}
	return out
}
