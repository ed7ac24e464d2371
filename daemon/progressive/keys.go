package progressive

import (
	"fmt"
	"slices"
	"time"
)

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
	// ("Mon-Fri 08:00-17:00 Europe/Amsterdam"); see window.Parse.
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

// Key is one key of the rollout annotations' schema, for programs that
// offer a setting per key (a flag of kubectl dsplan simulate).
type Key struct {
	// Name is the annotation key: AnnotationPrefix and the key's name.
	Name string
	// Doc says in a phrase, for people (a flag's help), what the value is
	// and what it asks for; the Annotation* constants' doc says the same.
	Doc string
	// Plan says that the key shapes a plan (the budget or
	// daemon.RolloutPolicy); the other keys are read beyond one plan: the
	// progress deadline, the gates, on-failure and rolled-back-from.
	Plan bool
	// Bool says that the value is "true" or "false".
	Bool bool
}

// schema are the keys, in the order errors and Format list them.
var schema = []Key{
	{Name: AnnotationMaxUnavailable, Plan: true, Doc: fmt.Sprintf("the rollout budget of an OnDelete DaemonSet: an integer from 1 to %d or a percentage from 1%% to 100%% (default 1)", MaxCount)},
	{Name: AnnotationPartition, Plan: true, Doc: fmt.Sprintf("desired nodes kept on the old revision: an integer from 0 to %d or a percentage from 0%% to 100%%", MaxCount)},
	{Name: AnnotationScope, Plan: true, Doc: "update only the nodes this label selector matches, in kubectl -l syntax (\"zone in (a,b),!spot\")"},
	{Name: AnnotationPaused, Plan: true, Bool: true, Doc: "no old pod is replaced (missing pods are still created): true or false"},
	{Name: AnnotationOrderBy, Plan: true, Doc: "update nodes grouped by the values of this node label key, e.g. topology.kubernetes.io/zone"},
	{Name: AnnotationOrderValues, Plan: true, Doc: "comma-separated values of the order-by label that go first, in this order"},
	{Name: AnnotationDomain, Plan: true, Doc: "a node label key: domain-max-unavailable applies per value of it"},
	{Name: AnnotationDomainMaxUnavailable, Plan: true, Doc: fmt.Sprintf("nodes unavailable at once per domain: an integer from 1 to %d or a percentage from 1%% to 100%%", MaxCount)},
	{Name: AnnotationStrict, Plan: true, Bool: true, Doc: "already-unavailable old pods count against the budget: true or false"},
	{Name: AnnotationWaveBake, Plan: true, Doc: fmt.Sprintf("a wave barrier: a wave starts once the earlier ones are updated and available and this Go duration has passed: 0s (at once) or %s to %s; needs order-by or canary", MinDuration, MaxWaveBake)},
	{Name: AnnotationProgressDeadline, Doc: fmt.Sprintf("how long a rollout may go without a node becoming updated and available before it is stopped: a Go duration from %s to %s", MinDuration, MaxProgressDeadline)},
	{Name: AnnotationCanary, Plan: true, Doc: fmt.Sprintf("a first wave of this many desired nodes in scope: an integer from 1 to %d or a percentage from 1%% to 100%%, rounded up", MaxCount)},
	{Name: AnnotationPauseAfter, Doc: "comma-separated approval points after which the rollout waits for approved: canary, every-wave or values of order-by (one that names no wave holds the rollout)"},
	{Name: AnnotationApproved, Doc: "the furthest approval point approved, <revision hash>/<wave>, as kubectl dsplan rollout approve writes it"},
	{Name: AnnotationWindow, Doc: "maintenance windows outside which no old pod is deleted, \";\"-separated \"<days> <HH:MM>-<HH:MM> [<time zone>]\""},
	{Name: AnnotationHealthGates, Bool: true, Doc: "the health gates on new-revision pods: true (the default) or false"},
	{Name: AnnotationMaxRestarts, Doc: fmt.Sprintf("restarts a container of a new-revision pod may make before a health gate fails: an integer from 0 to %d (default %d)", MaxMaxRestarts, DefaultMaxRestarts)},
	{Name: AnnotationReadyTimeout, Doc: fmt.Sprintf("how long a new-revision pod may stay not Ready before a health gate fails: a Go duration from %s to %s (default %s)", MinDuration, MaxReadyTimeout, DefaultReadyTimeout)},
	{Name: AnnotationOnFailure, Doc: "what the companion does when a health gate fails: pause (the default) or rollback"},
	{Name: AnnotationRolledBackFrom, Doc: "the revision hash the companion last rolled back from, which it never rolls back to (it writes this key)"},
	{Name: AnnotationOutcome, Doc: "what a rollout came to that holds until a person acts (a controller's own stop, or a rollback), as JSON; written by the companion and kubectl dsplan rollout undo, ended by a new template or a change of paused"},
}

// Keys returns the schema's keys, in the order errors and Format list
// them: every Annotation* key, once. The slice is the caller's.
func Keys() []Key { return slices.Clone(schema) }

// Check reports whether value is a value of k on its own, as
// ParseAnnotations checks it, without what it needs of the other keys
// (pause-after's order-by, domain's domain-max-unavailable, …): nil, or
// the *field.Error at metadata.annotations[k.Name] (errors.Is finds
// daemon.ErrInvalidInput). A Key that is not one of Keys is an error too.
func (k Key) Check(value string) error {
	if err := defaultAnnotations().set(k.Name, value); err != nil {
		return annotationErrors{err}
	}
	return nil
}

// rolloutKeys are the keys' names, in schema's order.
var rolloutKeys = func() []string {
	out := make([]string, len(schema))
	for i, k := range schema {
		out[i] = k.Name
	}
	return out
}()
