// Package simulate replays a DaemonSet rollout in an in-memory cluster: it
// decides what the cluster looks like after each sync of the controller,
// when the next sync runs, and how the run ends (converged, stalled,
// blocked by trouble of the cluster, or out of steps). Products use it to predict a rollout (dsplan simulate);
// tests use it with daemontest's invariants (Config.Check). It performs no
// I/O and reads no clock; its only random choice (which created pods fail)
// comes from Config.Seed.
//
// # The cluster
//
// A Cluster is the state one sync sees: the DaemonSet, nodes, pods,
// ControllerRevisions, the controller clock and its carried state.
// Cluster.Input gives the arguments of daemon.Compute for it (an Input).
//
// # A run
//
// Run applies plan after plan to a copy of a Cluster: created pods land,
// are bound and become ready (or fail) after configurable delays,
// deletions take a grace period, nodes join, leave or turn NotReady and the
// template changes at given times (Events; as the API server applies a
// change: generation and template generation up). A cluster taken from a
// capture is simulated as it was caught: pods still starting become Ready
// after the delay counted from their creation, pods FailingReason calls
// failing stay down. Run records a StepTrace per sync (Config.OnStep also
// sees the cluster after each, for charts) and stops at convergence (see
// Converged, or progressive.Judge under a rollout policy), at a
// deadlock, or at a step limit. Result.Peak sums a run up: the worst
// unavailability and surge, and the steps over budget.
//
// # A broken cluster is not a blocked rollout
//
// A run that stalls only on trouble it does not resolve (NotReady nodes,
// failing pods: see FailingReason) ends OutcomeBlocked, not
// OutcomeStalled, with the nodes and pods named as data
// (Result.Blocking, classified by whatif.UnavailableIn) and the judge's
// cause (Result.Judgement, progressive.Judge). Assume returns the cluster
// with such trouble assumed gone (nodes assumed Ready, NotReady nodes
// excluded), to see the rollout that would follow.
//
// # Gates
//
// A cluster with Cluster.Gates (progressive.Gates: health gates, approval
// points, maintenance windows) is run as a controller applies them, with
// (*progressive.Gates).Hold at every sync: a closed window holds the
// deletes and moves the clock to its opening, so that the run's time
// counts it; an approval point is recorded (Result.Waits) and taken as
// approved at once; a new-revision pod failing a health gate stops the
// run, OutcomeBlocked, naming the signals, pods and nodes (Result.Gate).
//
// # Words
//
// A step is one sync of the controller. The nodes a step starts updating
// (StepTrace.UpdateNodes) are that step's update batch; "wave" is kept for
// the groups of an order label (daemon.RolloutPolicy's waves), which a
// rollout may cross in many batches.
package simulate
