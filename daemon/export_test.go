package daemon

// PlansReused returns how many plans p returned from what it kept, without
// computing them (memo_reuse.go), for the tests of package daemon_test.
func PlansReused(p *Planner) uint64 { return p.reused }
