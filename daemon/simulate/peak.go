package simulate

// Peak summarises the worst moments of a simulation, as measured after each
// plan was applied (see StepTrace.Down and StepTrace.Surge).
type Peak struct {
	// MaxDown is the largest number of nodes that should run the pod and
	// had no available pod, StartDown included; MaxDownStep is the first
	// step that reached it (-1: the start). MaxUnavailable is the
	// rolling-update budget at that step (at the first step for the start).
	MaxDown, MaxDownStep, MaxUnavailable int
	// MaxSurge is the largest number of nodes running more than one pod,
	// StartSurge included; MaxSurgeStep is the first step that reached it
	// (-1: the start). SurgeBudget is maxSurge at that step.
	MaxSurge, MaxSurgeStep, SurgeBudget int
	// OverBudget lists the steps after which more nodes were down than
	// both the step's maxUnavailable and StartDown, or more nodes surged
	// than both its maxSurge and StartSurge. A cluster event that takes
	// nodes down (NodeNotReady, NodeJoin) counts as well as the plans do.
	OverBudget []int
}

// Peak returns the summary of r: the worst unavailability and surge, the
// budgets then, and the steps over budget. A result without steps gives
// the start values, steps -1 and no budgets.
func (r Result) Peak() Peak {
	p := Peak{MaxDown: r.StartDown, MaxDownStep: -1, MaxSurge: r.StartSurge, MaxSurgeStep: -1}
	if len(r.Steps) > 0 {
		p.MaxUnavailable, p.SurgeBudget = r.Steps[0].Budgets.MaxUnavailable, r.Steps[0].Budgets.MaxSurge
	}
	for _, st := range r.Steps {
		if st.Down > p.MaxDown {
			p.MaxDown, p.MaxDownStep, p.MaxUnavailable = st.Down, st.Step, st.Budgets.MaxUnavailable
		}
		if st.Surge > p.MaxSurge {
			p.MaxSurge, p.MaxSurgeStep, p.SurgeBudget = st.Surge, st.Step, st.Budgets.MaxSurge
		}
		if st.Down > max(st.Budgets.MaxUnavailable, r.StartDown) || st.Surge > max(st.Budgets.MaxSurge, r.StartSurge) {
			p.OverBudget = append(p.OverBudget, st.Step)
		}
	}
	return p
}

// Exceeded reports whether some step was over budget.
func (p Peak) Exceeded() bool { return len(p.OverBudget) > 0 }
