package rollout

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// How the step picks. Each node gets one verdict (see withoutSurge and
// withSurge): what it counts against the budgets, and the action the step
// may take on it, of one class. A first walk over the nodes, in order,
// counts; then one walk per tier of classes admits each node's action in
// order through the same gate (admit), the first tier before the second so
// that unavailable old pods take the budget before available ones. The
// walks stop once their tier has nothing left to admit; a steady fleet is
// walked once, and a step allocates nothing per node.

// class is the kind of action a verdict carries.
type class uint8

const (
	// classNone: nothing to do on the node.
	classNone class = iota
	// classReplaced (surge): an old pod whose new pod is available, deleted
	// at once, outside every budget.
	classReplaced
	// classIneligible (surge): an unavailable old pod on a node that may no
	// longer run the pod, deleted at once, outside every budget.
	classIneligible
	// classSurplus (surge): an available old pod on a node that may no
	// longer run the pod, deleted only as far as the available pods exceed
	// the desired count (kubernetes#118823).
	classSurplus
	// classUrgent: an old pod that is not available, replaced before the
	// available ones: outside the global budget, within the partition
	// (within both, and the domain budget, under Policy.Strict).
	classUrgent
	// classCandidate: an old available pod, replaced within every budget.
	classCandidate
	numClasses
)

// reasons is the reason of each class's action, without and with surge.
var reasons = [2][numClasses]Reason{
	{classUrgent: ReasonReplaceUnavailable, classCandidate: ReasonRollingUpdate},
	{classReplaced: ReasonSurgeReplaced, classIneligible: ReasonIneligibleUnderSurge, classSurplus: ReasonIneligibleUnderSurge,
		classUrgent: ReasonSurgeForUnavailable, classCandidate: ReasonSurge},
}

// tier is a set of classes admitted in one walk.
type tier uint8

func (t tier) has(c class) bool { return t&(1<<c) != 0 }

// verdict is what one node is to the step: its action's class and, for a
// delete, the pod, with facts about the node (a bit set: the fields are
// built in registers, not in memory).
type verdict struct {
	// pod is the pod the action deletes; nil when it creates.
	pod   *corev1.Pod
	class class
	facts facts
}

// facts are what the count walk learns of a node besides its class.
type facts uint8

const (
	// busy: the node is in flight and counts against the budget
	// (NumUnavailable, or NumSurge when surging) and in its domain.
	busy facts = 1 << iota
	// available (surge): the node's pod, the old one when both exist, is
	// available.
	available
	// single: the node has at most one live pod of each kind.
	single
	// oldOnly: one live old pod and no new one.
	oldOnly
)

func (f facts) has(x facts) bool { return f&x != 0 }

// judged is a pod with its state.
type judged struct {
	pod *corev1.Pod
	PodState
}

// stepper holds what one step judges and admits with.
type stepper struct {
	ds    *appsv1.DaemonSet
	hash  string
	gen   *int64
	now   time.Time
	p     Policy
	surge bool
	dom   *domains
	c     chooser
	// surplus is how many classSurplus pods may still go.
	surplus int
	// leftUrgent (Strict, maxSurge 0) is how many unavailable old pods the
	// first tier did not admit.
	leftUrgent int
	// open is the last wave the step may start on (see WaveBarrier);
	// math.MaxInt32 without a barrier.
	open int32
}

// run counts, then admits the actions of each tier in order.
func (s *stepper) run(step *Step, nodes []Node, order []int) error {
	budget := s.p.DomainMaxUnavailable
	if s.surge {
		budget = s.p.DomainMaxSurge
	}
	dom, err := newDomains(budget, nodes)
	if err != nil {
		return err
	}
	s.dom = dom
	if s.p.Waves != nil && step.Policy != nil {
		s.barrier(step, nodes, order)
	}
	var members [numClasses]int
	var flight, nAvailable, remaining, held int
	for _, i := range order {
		n := &nodes[i]
		// The verdict in the step's mode (not through a function: the call
		// is measurable on a fleet).
		var v verdict
		if s.surge {
			if v, err = s.withSurge(n); err != nil {
				return err
			}
		} else {
			v = s.withoutSurge(n)
		}
		if v.facts.has(busy) {
			flight++
			s.dom.charge(n)
		}
		if v.facts.has(available) {
			nAvailable++
		}
		// The partition counts desired nodes, not held, with an old pod
		// and no new one; and the held desired nodes.
		if v.facts.has(single) && !n.Missing && n.ShouldRun {
			if n.Frozen {
				held++
			} else if v.facts.has(oldOnly) {
				remaining++
			}
		}
		members[v.class]++
	}
	if s.surge {
		step.NumSurge = flight
	} else {
		step.NumUnavailable = flight
	}
	step.NumAvailable = nAvailable
	if step.Policy != nil {
		step.Policy.Remaining, step.Policy.Held = remaining, held
	}

	step.Candidates = members[classCandidate]
	if s.p.Strict {
		step.Candidates += members[classUrgent]
	}
	s.c = chooser{room: step.MaxUnavailable - step.NumUnavailable, partition: -1, dom: s.dom}
	if s.surge {
		s.c.room = step.MaxSurge - step.NumSurge
	}
	if step.Policy != nil && s.p.Partition > 0 {
		s.c.partition = max(step.Policy.Remaining-s.p.Partition, 0)
	}
	first := tier(1<<classReplaced | 1<<classIneligible | 1<<classUrgent)
	if s.surplus = step.NumAvailable - step.Desired; s.surplus > 0 {
		first |= 1 << classSurplus
	}
	for k, t := range [...]tier{first, 1 << classCandidate} {
		if k == 1 && s.p.Strict && !s.surge {
			// The unavailable old pods the first tier left (their domain's
			// budget, the room or the partition spent) are unavailable
			// nodes all the same: each takes its slot now, as a replaced
			// one did when admitted, so that every one takes exactly one.
			// Each of those three only shrinks, so a left pod's domain stays
			// full (or nothing more is admitted at all): only the global
			// budget needs the charge.
			s.c.room -= s.leftUrgent
			step.NumUnavailable += s.leftUrgent
		}
		left := 0
		for c := range numClasses {
			if t.has(c) {
				left += members[c]
			}
		}
		for _, i := range order {
			if left == 0 || (t.has(classCandidate) && s.c.full()) {
				break
			}
			n := &nodes[i]
			var v verdict
			if s.surge {
				v, _ = s.withSurge(n) // the count walk saw any error
			} else {
				v = s.withoutSurge(n)
			}
			if !t.has(v.class) {
				continue
			}
			left--
			if s.admit(step, n, v) {
				r := reasons[boolInt(s.surge)][v.class]
				if v.pod != nil {
					step.Deletes = append(step.Deletes, Delete{Pod: v.pod, NodeName: n.Name, Reason: r})
				} else {
					step.Creates = append(step.Creates, Create{NodeName: n.Name, Reason: r})
				}
			}
		}
	}
	return nil
}

// admit is the one gate every action passes.
func (s *stepper) admit(step *Step, n *Node, v verdict) bool {
	switch v.class {
	case classReplaced, classIneligible:
		return true
	case classSurplus:
		if s.surplus > 0 {
			s.surplus--
			return true
		}
		return false
	case classUrgent:
		ok := s.c.take(n, s.p.Strict)
		if s.p.Strict && !s.surge {
			// Counted when replaced, not before (see withoutSurge); when
			// left, after the tier (see run).
			if ok {
				step.NumUnavailable++
			} else {
				s.leftUrgent++
			}
		}
		return ok
	case classCandidate:
		return s.c.take(n, true)
	}
	return false
}

// split returns the one new and the one old pod of a node, ignoring nil
// pods and pods being deleted; ok is false when there are several of
// either. A missing pod has a nil pod field.
func (s *stepper) split(n *Node) (newPod, oldPod judged, ok bool) {
	for i, pod := range n.Pods {
		if pod == nil {
			continue
		}
		var st PodState
		if n.States != nil {
			st = n.States[i]
		} else {
			st = StateOf(pod, s.hash, s.gen, s.ds.Spec.MinReadySeconds, s.now)
		}
		if st.Deleting {
			continue
		}
		if st.Updated {
			if newPod.pod != nil {
				return judged{}, judged{}, false
			}
			newPod = judged{pod, st}
		} else {
			if oldPod.pod != nil {
				return judged{}, judged{}, false
			}
			oldPod = judged{pod, st}
		}
	}
	return newPod, oldPod, true
}

// chooser admits replacements within the budgets: room is what the global
// budget leaves, partition what the partition leaves (-1: no limit), dom
// the per-domain budget.
type chooser struct {
	room      int
	partition int
	dom       *domains
}

// take reports whether node n may be replaced now and, if so, charges the
// budgets; global says whether the global and domain budgets apply.
func (c *chooser) take(n *Node, global bool) bool {
	if c.partition == 0 {
		return false
	}
	if global {
		if c.room <= 0 || !c.dom.admits(n) {
			return false
		}
		c.room--
		c.dom.charge(n)
	}
	if c.partition > 0 {
		c.partition--
	}
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// full reports whether take can admit nothing more within the global
// budget.
func (c *chooser) full() bool { return c.partition == 0 || c.room <= 0 }
