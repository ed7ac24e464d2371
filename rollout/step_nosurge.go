package rollout

// withoutSurge is n's verdict when maxSurge is 0: old pods are deleted
// within maxUnavailable, and the next sync's create pass creates their
// successors.
//
// Upstream walks the nodes in map order and stops collecting candidates
// once its running count of unavailable nodes reaches the budget; since
// the count only grows, the number of candidates it uses is the budget
// left after the whole walk, whatever the order, and only which ones
// depends on the order. The step counts every node first and then admits
// the first candidates in its order (see run).
//
// A node counts as unavailable (busy) with no live pod, an old and a new
// pod, several pods of a kind (the create/delete pass cleans those up), or
// an unavailable new pod. An old unavailable pod is replaced at once
// (classUrgent) and counted at once; under Policy.Strict it waits for the
// budget instead, before the available ones, and is counted when admitted,
// or, when left (its domain's budget spent), once the unavailable ones
// are through: either way it takes one slot before any available pod is
// admitted. A held node is counted as it is and not replaced.
func (s *stepper) withoutSurge(n *Node) verdict {
	newPod, oldPod, ok := s.split(n)
	var v verdict
	switch {
	case !ok:
		v.facts = busy
	case oldPod.pod == nil && newPod.pod == nil, oldPod.pod != nil && newPod.pod != nil:
		v.facts = busy | single
	case newPod.pod != nil:
		v.facts = single
		if !newPod.Available {
			v.facts |= busy
		}
	case !oldPod.Available && s.held(n):
		v.facts = busy | single | oldOnly
	case !oldPod.Available:
		v.class, v.pod, v.facts = classUrgent, oldPod.pod, single|oldOnly
		if !s.p.Strict {
			v.facts |= busy
		}
	case s.held(n):
		v.facts = single | oldOnly
	default:
		v.class, v.pod, v.facts = classCandidate, oldPod.pod, single|oldOnly
	}
	return v
}
