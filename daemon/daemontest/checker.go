package daemontest

import "github.com/daemonplan/daemonplan/daemon/simulate"

// Checker returns a simulate.Config.Check that runs CheckPlan with opts on
// the input of every sync, the seed offset by the step: a simulation in a
// test judges every plan it applies. The step's trace then holds the
// Violations (as errors), and the run stops at a step where Compute
// panicked (InvariantNoPanic).
func Checker(opts CheckOptions) func(step int, in simulate.Input) simulate.Checked {
	return func(step int, in simulate.Input) simulate.Checked {
		o := opts
		o.Seed += uint64(step)
		rep := CheckPlan(in, o)
		out := simulate.Checked{Plan: rep.Plan, Err: rep.ComputeErr, Panicked: rep.Has(InvariantNoPanic)}
		for _, v := range rep.Violations {
			out.Violations = append(out.Violations, v)
		}
		return out
	}
}
