// Package daemon computes what one sync of the Kubernetes DaemonSet
// controller must change, as a plain value: given a DaemonSet, the nodes,
// the pods and the ControllerRevisions, Compute returns a Plan of pods to
// create and delete, pods and revisions to adopt and release, revision
// history changes, the status to write and when to look again. It performs
// no I/O, reads no clock and keeps no state: the same input gives the same
// plan, whatever the order of its slices.
//
// The sections below follow a sync: Compute (or a Planner) makes the Plan,
// the caller executes its actions, Options carry what is not an object
// (the clock, the revisions, the backoff state, the rollout policy),
// RolloutPolicy shapes a rollout, the plan's Standing says where each node
// stands, daemon/eligibility is the placement check inside, and Plan.Format
// prints a plan for people.
//
// # Compute and the Planner
//
// Compute(ds, nodes, pods, opts) plans one sync of one DaemonSet; its doc
// lists the steps in order. A Planner computes the same plans, remembering
// what it read of each node and pod so that a plan costs what changed
// since the last (see Planner for the identity rule): a controller that
// plans all day gives each worker goroutine one.
//
// # Using a plan
//
// The caller executes a Plan: it posts Creates[i].Pod, deletes Deletes[i].Pod,
// patches the controller reference of Adopt and Release, applies History
// (Update before Delete), writes Status when StatusChanged, and keeps
// FailedPodBackoff for the next Compute, which it runs again when an object
// changes or after RequeueAfter. Every action carries a Reason; Events are
// the events upstream would record. Plan.IsZero reports that there is
// nothing to do; Plan.Skip says why a sync does nothing by design (SkipOf
// gives it from the DaemonSet alone).
//
// # The standing
//
// With Options.ReportStanding, a plan also says where each node stands
// (Plan.Standing): every node it judged, desired or not, and the nodes pods
// target that do not exist; whether a pod should run there; whether the
// rollout policy holds it (outside the Scope, kept by the Partition, in a
// wave not yet open, Paused) and its wave; its pods, each judged updated
// (the current revision) or old, ready, available; and the pod the status
// counts there, so that counted, the standing gives Plan.Status. Nothing
// has to walk the pods again. Without the option a plan costs what it
// costs without a standing (see BENCHMARKS.md); with it, the standing is
// the plan's own, also from a Planner.
//
// # Options
//
// Options carry what is not an object: Now, the controller clock (the
// only time a plan reads); the Revisions; the FailedPodBackoff state the
// previous plan returned; the BurstReplicas cap; the comparison-operator
// feature gate; and the Rollout policy. The zero value works: a first sync
// with upstream's defaults.
//
// # Rollout controls
//
// Options.Rollout, a RolloutPolicy, adds what upstream lacks: a Partition
// (old nodes kept), a Scope of nodes, Paused, an update Order (by a label's
// value or a caller's comparator), per-domain budgets, Strict budgets,
// Waves (a barrier between the values of the order label, with a bake) and
// a Canary (a first wave of a few nodes, spread across a label's values).
// Its zero value is upstream's behaviour. The progressive-rollout product is
// package daemon/progressive, above this one: the rollout.daemonplan.io/
// annotations through which a DaemonSet asks for a policy (the one schema
// the example controller, beside or instead of kube-controller-manager,
// and dsplan share), the step from a DaemonSet to what Compute needs
// (ForDaemonSet), and the judge of a plan (Judge: complete, at the
// partition too, or what holds the rollout back, in the policy's terms).
//
// # Placement
//
// NodeShouldRunDaemonPod answers upstream's placement question for one node.
// Package daemon/eligibility holds the check: eligibility.New compiles it
// once per DaemonSet; Check.ShouldRun then judges a node without
// allocating, and Check.Explain says why a node may not run the pod.
//
// # Format
//
// Plan.Format prints a plan for people: its actions with their reasons,
// the rolling budget, the status and the requeue, and, given the DaemonSet
// and the nodes, the placement of each node.
//
// # Faithfulness
//
// A plan is what kube-controller-manager v1.37 (pkg/controller/daemon)
// decides in one syncDaemonSet with its expectations satisfied, judged
// against 333 scenarios recorded from the real controller, v1.37.2
// (testdata/conformance).
//
// The Kubernetes minor a plan follows is the one of the k8s.io/api this
// module is built with (go.mod: v0.37). Against kube-controller-manager
// v1.36 a plan decides the same creates, deletes, adoptions, rolling steps
// and status (1.37 changed the controller's cost, not its decisions: the
// 1.36 recording of the same scenarios gives the same decisions once its
// revision hash is renamed), with one difference: the hash of a revision
// the plan creates itself. Upstream's hash is taken over a dump of the
// whole PodTemplateSpec Go value, and k8s.io/api v0.37 added fields to it,
// so every template hashes differently under 1.36 and 1.37. Revisions that
// already exist are matched by their data, not their name, so a plan over a
// 1.36 cluster finds the revisions kube-controller-manager 1.36 wrote and
// uses their hashes; only a revision the plan creates (a template that
// kube-controller-manager has not yet snapshotted) is named with the 1.37
// hash. Other minors are not measured. Where upstream's choice depends on Go map or
// informer order, Compute picks by node name, then pod name, and says so.
// Where upstream panics (a nil revisionHistoryLimit, a revision with nil
// labels) it uses the API default or creates the map, and says so.
//
// Upstream habits an executor may find surprising are kept, not corrected:
// an orphan pod can be adopted and deleted by the same plan; the current
// revision is created even when an unowned revision with that name and
// data exists (the API answers AlreadyExists); a never-scheduled pod bound
// to a missing node is deleted on every sync, even while it is already
// being deleted; a surge step over an old pod on a missing node is an
// error; a new pod that never becomes available (on a NotReady node, say)
// holds its share of maxUnavailable for as long as it stays so; and a
// selector that does not match the template makes every plan create pods
// the next one releases.
//
// # Errors
//
// Every error of a plan is an *Error, in the spirit of *os.PathError: the
// DaemonSet's namespace/name, named once; the Stage of the sync (invalid
// input, rollout policy, revision history, rolling update); and the cause,
// which names the field (a *field.Error, a *selector.Error) or the fact (a
// *DuplicateNodeError, a *rollout.CollisionError, with the plan carrying
// the bumped collision count, a *rollout.MissingNodeError). The packages
// the planner calls report fields and never the DaemonSet, so no text is
// cut out of another. Every input, selector, policy and budget error
// matches ErrInvalidInput, so a caller tests one thing to know that
// planning again cannot help until the object changes; Error.Message is
// the text without the DaemonSet, for an event on the object. Compute
// never panics on bad input.
//
// Compute does not validate the DaemonSet as the API server does; package
// daemon/validation does, with the API server's paths and messages. Call
// its Validate on DaemonSets built in code or taken from a custom resource.
//
// # Cost
//
// Compute parses the selector, the node affinity and the tolerations once per
// plan, evaluates each node's eligibility once, and claims, places and
// judges each pod once: a plan costs O(nodes + pods) plus sorting by name.
// It allocates a few hundred times per plan whatever the cluster's size
// (slices sized to the cluster, none per node), plus the pods it creates
// (see BENCHMARKS.md).
//
// A Planner computes the same plans as Compute but keeps that per-cluster
// memory between calls, and what it read of each object, so that a warm
// steady plan reads little more than each object's identity and allocates
// next to nothing however large the cluster; use one per goroutine. The code that
// buys the speed and changes no result (a radix sort of names, reading
// objects in batches ahead of deciding them) lives in internal packages,
// apart from what the planner decides.
//
// # Revisions that do not match
//
// A revision is current only when its data equals the DaemonSet's patch
// byte for byte, as upstream's. rollout.DiffRevision names the first
// differing path, and a *rollout.CollisionError carries it: revisions
// written by older controllers with "creationTimestamp": null in the
// template metadata collide, bump the collision count and give every pod
// a new hash, faithfully to upstream (see rollout.ConstructHistory).
//
// A revision that does not match because this build is older than the
// cluster is not planned over: when the newest claimed revision's data
// holds pod template fields this build's k8s.io/api types do not know,
// the template Compute decoded has lost them, so Compute plans nothing
// and says why (Plan.TemplateSkew, a *rollout.TemplateSkewError), rather
// than create a revision kube-controller-manager never wrote and judge
// every pod by a hash it never labels pods with. A cluster of the build's
// own minor never trips it; the zero-value options stay upstream's.
//
// # Around the planner
//
// Sub-packages answer the questions next to a sync: daemon/whatif, for
// autoscalers sizing nodes that do not exist yet, the pods a node or node
// template would get (built by the planner's own code), what they take
// from it, Yes, No or Maybe placement on a template, which pods are
// DaemonSet pods and the unavailable count by cause; daemon/progressive
// the progressive rollouts (see Rollout controls); daemon/validation what
// the API server rejects (Compute does not validate); daemon/simulate a
// rollout replayed sync by sync in an in-memory cluster; daemon/daemontest
// builders and plan invariants for tests. Reading Compute's inputs from
// kubectl's YAML or JSON is the plugin's job (examples/dsplan), not the
// library's.
//
// # Names
//
// One word names one thing. The standing is where each node stands in a
// plan: a Standing (of NodeStanding values) that Plan.Standing holds when
// Options.ReportStanding asks for it. The canary is a first wave: a
// CanarySpec, held by RolloutPolicy.Canary, says what it is; CanaryWave
// is its name among the waves, and CanaryNodes picks its nodes. A Reason
// is why a plan creates or deletes a pod; why a node may not run a pod is
// an eligibility.Ineligibility, and why the policy holds a node's pods a
// KeepReason.
//
// The files form layers: no two files of the package use each other's
// declarations (TestFileLayering). RolloutPolicy's types are in
// policy_types.go, its methods in the other policy*.go files; the plan's
// types, the standing's among them, are in plan.go, and readout.go only
// reads the standing out of a plan's view of the cluster.
package daemon
