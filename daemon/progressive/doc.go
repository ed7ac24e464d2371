// Package progressive is the progressive-rollout product built on the
// planner (package daemon): what a DaemonSet's rollout annotations ask
// for, and where a rollout under them stands.
//
// It decides three things, each in one place:
//   - The schema: the annotations under AnnotationPrefix through which a
//     DaemonSet asks for a daemon.RolloutPolicy, a budget and a progress
//     deadline without Go code (ParseAnnotations, Annotations.Format, the
//     Annotation* keys).
//   - The step from a DaemonSet to what the planner needs: ForDaemonSet
//     gives the DaemonSet to plan with (an OnDelete DaemonSet is planned as
//     RollingUpdate with the annotated budget) and the policy;
//     Rollout.Options sets them, and the plan's read-out, on the planner's
//     daemon.Options.
//   - The judgement of a plan: Judge reads one plan and its read-out
//     (daemon.Plan.ReadOut) and says whether the rollout is complete, why
//     not (Reason, in the policy's terms), the counts of its desired nodes
//     in all and per wave (Tally), and, with Judgement.Deadline, whether
//     it has gone past its progress deadline. It computes no plan of its
//     own: a controller computes the plan once, acts on it and judges it.
//
// A wave is one value of the policy's order label, the nodes a wave
// barrier starts together (WavesOf lists them before a rollout starts).
//
// Like package daemon, it does no I/O, reads no clock (times come in as
// values) and modifies nothing it is given.
package progressive
