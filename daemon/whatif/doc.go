// Package whatif answers an autoscaler's questions about nodes that do not
// exist yet, with the planner's own placement check (eligibility.Check)
// and pod construction: which DaemonSet pods a new node would get, and what
// they would take from it. It performs no I/O.
//
// # Pods
//
// PodsForNode returns the pods daemon.Compute would create on a node that
// has no daemon pods yet and the scheduler would place there, built by the
// same code, field for field; PlacementsForNode returns every pod Compute
// would create, each with its placement (Yes, or Pending). PodsForTemplate
// does the same for a node described by a node template, each pod with its
// DaemonSet's placement (Yes, Maybe with what leaves it open, or Pending).
// Options drop startup taints, keep the template affinity for
// callers that schedule the pods themselves, and apply the caller's own
// policy (Include).
//
// # Declared features
//
// The DaemonSet controller creates a pod on every node it places, but
// kube-scheduler (1.36 and later) binds it only to a node that declares,
// in status.declaredFeatures, every feature the pod requires (Node
// Declared Features, KEP-5328: a restart rule that restarts all
// containers, bind mount options, a user namespace on the host network).
// The what-if infers the requirements with component-helpers'
// nodedeclaredfeatures framework, as the scheduler does, and answers
// PlacementPending naming the features, instead of counting the pod as
// placed: PodsForNode leaves it out, PlacementsForNode and PodsForTemplate
// return it with that verdict. A node or template that declares nothing
// satisfies no requirement, the scheduler's own rule (an older kubelet's
// pods that need a feature stay Pending); NodeTemplate.DeclaredFeatures
// lists what a node group declares.
//
// # Placement on a node template
//
// A NodeTemplate describes the nodes of a node group: labels with fixed
// values, requirements on others, label keys known absent (AbsentLabels)
// or all labels known (LabelsComplete), and taints. CompileTemplate
// compiles it once; CompiledTemplate.PlacementFor judges it against a
// DaemonSet compiled once by eligibility.New, without allocating,
// and answers Yes, No or Maybe with the deciding check (PlacementVerdict,
// which prints on one line). Yes and No are exact: they equal
// daemon.NodeShouldRunDaemonPod on every node the template allows.
// PlacementFor does both in one call.
//
// # Overhead
//
// Overhead sums what pods take from a node as the API server would admit
// them (requests defaulted from limits, LimitRange defaults, RuntimeClass
// overhead, a caller's mutation) and as the scheduler counts them (init
// containers, sidecars, pod overhead, pod-level resources), with their
// host ports; Footprint.Remaining is what is left of an allocatable. It is
// sizing, not a reservation.
//
// # Existing nodes
//
// PodClassifier and IsDaemonSetPod tell a node's DaemonSet pods from its
// workload, as autoscalers must when they drain or simulate it. Unavailable
// breaks the unavailable count of the status Compute writes down by cause
// (no pod, terminating, node not ready, pending, not ready, within
// minReadySeconds), from the plan's standing (daemon.Plan.Standing).
package whatif
