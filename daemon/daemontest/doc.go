// Package daemontest checks that DaemonSet plans are safe: it builds test
// fixtures, generates clusters, and judges every plan of daemon.Compute
// against a list of invariants. Like net/http/httptest it is meant for
// tests, but it is an ordinary package: it performs no I/O, and all its
// randomness comes from the *rand.Rand or seed it is given. Programs do
// not import it: the simulator they replay rollouts with is package
// daemon/simulate, whose Cluster the builders and generator return.
//
// # Builders
//
// Node, DaemonSet, Pod and Revision build objects with sensible defaults
// (a Ready node, a RollingUpdate DaemonSet with maxUnavailable 1, a running
// ready pod of the current revision), changed by options such as
// WithTaint, WithMaxSurge, WithHash or Unscheduled. Epoch is their clock.
// Tolerations come with the Exists, Equal, Gt and Lt operators
// (WithToleration, WithTolerationEqual, WithTolerationGt,
// WithTolerationLt). SteadyCluster builds a settled simulate.Cluster of N
// nodes, one current ready pod each, so that a test starts in one line.
// PlacementOptions and PlacementNode build a DaemonSet whose placement
// check has work to do and the nodes it runs on, the benchmarks' fixture.
//
// # Generator
//
// GenerateCluster draws a simulate.Cluster from a *rand.Rand: a chaotic one with a
// little of everything upstream meets (for fuzzing), or a healthy one,
// valid and settled, possibly at the start of a rollout (for the
// simulator).
//
// # Invariants
//
// CheckPlan runs daemon.Compute on a simulate.Input and returns a Report
// of every violated Invariant: one create per node and only on eligible nodes,
// deletes of the DaemonSet's own pods only, the burst cap, the rolling
// budgets (maxUnavailable, maxSurge, availability under surge), a status
// consistent with the input, a sound revision history and failed-pod
// backoff, requeues no later than upstream's, sorted slices, unchanged
// inputs, the same plan twice and under permutations of the input; under
// a daemon.RolloutPolicy (simulate.Cluster.Rollout, Options.Rollout) also no step
// while paused, no update outside the scope, never below the partition,
// the update order, per-domain budgets, strict budgets and the wave
// barrier (no node of a later wave started before the earlier waves are
// updated, available and baked). CheckGivenPlan judges a
// plan computed elsewhere. Other projects can call both from their own
// tests and fuzz targets.
//
// # Simulations
//
// Checker plugs CheckPlan into simulate.Config.Check, so that a simulated
// rollout judges every plan it applies; a Violation is an ErrViolation
// (errors.Is), in a Report's error as in a simulate.Result's.
package daemontest
