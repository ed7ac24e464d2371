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
//     Rollout.Options sets them, and the plan's standing, on the planner's
//     daemon.Options.
//   - The judgement of a plan: Judge reads one plan and its standing
//     (daemon.Plan.Standing) and says whether the rollout is complete, why
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
// the canary (canary, daemon.CanarySpec) is a first wave of a few nodes,
// named daemon.CanaryWave.
//
// # Rooms
//
// The package is four rooms and one entry, by file:
//   - The entry: assess.go (Assess: plan, judge, gates, requeue, once).
//   - The schema: keys.go (the Annotation* keys, Keys), parse.go and
//     parse_gates.go (ParseAnnotations), format.go (Annotations.Format),
//     annotations.go, misspelt.go (AnnotationWarnings), rollout.go
//     (ForDaemonSet, Inert), waves.go (WavesOf), outcome.go (the outcome
//     annotation).
//   - The judge: judge.go and judge_reason.go (Judge, Judgement), reason.go
//     (Cause, Reason), stopped.go (StopCause, Stopped).
//   - The gates: gates.go (Gates, Hold), refs.go (Gates.Unresolved),
//     health.go and bake.go (HealthGates, Signal), approval.go
//     (Approval, Points).
//   - The windows: package window (daemon/progressive/window), a leaf
//     that imports no package of this module.
//
// conditions.go spells the status conditions a controller writes and
// errors.go the annotations' errors.
//
// # Causes and reasons
//
// Every cause and reason of the rollout product, the type (and so the
// function) it comes from, and what a person does about it. A condition
// reason (C) is written by a controller to the condition named; most
// repeat the cause they come from.
//
//	Value                      Comes from                       What a person does
//	-----                      ----------                       ------------------
//	Complete                   Cause (Judge)                    nothing: done
//	PartitionReached           Cause (Judge)                    lower the partition to go on
//	Skipped                    Cause (Judge; daemon.Skip)       nothing: the sync did not plan
//	Paused                     Cause (Judge); C Progressing     resume: remove the paused annotation
//	Replacing                  Cause (Judge)                    wait: pods are being replaced
//	CreatingDeleting           Cause (Judge)                    wait: missing or failed pods are redone
//	BudgetUsedOutsideScope     Cause (Judge)                    fix or drain the nodes outside the scope
//	BudgetUsed                 Cause (Judge)                    wait, or raise max-unavailable
//	DomainBudgetUsed           Cause (Judge)                    wait, or raise domain-max-unavailable
//	WaveBaking                 Cause (Judge)                    wait until the bake ends (wave-bake)
//	WaveWaiting                Cause (Judge)                    wait; look at the wave's nodes (Nodes)
//	Unavailable                Cause (Judge)                    look at the nodes without an available pod
//	NotUpdated                 Cause (Judge)                    wait; under OnDelete old pods await delete
//	InFlight                   Cause (Judge)                    wait: nodes run two pods for a moment
//	WaitingForApproval         HoldCause (Gates.Hold); C        approve: kubectl dsplan rollout approve
//	OutsideWindow              HoldCause (Gates.Hold); C        wait for a window, or change the annotation
//	HealthGateFailed           HoldCause, OutcomeReason; C      fix the pods (Signal), then resume or undo
//	UnresolvedReference        HoldCause (Gates.Unresolved); C  fix the annotation's typo, or label nodes
//	CrashLoopBackOff           Signal (HealthGates.Check)       fix the container; read its logs
//	OOMKilled                  Signal                           raise the memory limit or fix the leak
//	ImagePullError             Signal                           fix the image name, tag or pull secret
//	CreateContainerError       Signal                           fix the container spec (mounts, config)
//	TooManyRestarts            Signal (max-restarts)            fix the container, or raise max-restarts
//	RestartedDuringBake        Signal (wave-bake)               fix the container before the next wave
//	ReadyTimeout               Signal (ready-timeout)           fix readiness, or raise ready-timeout
//	ProgressDeadlineExceeded   OutcomeReason; C Paused          read RolloutBlocked's reason; then resume
//	NewRevisionUnavailable     StopCause (Stopped); C Blocked   fix the new pods that do not become available
//	NodesNotReady              StopCause; C Blocked             fix the NotReady nodes
//	PodsMissing                StopCause; C Blocked             find why pods are not created (events)
//	OldPodsUnavailable         StopCause; C Blocked             fix the old pods or their nodes
//	NoProgress                 StopCause; C Blocked             look at the plan (kubectl dsplan explain)
//	RolledBack                 OutcomeReason; C Progressing     fix the template; a new one starts over
//	Updating                   C Progressing                    nothing: pods are being replaced
//	RolloutComplete            C Progressing                    nothing: done
//	NotPaused, NotBlocked      C Paused, C Blocked (False)      nothing
//	PausedByAnnotation         C Paused                         remove the paused annotation to resume
//	PodsFailing                C Progressing (after done)       fix the failing pods of the done revision
//	InvalidAnnotations         C Progressing (ForDaemonSet)     fix the annotation the message names
//	SurgeUnsupported           C Progressing (OnDelete)         drop maxSurge: OnDelete cannot surge
//	RolloutAnnotationsIgnored  C Progressing (Inert)            set OnDelete, or drop the annotations
//	TemplateSkew               C Progressing, Blocked           upgrade the controller (newer template)
//	plan, judge, gates         AssessStep (Assess's error)      read the error; gates: fix a window's zone
//
// Like package daemon, it does no I/O, reads no clock (times come in as
// values) and modifies nothing it is given.
package progressive
