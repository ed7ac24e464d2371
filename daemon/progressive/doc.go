// Package progressive is the progressive-rollout product built on the
// planner (package daemon): what a DaemonSet's rollout annotations ask
// for, and where a rollout under them stands.
//
// It decides four things, each in one place:
//   - The schema: the annotations under AnnotationPrefix through which a
//     DaemonSet asks for a daemon.RolloutPolicy, a budget, a progress
//     deadline and the gates without Go code (ParseAnnotations,
//     Annotations.Format, the Annotation* keys; Keys lists them with
//     their doc, for a program that offers a setting per key), and
//     whether a DaemonSet's annotations are inert beside
//     kube-controller-manager (Inert: it is not OnDelete).
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
//   - The gates: what holds a rollout beyond its plan, decided by
//     Gates.Hold from the same plan and judgement. First the references:
//     a pause-after wave, an approved wave, order-by, order-values,
//     domain or scope that names nothing of the plan's desired nodes
//     holds the rollout at once (Gates.Unresolved, HoldUnresolved: a
//     typo never switches a control off). Then the health
//     gates: a new-revision pod that crash-loops, was OOM-killed, cannot
//     pull its image or create its container, restarted more than
//     max-restarts times, is not Ready within ready-timeout
//     (HealthGates.Check), or restarted while its wave baked. Then the
//     approval points of pause-after: a done wave a person must approve
//     (approved names the revision and the wave, so that an approval does
//     not carry over to the next revision). Then the maintenance windows
//     (package window, Windows.At): outside them no old pod is deleted. Hold says
//     which holds, for people too (Hold.String), and when to look again
//     (Hold.Next). A controller deletes no old pod while a Hold is Held;
//     what it does on a health-gate failure (pause or roll back) is
//     on-failure's.
//
// A controller of these rollouts reports them in status conditions whose
// types and reasons are spelt here (ConditionProgressing and the
// Reason* constants; WithGeneration and ConditionGeneration for the
// generation a condition describes), so that the programs that read them
// (kubectl dsplan, an Argo CD health check, kstatus) read one spelling.
// What a rollout came to that holds until a person acts (a controller's
// own pause, a rollback) is an Outcome, kept in AnnotationOutcome.
//
// A wave is one value of the policy's order label, the nodes a wave
// barrier starts together (WavesOf lists them before a rollout starts);
// the canary (canary, daemon.Canary) is a first wave of a few nodes,
// named daemon.CanaryWave.
//
// Like package daemon, it does no I/O, reads no clock (times come in as
// values) and modifies nothing it is given.
package progressive
