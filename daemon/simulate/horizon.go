package simulate

import (
	"fmt"
	"time"
)

// Horizon is the longest simulated time, 200 years: a run whose next sync
// is further from its start ends OutcomeStepLimit, and an input delay,
// event time, bake or ready timeout longer than it cannot be simulated.
// So the run's clock never passes it, and no duration a run reports (a
// step's At, Result.Duration, a wait) reaches the 292 years where
// time.Duration saturates: none is clamped.
const Horizon = 200 * 365 * 24 * time.Hour

// horizonError says which duration of c or cfg is beyond Horizon; nil
// when none is. (A negative one means "at once", as ever.)
func horizonError(c *Cluster, cfg Config) error {
	check := func(name string, d time.Duration) error {
		if d > Horizon {
			return fmt.Errorf("%s %s is beyond the simulated time limit of %s (Horizon)", name, d, Horizon)
		}
		return nil
	}
	type named struct {
		name string
		d    time.Duration
	}
	ds := []named{{"BindDelay", cfg.BindDelay}, {"ReadyDelay", cfg.ReadyDelay}, {"GracePeriod", cfg.GracePeriod}}
	if w := c.Rollout.Waves; w != nil {
		ds = append(ds, named{"the wave bake", w.Bake})
	}
	if g := c.Gates; g != nil {
		ds = append(ds, named{"the gates' bake", g.Bake}, named{"the ready timeout", g.Health.ReadyTimeout})
	}
	for i, e := range cfg.Events {
		ds = append(ds, named{fmt.Sprintf("Events[%d].At", i), e.At})
	}
	for _, x := range ds {
		if err := check(x.name, x.d); err != nil {
			return err
		}
	}
	return nil
}
