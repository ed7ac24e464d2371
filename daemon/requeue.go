package daemon

import (
	"time"

	"github.com/daemonplan/daemonplan/rollout"
)

// durationMin keeps the smallest positive duration it is given.
type durationMin time.Duration

func (d *durationMin) add(v time.Duration) {
	if v > 0 && (*d == 0 || v < time.Duration(*d)) {
		*d = durationMin(v)
	}
}

// availabilityWait returns how long from now until the first pod of c that
// is ready but not yet available (minReadySeconds) becomes available; 0 when
// none will without a change. Upstream instead requeues after a full
// minReadySeconds whenever ready and available counts differ. The wait is
// capped at minReadySeconds, so it is never later than upstream's, even when
// a pod's Ready transition lies after now (clock skew).
func availabilityWait(c *cluster, minReady int32, now time.Time) time.Duration {
	if minReady <= 0 {
		return 0
	}
	limit := time.Duration(minReady) * time.Second
	var wait durationMin
	for i, st := range c.states {
		if !st.Ready || st.Available {
			continue
		}
		if at, ok := rollout.AvailableAt(c.grouped[i], minReady); ok && at.After(now) {
			wait.add(min(at.Sub(now), limit))
		}
	}
	return time.Duration(wait)
}

// bakeWait returns how long from now until the bake of the current wave
// ends (see RolloutPolicy.Waves), when step waits for it; 0 otherwise. It is capped
// at bake, even when a pod's Ready transition lies after now (clock skew).
func bakeWait(step *rollout.Step, bake time.Duration, now time.Time) time.Duration {
	if step == nil || step.Policy == nil || step.Policy.Wave == nil {
		return 0
	}
	if until := step.Policy.Wave.BakeUntil; until.After(now) {
		return min(until.Sub(now), bake)
	}
	return 0
}
