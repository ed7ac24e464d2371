package rollout

import (
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
)

// PodFacts are what judging a pod's state (StateOf) reads of the pod: its
// revision labels, its Ready condition and whether it is being deleted.
// A caller that judges one pod again and again, against a new revision
// or at a later clock, reads the pod once (FactsOf) and judges the facts
// (State): FactsOf(pod).State(hash, generation, minReadySeconds, now)
// equals StateOf(pod, hash, generation, minReadySeconds, now) for every
// pod and arguments.
type PodFacts struct {
	// HashLabel is the pod's controller-revision-hash label ("" when
	// absent).
	HashLabel string
	// GenerationLabel is the pod's pod-template-generation label, and
	// HasGenerationLabel whether the pod has one.
	GenerationLabel    string
	HasGenerationLabel bool
	// Ready: the pod's first Ready condition is True. ReadySince is that
	// condition's lastTransitionTime (zero when unset or not ready).
	Ready      bool
	ReadySince time.Time
	// Deleting: the pod has a deletion timestamp.
	Deleting bool
}

// FactsOf reads the facts of pod that StateOf judges. A nil pod has the
// zero facts, whose State is the zero state. It keeps no reference to pod
// beyond the label strings and does not allocate.
func FactsOf(pod *corev1.Pod) PodFacts {
	if pod == nil {
		return PodFacts{}
	}
	f := PodFacts{HashLabel: pod.Labels[appsv1.ControllerRevisionHashLabelKey], Deleting: pod.DeletionTimestamp != nil}
	f.GenerationLabel, f.HasGenerationLabel = pod.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey]
	if c := readyCondition(pod); c != nil && c.Status == corev1.ConditionTrue {
		f.Ready, f.ReadySince = true, c.LastTransitionTime.Time
	}
	return f
}

// State judges the facts as StateOf judges the pod they were read from.
func (f *PodFacts) State(hash string, generation *int64, minReadySeconds int32, now time.Time) PodState {
	st := PodState{
		Updated:  revisionMatches(f.HashLabel, f.GenerationLabel, f.HasGenerationLabel, hash, generation),
		Ready:    f.Ready,
		Deleting: f.Deleting,
	}
	if f.Ready {
		at, ok := availableAt(f.ReadySince, minReadySeconds)
		st.Available = ok && (minReadySeconds == 0 || !at.After(now))
	}
	return st
}

// revisionMatches is IsPodUpdated's rule on a pod's two revision labels:
// the hash label equals a non-empty hash, or generation is set and the
// generation label is its canonical decimal form.
func revisionMatches(hashLabel, generationLabel string, hasGenerationLabel bool, hash string, generation *int64) bool {
	if hash != "" && hashLabel == hash {
		return true
	}
	if generation == nil || !hasGenerationLabel {
		// An absent label reads as "", which no decimal rendering equals.
		return false
	}
	var buf [24]byte
	return string(strconv.AppendInt(buf[:0], *generation, 10)) == generationLabel
}

// availableAt is AvailableAt's rule for a ready pod whose Ready condition
// last changed at since.
func availableAt(since time.Time, minReadySeconds int32) (time.Time, bool) {
	if minReadySeconds == 0 {
		return time.Time{}, true
	}
	if since.IsZero() {
		return time.Time{}, false
	}
	// int32 seconds fit in a time.Duration (±68 years), so no overflow.
	return since.Add(time.Duration(minReadySeconds) * time.Second), true
}
