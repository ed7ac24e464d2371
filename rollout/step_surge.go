package rollout

// withSurge is n's verdict when maxSurge is positive: new pods are created
// beside old ones within maxSurge (beside unavailable old pods at once,
// under Policy.Strict within the budget, first), and old pods are deleted
// once their new pod is available.
//
// A node counts as surging (busy) with several pods of a kind or an old
// pod beside a new one that is not yet available. Every node with at most
// one pod of each kind counts towards NumAvailable when its pod (the old
// one when both exist) is available, nodes being drained included. An old
// pod on a node that may no longer run the pod is deleted at once when it
// is not available, otherwise only as far as the available pods exceed
// the desired count. It fails on a Missing node with an old pod and no new
// one: upstream cannot look the node up and gives up the step.
func (s *stepper) withSurge(n *Node) (verdict, error) {
	newPod, oldPod, ok := s.split(n)
	if !ok {
		return verdict{facts: busy}, nil
	}
	v := verdict{facts: single}
	switch {
	case oldPod.pod != nil && oldPod.Available, oldPod.pod == nil && newPod.pod != nil && newPod.Available:
		v.facts |= available
	}
	switch {
	case oldPod.pod == nil:
		// Nothing to replace; the create pass handles empty nodes.
	case newPod.pod == nil:
		v.facts |= oldOnly
		if n.Missing {
			return v, &MissingNodeError{Pod: oldPod.pod.Name, Node: n.Name}
		}
		switch {
		case !n.ShouldRun && !oldPod.Available:
			v.class, v.pod = classIneligible, oldPod.pod
		case !n.ShouldRun:
			v.class, v.pod = classSurplus, oldPod.pod
		case s.held(n):
		case !oldPod.Available:
			v.class = classUrgent
		default:
			v.class = classCandidate
		}
	case !newPod.Available:
		// Surged here already; waiting for the new pod.
		v.facts |= busy
	default:
		v.class, v.pod = classReplaced, oldPod.pod
	}
	return v, nil
}
