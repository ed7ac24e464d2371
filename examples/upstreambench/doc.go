// Package upstreambench measures daemonplan beside the DaemonSet controller of
// kube-controller-manager v1.37.2, on the same clusters and in one run. It
// holds benchmarks, the fixtures they share and a test that the harness
// drives upstream's controller as it claims; a program imports nothing here.
//
// Two comparisons, both against k8s.io/kubernetes v1.37.2 called as a
// library (no upstream code is copied here):
//
//   - BenchmarkStatusShape builds the clusters of upstream's own
//     BenchmarkUpdateDaemonSetStatus (pkg/controller/daemon, 1,000 and
//     10,000 nodes, no pods, no affinity or the "exclusion" affinity of six
//     NotIn expressions) and plans them with daemon.Compute, a warm
//     daemon.Planner and eligibility.Check (the per-node check alone).
//     Upstream's own benchmark runs from the module cache, in its own test
//     binary (go test -c k8s.io/kubernetes/pkg/controller/daemon, which
//     this module's requirements make possible); bench.sh runs both binaries
//     round by round and renames upstream's lines so that benchstat shows
//     them side by side.
//   - BenchmarkSync times one whole sync of a 10,000-node DaemonSet (one pod
//     per node: steady, rollout start, steady under the exclusion affinity,
//     and steady without placement terms on nodes without labels or taints):
//     upstream's controller built with its exported NewDaemonSetsController
//     over shared informers fed by a fake clientset, started with its
//     exported Run and one worker; against daemon.Compute and a warm
//     daemon.Planner on the very objects those informers hold.
//
// What the upstream sync figures time: syncDaemonSet is unexported, so the
// harness reads the controller's own clock. The controller takes its clock
// from the flowcontrol.Backoff it is given and reads it as the first
// statement of syncDaemonSet and again in the deferred function that logs
// "Finished syncing daemon set" with the sync's duration. The clock the
// harness gives it answers every caller with the same fixed time (the plan's
// Options.Now), and at those two calls, recognised by the caller's function
// name, also records the wall time and the process's allocation counters
// (runtime.ReadMemStats, outside the interval). ns/op, B/op and allocs/op of
// upstream's rows are that interval: the sync as the controller itself
// measures it, its fake API calls included. The iter-* metrics add what
// starts each sync: an Update of the DaemonSet through the fake clientset,
// its watch event through the informer to the controller's handler, and the
// work queue.
//
// The fake clientset answers the sync's pod deletes with NotFound (the
// controller then lowers its expectations at once, as for a pod already
// gone) and keeps everything else, so every timed sync starts from the same
// cluster: a rollout-start sync deletes the same number of old pods each
// time. The DaemonSet's stored status is the one the sync computes (taken
// from daemon.Compute's plan, which TestHarness checks against upstream), so
// steady syncs write nothing.
package upstreambench
