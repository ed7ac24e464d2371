// Package e2e holds the end-to-end tests of the example DaemonSet
// controller: every scenario runs on a real control plane (etcd,
// kube-apiserver, kube-scheduler, and kwok playing the kubelets), once with
// the example controller and once with kube-controller-manager's own
// DaemonSet controller, each on a fresh cluster, and the two results are
// compared side by side. The companion scenarios (TestCompanion*) run
// kube-controller-manager's DaemonSet controller and the example controller
// in companion mode together, the latter with exactly the RBAC of
// examples/controller/deploy (the Helm chart's default render), and add a
// "rollouts: N passed, M failed" tally and a "chart: N objects rendered;
// rbac: V of G granted verbs used, F forbidden" line. TestCompanionZoneWaves and TestCompanionStrictNotReady also run
// kubectl dsplan (package examples/dsplan/live/livecmd of the module
// examples/dsplan, which this one requires and replaces with ../../dsplan)
// in-process against the cluster, with a real
// client: its preview of a rollout, compared afterwards with what happened,
// and its rollout status, whose exit codes they check. TestScale places
// and rolls out a DaemonSet on 2,000 nodes (E2E_SCALE_NODES for another
// size) with each controller and measures each controller process's CPU
// seconds and peak memory from /proc, its writes and its syncs, and prints
// the scale table; it runs each controller from its own executable, as
// deployed, which it builds first with the go command (go build of the
// example's main package and of kube-controller-manager's). TestScaleJoin,
// opt-in (E2E_SCALE_JOIN=BASE+JOINED, e.g. 20000+5000; skipped unless
// set), builds the same executables, places a DaemonSet on BASE nodes,
// adds JOINED nodes at once and times until each runs an available pod,
// then runs a compressed steady hour (relabels, heartbeat-like status
// updates, a NoSchedule taint set and lifted); it adds rows "join" and
// "steady" to the scale table, and tables of every process's CPU by phase
// and of the join's timeline (pods created, bound, available). The fault
// scenarios (TestFault*) disturb a rolling update with one fault each —
// the controller SIGKILLed, kube-apiserver or etcd restarted, API Priority
// and Fairness throttling, watches lost until informers relist with 410
// Gone, the leader of two replicas killed — against both controllers and,
// for SIGKILL and leader election, companion mode; they check every pod
// state etcd commits and print the fault table, a "fault KIND
// controller=NAME injected=N violations=N converged=D" line per run and a
// "faults: N passed, M failed" tally.
//
// The package is a module of its own (examples/controller/e2e), so that
// the shipped controller (module examples/controller, which this one
// requires and replaces with "..") needs neither k8s.io/kubernetes nor its
// replace lines. The control plane is compiled into the test binary
// itself: etcd v3.7.0 (the version Kubernetes v1.37.2 requires and kubeadm
// deploys with it), Kubernetes v1.37.2 (every k8s.io staging module
// replaced by its v0.37.2 release in go.mod) and kwok v0.8.0 are ordinary
// requirements of this module, and TestMain, when the DAEMONPLAN_E2E_ROLE environment variable
// names a component, runs that component instead of the tests. Each
// cluster starts the test binary once per component with that variable set
// (the pattern of the old hyperkube binary). Compiling happens before the
// test binary runs, so it does not count against go test's -timeout; the
// first, cold build takes several minutes on two cores, later ones come
// from the build cache. kwok's stage configuration (nodes Ready, pods
// Running and Ready, deletions completed) is the "fast" set kwok's own
// packages embed, with stages of its own for pods that fail: a pod
// labelled e2e.daemonplan.io/crash becomes Ready and then crash-loops
// (CrashLoopBackOff, a restart, exit code 1), one labelled
// e2e.daemonplan.io/image-pull waits in ErrImagePull, then
// ImagePullBackOff, and never becomes Ready; a scenario puts the label in
// the new revision's template only.
//
// The gate scenarios stop or hold a companion rollout beyond its plan:
// TestCompanionCrashLoop and TestCompanionImagePull (a health gate stops
// it on the new revision's first failing pod and it holds until a new
// template), TestCompanionCanaryApproval (a canary, then nothing until
// "kubectl dsplan rollout approve"), TestCompanionWindow (a maintenance
// window closes mid-rollout and reopens: no deletion while closed) and
// TestCompanionRollback (on-failure rollback writes the old template back
// and every node ends on it). Each compares the preview of kubectl dsplan
// simulate with what happened, and computes the DaemonSet's status as
// GitOps tools do, with cli-utils' kstatus, on every watch event: each
// prints "kstatus: SCENARIO saw STATUS[, STATUS…]" at the end, as
// TestCompanionZoneWaves and TestCompanionProgressDeadline do.
//
// The package has no non-test code; run it with
//
//	cd examples/controller/e2e && go test -timeout 60m .
//
// (go test -short skips every scenario).
package e2e
