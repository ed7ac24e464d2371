package progressive

import "time"

// AnnotationPrefix is the prefix of the rollout annotations, the one schema
// through which a DaemonSet asks for a daemon.RolloutPolicy without Go code (see
// ParseAnnotations).
const AnnotationPrefix = "rollout.daemonplan.io/"

// The bounds of the annotations' values, each named in the error of a
// value beyond it: a value a person would not mean (a deadline of a
// nanosecond, a bake of centuries) is refused rather than planned, and no
// arithmetic on a parsed value can overflow.
const (
	// MinDuration is the least progress-deadline, ready-timeout and
	// non-zero wave-bake: no pod starts and becomes ready faster.
	MinDuration = time.Second
	// MaxWaveBake is the longest wave-bake: a week.
	MaxWaveBake = 7 * 24 * time.Hour
	// MaxProgressDeadline is the longest progress-deadline: 30 days.
	MaxProgressDeadline = 30 * 24 * time.Hour
	// MaxReadyTimeout is the longest ready-timeout: a day.
	MaxReadyTimeout = 24 * time.Hour
	// MaxCount is the largest integer of max-unavailable, partition,
	// canary and domain-max-unavailable: more nodes than a cluster has.
	MaxCount = 100000
	// MaxMaxRestarts is the largest max-restarts: a gate that lets a pod
	// restart more often is off in all but name (health-gates "false"
	// says so).
	MaxMaxRestarts = 1000
)

// The rollout annotation keys. Every key under AnnotationPrefix is one of
// these; any other is an error.
const (
	// AnnotationMaxUnavailable is the rollout budget of an OnDelete
	// DaemonSet (Annotations.MaxUnavailable): an integer from 1 to
	// MaxCount or a percentage from 1% to 100%.
	AnnotationMaxUnavailable = AnnotationPrefix + "max-unavailable"
	// AnnotationPartition is daemon.RolloutPolicy.Partition: an integer
	// from 0 to MaxCount or a percentage from 0% to 100%.
	AnnotationPartition = AnnotationPrefix + "partition"
	// AnnotationScope is daemon.RolloutPolicy.Scope, a node label selector in
	// kubectl's -l syntax ("zone in (a,b),!spot").
	AnnotationScope = AnnotationPrefix + "scope"
	// AnnotationPaused is daemon.RolloutPolicy.Paused: "true" or "false".
	AnnotationPaused = AnnotationPrefix + "paused"
	// AnnotationOrderBy is daemon.RolloutPolicy.Order.Label, a node label key.
	AnnotationOrderBy = AnnotationPrefix + "order-by"
	// AnnotationOrderValues is daemon.RolloutPolicy.Order.Values, comma-separated
	// label values; it needs AnnotationOrderBy.
	AnnotationOrderValues = AnnotationPrefix + "order-values"
	// AnnotationDomain is daemon.RolloutPolicy.DomainBudget.Label, a node label
	// key; it needs AnnotationDomainMaxUnavailable.
	AnnotationDomain = AnnotationPrefix + "domain"
	// AnnotationDomainMaxUnavailable is
	// daemon.RolloutPolicy.DomainBudget.MaxUnavailable: an integer from 1
	// to MaxCount or a percentage from 1% to 100%; it needs
	// AnnotationDomain.
	AnnotationDomainMaxUnavailable = AnnotationPrefix + "domain-max-unavailable"
	// AnnotationStrict is daemon.RolloutPolicy.Strict: "true" or "false".
	AnnotationStrict = AnnotationPrefix + "strict"
	// AnnotationWaveBake turns on daemon.RolloutPolicy.Waves with this
	// Bake, a Go duration ("10m"): "0s", or from MinDuration to
	// MaxWaveBake; it needs AnnotationOrderBy or AnnotationCanary (a
	// canary, its bake, then the rest).
	AnnotationWaveBake = AnnotationPrefix + "wave-bake"
	// AnnotationProgressDeadline is Annotations.ProgressDeadline, a Go
	// duration from MinDuration to MaxProgressDeadline.
	AnnotationProgressDeadline = AnnotationPrefix + "progress-deadline"

	// AnnotationCanary is daemon.RolloutPolicy.Canary.Count: a first wave
	// of this many desired nodes in scope (an integer from 1 to MaxCount,
	// or a percentage from 1% to 100% rounded up), spread across the values of
	// AnnotationDomain when set, else of AnnotationOrderBy, before the
	// ordered waves.
	AnnotationCanary = AnnotationPrefix + "canary"
	// AnnotationPauseAfter is Gates.PauseAfter: comma-separated approval
	// points, each "canary", "every-wave", or a value of AnnotationOrderBy
	// (the wave of that value); the rollout waits for
	// AnnotationApproved after each. A point that names no wave of the
	// cluster holds the rollout at once (Gates.Hold), as do order-by,
	// order-values, domain and scope naming nothing, and an approved wave
	// that is not a wave.
	AnnotationPauseAfter = AnnotationPrefix + "pause-after"
	// AnnotationApproved is Gates.Approved, written by
	// "kubectl dsplan rollout approve": "<revision hash>/<wave>", the
	// furthest approval point approved for that revision.
	AnnotationApproved = AnnotationPrefix + "approved"
	// AnnotationWindow is Gates.Windows: maintenance windows separated by
	// ";", each "<days> <HH:MM>-<HH:MM> [<time zone>]"
	// ("Mon-Fri 08:00-17:00 Europe/Amsterdam"); see ParseWindows.
	AnnotationWindow = AnnotationPrefix + "window"
	// AnnotationHealthGates turns the health gates (Gates.Health) off with
	// "false"; they are on ("true") by default once a DaemonSet opts in.
	AnnotationHealthGates = AnnotationPrefix + "health-gates"
	// AnnotationMaxRestarts is HealthGates.MaxRestarts, an integer from 0
	// to MaxMaxRestarts (DefaultMaxRestarts when absent).
	AnnotationMaxRestarts = AnnotationPrefix + "max-restarts"
	// AnnotationReadyTimeout is HealthGates.ReadyTimeout, a Go duration
	// from MinDuration to MaxReadyTimeout (DefaultReadyTimeout when
	// absent).
	AnnotationReadyTimeout = AnnotationPrefix + "ready-timeout"
	// AnnotationOnFailure is Annotations.OnFailure: "pause" (the default)
	// or "rollback".
	AnnotationOnFailure = AnnotationPrefix + "on-failure"
	// AnnotationRolledBackFrom is Annotations.RolledBackFrom, written by a
	// controller when on-failure rolls a revision back: the revision hash
	// it rolled back from.
	AnnotationRolledBackFrom = AnnotationPrefix + "rolled-back-from"
	// AnnotationOutcome is Annotations.Outcome, written by a controller
	// (and by "kubectl dsplan rollout undo"), not by hand: what the
	// rollout came to that holds until a person acts, as JSON (Outcome,
	// ParseOutcome). A new template, or a change of AnnotationPaused
	// ("kubectl dsplan rollout resume"), ends it.
	AnnotationOutcome = AnnotationPrefix + "outcome"
)

// rolloutKeys are the keys, in the order errors and Format list them.
var rolloutKeys = []string{
	AnnotationMaxUnavailable, AnnotationPartition, AnnotationScope, AnnotationPaused,
	AnnotationOrderBy, AnnotationOrderValues, AnnotationDomain, AnnotationDomainMaxUnavailable,
	AnnotationStrict, AnnotationWaveBake, AnnotationProgressDeadline,
	AnnotationCanary, AnnotationPauseAfter, AnnotationApproved, AnnotationWindow,
	AnnotationHealthGates, AnnotationMaxRestarts, AnnotationReadyTimeout,
	AnnotationOnFailure, AnnotationRolledBackFrom, AnnotationOutcome,
}
