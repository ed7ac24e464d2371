// Package daemontest checks that DaemonSet plans are safe: it builds test
// fixtures, generates clusters, judges every plan of daemon.Compute against
// a list of invariants, and replays whole rollouts in an in-memory cluster.
// Like net/http/httptest it is meant for tests, but it is an ordinary
// package: it performs no I/O, and all its randomness comes from the
// *rand.Rand or seed it is given.
//
// # Builders
//
// Node, DaemonSet, Pod and Revision build objects with sensible defaults
// (a Ready node, a RollingUpdate DaemonSet with maxUnavailable 1, a running
// ready pod of the current revision), changed by options such as
// WithTaint, WithMaxSurge, WithHash or Unscheduled. Epoch is their clock.
// Tolerations come with the Exists, Equal, Gt and Lt operators
// (WithToleration, WithTolerationEqual, WithTolerationGt,
// WithTolerationLt). SteadyCluster builds a settled cluster of N nodes, one
// current ready pod each, so that a test starts in one line. PlacementOptions
// and PlacementNode build a DaemonSet whose placement check has work to do
// and the nodes it runs on, the benchmarks' fixture.
//
// # Generator
//
// GenerateCluster draws a Cluster from a *rand.Rand: a chaotic one with a
// little of everything upstream meets (for fuzzing), or a healthy one,
// valid and settled, possibly at the start of a rollout (for the
// simulator).
//
// # Invariants
//
// CheckPlan runs daemon.Compute on an Input and returns a Report of every
// violated Invariant: one create per node and only on eligible nodes,
// deletes of the DaemonSet's own pods only, the burst cap, the rolling
// budgets (maxUnavailable, maxSurge, availability under surge), a status
// consistent with the input, a sound revision history and failed-pod
// backoff, requeues no later than upstream's, sorted slices, unchanged
// inputs, the same plan twice and under permutations of the input; under
// a daemon.RolloutPolicy (Cluster.Rollout, Options.Rollout) also no step
// while paused, no update outside the scope, never below the partition,
// the update order, per-domain budgets, strict budgets and the wave
// barrier (no node of a later wave started before the earlier waves are
// updated, available and baked). CheckGivenPlan judges a
// plan computed elsewhere. Other projects can call both from their own
// tests and fuzz targets.
//
// # Simulator
//
// Simulate applies plan after plan to an in-memory copy of a Cluster:
// created pods land, are bound and become ready (or fail) after
// configurable delays, deletions take a grace period, nodes join, leave or
// turn NotReady and the template changes at given times (as the API server
// applies a change: generation and template generation up). A cluster
// taken from a capture is simulated as it was caught: pods still starting
// become Ready after the delay counted from their creation, pods
// FailingReason calls failing stay down. It records a StepTrace per sync
// (SimConfig.OnStep also sees the cluster after each, for charts) and
// stops at convergence (see Converged, or progressive.Judge under a
// rollout policy), at a deadlock, or at a step limit. SimResult.Peak sums
// a run up: the worst unavailability and surge, and the steps over budget.
package daemontest
