package daemon

import (
	"k8s.io/apimachinery/pkg/util/intstr"
)

// CanaryWave is the name of the canary wave (RolloutPolicy.Canary) among
// a plan's waves (ReadOut.Waves, rollout.WaveProgress.Name).
const CanaryWave = "canary"

// RestWave is the name of the wave of every desired node after the
// canary when the policy has no Order.Label.
const RestWave = "rest"

// Canary is a first wave of a few desired nodes in scope, before the
// waves of the order label (or, without one, before the rest of the
// nodes as one wave, RestWave): the nodes that run a new revision first,
// so that a person or a health gate can judge it before it goes further.
// It turns on the wave barrier (RolloutPolicy.Waves, with a zero Bake
// when that is nil).
//
// Which nodes: Count of the desired nodes in scope (a percentage of them
// rounded up, at least 1), taken in turn from each value of Spread (in
// the order of Order.Values first, then string order; nodes without the
// label last), within a value in update order. Nodes that already run an
// updated pod are taken first, so that the canary of a rollout under way
// stays the nodes it started with when nodes come and go.
type Canary struct {
	// Count is the canary's size: an integer at least 1 or a percentage
	// from 1% to 100%.
	Count intstr.IntOrString
	// Spread is the node label whose values the canary is spread across,
	// "" for none (update order only).
	Spread string
}
