package rollout

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// WaveBarrier puts a barrier between waves of nodes (Node.Wave): no
// replacement starts on a node of a later wave until every desired node of
// the earlier waves that is not held runs one updated, available pod, and
// Bake has passed since the last of them became available.
//
// The barrier is a function of the state the step is given, as the rest
// of the step: should a node of an earlier wave lose its available pod (a
// node NotReady, a pod crashing), later waves start nothing more until it
// is back, and its new availability restarts the bake. A desired node whose
// pod never becomes available holds every later wave; that is intended.
// Held nodes (Node.Frozen) neither wait for nor hold a wave. What the barrier
// holds is every replacement on a node of a later wave: of available old
// pods, and of unavailable ones too, even where the step would otherwise
// replace those at once (outside the budget): a revision that breaks pods
// must not reach a later wave through them. It never holds the removal of
// an old pod whose new pod is available, or of a pod on a node that may no
// longer run one. The last wave's bake holds nothing back.
type WaveBarrier struct {
	// Bake is how long the last node of a wave must have been available
	// before the next wave starts; 0 starts it as soon as the wave is done.
	// A pod became available when its Ready condition last turned true,
	// plus minReadySeconds (an unset lastTransitionTime counts as long
	// ago).
	Bake time.Duration
	// Names, when set, name the waves in the step's report: Names[w] is
	// wave w's, for 0 <= w < len(Names).
	Names []string
}

// MaxWaiting is the most nodes WaveProgress.Waiting lists.
const MaxWaiting = 10

// WaveProgress is where a rollout under a WaveBarrier stands.
type WaveProgress struct {
	// Wave is the current wave (a Node.Wave value): the first one whose
	// desired nodes are not all done (running one updated, available pod),
	// or are done but baking while a later wave waits; the last wave when
	// every wave is done. Nodes of later waves are held.
	Wave int32
	// Name is the wave's name (WaveBarrier.Names), "" when it has none.
	Name string
	// Index is the wave's position among the Waves waves of the step's
	// nodes, from 0.
	Index, Waves int
	// Desired is the number of the wave's desired nodes that are not held,
	// Done how many of them are done.
	Desired, Done int
	// Waiting names the wave's desired nodes that are not done, sorted by
	// name, at most MaxWaiting; WaitingMore counts the others.
	Waiting     []string
	WaitingMore int
	// BakeUntil is when the wave's bake ends and the next wave may start;
	// zero unless the wave is done and baking while a later wave waits.
	BakeUntil time.Time
}

// String says where the wave stands, for a log line or a status message:
// "wave zone=b (2 of 3): 4/10 updated and available; waiting for w-17",
// "... 10/10 updated and available; baking until 2025-06-01T12:30:00Z".
func (w WaveProgress) String() string {
	name := w.Name
	if name == "" {
		name = fmt.Sprint(w.Wave)
	}
	s := fmt.Sprintf("wave %s (%d of %d): %d/%d updated and available", name, w.Index+1, w.Waves, w.Done, w.Desired)
	if len(w.Waiting) > 0 {
		s += "; waiting for " + strings.Join(w.Waiting, ", ")
		if w.WaitingMore > 0 {
			s += fmt.Sprintf(" and %d more", w.WaitingMore)
		}
	}
	if !w.BakeUntil.IsZero() {
		s += "; baking until " + w.BakeUntil.UTC().Format(time.RFC3339)
	}
	return s
}

// waveStat is what the barrier counts of one wave.
type waveStat struct {
	wave          int32
	desired, done int
	// last is when the last of the done nodes became available.
	last time.Time
}

// barrier finds the current wave (see WaveProgress), sets s.open to it and
// reports it in step.Policy.Wave. It walks the nodes once, and once more
// for the names of the nodes the wave waits for.
func (s *stepper) barrier(step *Step, nodes []Node, order []int) {
	var stats []waveStat // sorted by wave
	for _, i := range order {
		n := &nodes[i]
		k, found := slices.BinarySearchFunc(stats, n.Wave, func(st waveStat, w int32) int { return cmp.Compare(st.wave, w) })
		if !found {
			stats = slices.Insert(stats, k, waveStat{wave: n.Wave})
		}
		if !s.desired(n) {
			continue
		}
		st := &stats[k]
		st.desired++
		if pod, done := s.done(n); done {
			st.done++
			if at := AvailableSince(pod, s.ds.Spec.MinReadySeconds); at.After(st.last) {
				st.last = at
			}
		}
	}
	if len(stats) == 0 {
		return
	}
	cur := len(stats) - 1
	var bakeUntil time.Time
	for k := range stats {
		st := &stats[k]
		if st.done < st.desired {
			cur = k
			break
		}
		if until := st.last.Add(s.p.Waves.Bake); k < len(stats)-1 && s.now.Before(until) {
			cur, bakeUntil = k, until
			break
		}
	}
	st := &stats[cur]
	s.open = st.wave
	wp := &WaveProgress{Wave: st.wave, Index: cur, Waves: len(stats), Desired: st.desired, Done: st.done, BakeUntil: bakeUntil}
	if names := s.p.Waves.Names; st.wave >= 0 && int(st.wave) < len(names) {
		wp.Name = names[st.wave]
	}
	if st.done < st.desired {
		for _, i := range order {
			n := &nodes[i]
			if n.Wave != st.wave || !s.desired(n) {
				continue
			}
			if _, done := s.done(n); !done {
				wp.Waiting = append(wp.Waiting, n.Name)
			}
		}
		slices.Sort(wp.Waiting)
		if len(wp.Waiting) > MaxWaiting {
			wp.WaitingMore = len(wp.Waiting) - MaxWaiting
			wp.Waiting = slices.Clip(wp.Waiting[:MaxWaiting])
		}
	}
	step.Policy.Wave = wp
}

// desired reports whether the barrier waits for n: an existing node that
// should run the pod and is not held.
func (s *stepper) desired(n *Node) bool { return !n.Missing && n.ShouldRun && !n.Frozen }

// done reports whether n runs one live pod, updated and available, and
// returns it.
func (s *stepper) done(n *Node) (*corev1.Pod, bool) {
	newPod, oldPod, ok := s.split(n)
	return newPod.pod, ok && oldPod.pod == nil && newPod.pod != nil && newPod.Available
}

// held reports whether the step starts nothing on n: a held node, or one of
// a wave after the open one.
func (s *stepper) held(n *Node) bool { return n.Frozen || n.Wave > s.open }
