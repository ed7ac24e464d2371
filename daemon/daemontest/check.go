package daemontest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// Invariant names a property every plan of daemon.Compute must have. Its
// values complete the sentence "the plan violates ...".
type Invariant string

// The invariants CheckPlan judges. The doc of each says exactly what is
// checked; "live" pods are those without a deletionTimestamp, and "the
// DaemonSet's pods" are the input pods it controls (controller reference
// with its kind, name and UID, labels matched by its selector) plus those
// the plan adopts.
const (
	// InvariantNoPanic: Compute returns instead of panicking.
	InvariantNoPanic Invariant = "NoPanic"
	// InvariantInputUnchanged: the DaemonSet, nodes, pods, revisions and
	// backoff state are deep-equal before and after Compute.
	InvariantInputUnchanged Invariant = "InputUnchanged"
	// InvariantRepeatable: a second Compute on the same input returns the
	// same plan and the same error text.
	InvariantRepeatable Invariant = "Repeatable"
	// InvariantPermutation: Compute on the input with its nodes, pods and
	// revisions shuffled returns the same plan and error text (for input
	// Compute cannot plan from, whose error names indices into the slices,
	// an error of daemon.StageInput again).
	InvariantPermutation Invariant = "PermutationInvariant"
	// InvariantSorted: every slice of the plan is in the order daemon.Plan
	// documents: Creates by node name (one per node, so strictly), Deletes by
	// node name then pod name, Adopt, Release and Unplaced by name, the
	// revision lists of History by name.
	InvariantSorted Invariant = "Sorted"
	// InvariantInvalidInput: an error of daemon.StageInput or
	// daemon.StagePolicy (input Compute cannot plan from, which matches
	// daemon.ErrInvalidInput) comes with the zero plan. Invalid input found
	// later, an invalid maxSurge or maxUnavailable, comes with the part of
	// the plan upstream still carries out, and is checked as such.
	InvariantInvalidInput Invariant = "InvalidInputGivesZeroPlan"
	// InvariantSkip: a plan with Skip set asks for nothing: no pod or
	// revision change, no status write, no requeue, no rolling step, no hash.
	InvariantSkip Invariant = "SkipAsksNothing"
	// InvariantCreateOncePerNode: no node gets more than one create.
	InvariantCreateOncePerNode Invariant = "CreateOncePerNode"
	// InvariantCreateEligible: every create targets an input node on which
	// eligibility.New(ds, opts.EnableTaintTolerationComparisonOperators)
	// says a new pod should run.
	InvariantCreateEligible Invariant = "CreateOnEligibleNode"
	// InvariantCreateNeeded: no create lands beside a live, non-terminal
	// pod of the current revision; when the DaemonSet does not surge
	// (rollout.AllowsSurge is false and maxSurge scales to 0), none lands
	// on a node that has any pod of the DaemonSet (terminal pods being
	// deleted aside), as upstream creates only on nodes without one.
	InvariantCreateNeeded Invariant = "CreateOnlyWhereNeeded"
	// InvariantCreatedPod: the pod of every create is a new object in the
	// DaemonSet's namespace with a generateName, controlled by the
	// DaemonSet, labelled with the plan's Hash, and bound to the create's
	// node (affinity.GetTargetNodeName).
	InvariantCreatedPod Invariant = "CreatedPodWellFormed"
	// InvariantDeleteOwned: every delete names an input pod (the caller's
	// pointer) of the DaemonSet: controlled by it, or adopted by this very
	// plan. Upstream adopts and deletes an orphan in the same sync
	// (conformance s1-0080, s1-0125, s1-0280), so "adopted and deleted" is
	// allowed; "released and deleted" is not.
	InvariantDeleteOwned Invariant = "DeleteOwnedInputPod"
	// InvariantDeleteOnce: no pod is deleted twice.
	InvariantDeleteOnce Invariant = "DeleteOnce"
	// InvariantDeleteReason: each delete's reason holds: PodFailed and
	// PodSucceeded name pods in that phase, NodeIneligible a node that may
	// not keep the pod, NodeMissing a never-scheduled pod whose node is
	// not in the input, the other reasons an old pod (not of the current
	// revision). Only NodeMissing may name a pod that is already being
	// deleted (upstream deletes those again); at most one PodFailed delete
	// per node.
	InvariantDeleteReason Invariant = "DeleteReasonHolds"
	// InvariantClaims: adopted pods are live orphans of the DaemonSet's
	// namespace matched by its selector; released pods are controlled by
	// it and not matched; no pod is both.
	InvariantClaims Invariant = "ClaimsConsistent"
	// InvariantBurst: at most BurstReplicas creates and as many deletes
	// (daemon.DefaultBurstReplicas when Options.BurstReplicas <= 0);
	// deferred counts are non-negative and positive only when the cap is
	// reached.
	InvariantBurst Invariant = "BurstCap"
	// InvariantRollingStep: the rolling step ran exactly when it should and
	// the plan carries out what it chose; see checkRolling.
	InvariantRollingStep Invariant = "RollingStepConsistent"
	// InvariantUnavailability: without surge, the plan never makes more
	// desired nodes unavailable than maxUnavailable allows, unless they
	// already were; see checkRolling.
	InvariantUnavailability Invariant = "UnavailabilityBudget"
	// InvariantSurge: with surge, the plan never has more nodes surging
	// than maxSurge allows, unless they already were; see checkRolling.
	InvariantSurge Invariant = "SurgeBudget"
	// InvariantSurgeAvailability: with surge, the plan never takes the
	// number of nodes with an available pod below the desired count
	// (or below what it was); see checkRolling.
	InvariantSurgeAvailability Invariant = "SurgeKeepsAvailability"
	// InvariantHistory: the revision history changes name input objects,
	// create the DaemonSet's own revision, keep one revision of the current
	// template and spare the revisions of running pods; see checkHistory.
	InvariantHistory Invariant = "HistoryConsistent"
	// InvariantBackoff: the failed-pod backoff keeps other DaemonSets'
	// entries and raises this one's at Now for every failed pod deleted;
	// see checkBackoff.
	InvariantBackoff Invariant = "BackoffConsistent"
	// InvariantStatus: the status is consistent and computed from the
	// input; see checkStatus.
	InvariantStatus Invariant = "StatusConsistent"
	// InvariantRequeue: 0 <= RequeueAfter <= max(minReadySeconds, the
	// longest Delay among the DaemonSet's entries of Options.FailedPodBackoff
	// and Plan.FailedPodBackoff, the wave barrier's Bake): never later than
	// upstream's requeues (after minReadySeconds while ready and available
	// pods differ, after the current delay of a backoff holding a failed pod
	// back), nor than the end of a wave's bake, clock skew included.
	InvariantRequeue Invariant = "RequeueBounded"
)

// Violation is one broken invariant, with a readable detail naming the
// objects involved.
type Violation struct {
	Invariant Invariant
	Detail    string
}

// Error returns "<invariant>: <detail>".
func (v Violation) Error() string { return string(v.Invariant) + ": " + v.Detail }

// Is reports whether target is ErrViolation: every Violation is one, so
// that errors.Is finds it in an error that wraps Violations alone (as
// simulate.Result.Err does).
func (v Violation) Is(target error) bool { return target == ErrViolation }

// ErrViolation is wrapped by Report.Err when a plan broke an invariant;
// each Violation is also reachable with errors.As.
var ErrViolation = errors.New("plan invariant violated")

// Report is the outcome of CheckPlan.
type Report struct {
	// Plan and ComputeErr are what Compute returned on the input as given.
	// A Compute error is an outcome, not a violation.
	Plan       daemon.Plan
	ComputeErr error
	// Violations are the broken invariants, in the order they were found.
	Violations []Violation
}

// Err returns nil when no invariant is violated; otherwise an error
// wrapping ErrViolation and every Violation, one per line.
func (r Report) Err() error {
	if len(r.Violations) == 0 {
		return nil
	}
	errs := make([]error, len(r.Violations))
	for i, v := range r.Violations {
		errs[i] = v
	}
	return fmt.Errorf("%w (%d):\n%w", ErrViolation, len(r.Violations), errors.Join(errs...))
}

// Has reports whether r holds a violation of inv.
func (r Report) Has(inv Invariant) bool {
	for _, v := range r.Violations {
		if v.Invariant == inv {
			return true
		}
	}
	return false
}

// DefaultPermutations is the number of shuffled inputs CheckPlan tries when
// CheckOptions.Permutations is 0.
const DefaultPermutations = 3

// CheckOptions tune CheckPlan. The zero value works.
type CheckOptions struct {
	// Seed seeds the shuffles of the permutation check.
	Seed uint64
	// Permutations is the number of shuffled inputs to try:
	// DefaultPermutations when 0, none when negative.
	Permutations int
}

// CheckPlan runs daemon.Compute on in and reports every invariant the
// outcome violates (see the Invariant constants): it checks the plan
// against in (CheckGivenPlan), computes it again to check it is
// repeatable, computes it on seeded permutations of in, and checks that in
// is deep-equal to a copy taken before. A panic in Compute is recovered and
// reported as InvariantNoPanic.
//
// CheckPlan modifies nothing. It costs 2 + Permutations calls of Compute
// plus a deep copy and a few comparisons of the input and plans; it is meant
// for tests and fuzzers, not for production paths.
func CheckPlan(in simulate.Input, opts CheckOptions) Report {
	before := in.DeepCopy()
	backoffBefore := in.Options.FailedPodBackoff.Entries()

	var rep Report
	plan, err, panicked := computeSafely(nil, in)
	if panicked != "" {
		rep.Violations = append(rep.Violations, Violation{InvariantNoPanic, panicked})
		return rep
	}
	rep.Plan, rep.ComputeErr = plan, err

	// A caller's comparator is a func, which never deep-equals; the
	// policy's other fields are compared.
	cmpIn := in
	cmpIn.Options.Rollout.Order.Compare, before.Options.Rollout.Order.Compare = nil, nil
	if !reflect.DeepEqual(before, cmpIn) {
		if diff := cmp.Diff(before, cmpIn, planCmpOptions); diff != "" {
			rep.add(InvariantInputUnchanged, "Compute modified its input (-before +after):\n%s", diff)
		}
	}
	if diff := cmp.Diff(backoffBefore, in.Options.FailedPodBackoff.Entries()); diff != "" {
		rep.add(InvariantInputUnchanged, "Compute modified Options.FailedPodBackoff (-before +after):\n%s", diff)
	}

	rep.Violations = append(rep.Violations, CheckGivenPlan(in, plan, err)...)

	again, againErr, panicked := computeSafely(nil, in)
	switch {
	case panicked != "":
		rep.add(InvariantNoPanic, "second call: %s", panicked)
	default:
		if d := planDiff(plan, err, again, againErr); d != "" {
			rep.add(InvariantRepeatable, "a second Compute gave another outcome (-first +second):\n%s", d)
		}
	}

	n := opts.Permutations
	if n == 0 {
		n = DefaultPermutations
	}
	r := rand.New(rand.NewPCG(opts.Seed, 0x6461656d6f6e)) // "daemon"
	for i := 0; i < n; i++ {
		got, gotErr, panicked := computeSafely(nil, in.Permute(r))
		if panicked != "" {
			rep.add(InvariantNoPanic, "permutation %d: %s", i, panicked)
			continue
		}
		if stageOf(err) == daemon.StageInput && stageOf(gotErr) == daemon.StageInput {
			continue // the message names input indices, which move
		}
		if d := planDiff(plan, err, got, gotErr); d != "" {
			rep.add(InvariantPermutation, "permutation %d (seed %d) changed the outcome (-input order +permuted):\n%s", i, opts.Seed, d)
			break // one diff says it; the others would repeat it
		}
	}
	return rep
}

func (r *Report) add(inv Invariant, format string, args ...any) {
	r.Violations = append(r.Violations, Violation{inv, fmt.Sprintf(format, args...)})
}

// computeSafely runs Compute on in, through the Planner p when it is not
// nil, turning a panic into a message with a shortened stack.
func computeSafely(p *daemon.Planner, in simulate.Input) (plan daemon.Plan, err error, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			stack := string(debug.Stack())
			if len(stack) > 4000 {
				stack = stack[:4000] + "..."
			}
			panicked = fmt.Sprintf("Compute panicked: %v\n%s", r, stack)
		}
	}()
	plan, err = p.Compute(in.DaemonSet, in.Nodes, in.Pods, in.Options)
	return plan, err, ""
}

// planCmpOptions compare plans and inputs completely, the unexported
// fields of this module's types included (backoff.State has an Equal
// method, which go-cmp prefers).
var planCmpOptions = cmp.Options{
	cmp.Exporter(func(t reflect.Type) bool {
		return strings.HasPrefix(t.PkgPath(), "github.com/daemonplan/daemonplan/")
	}),
}

// planDiff returns "" when the two outcomes are the same: equal error
// texts and equal plans.
func planDiff(a daemon.Plan, aErr error, b daemon.Plan, bErr error) string {
	var out string
	if errText(aErr) != errText(bErr) {
		out = fmt.Sprintf("error: -%s\n       +%s\n", errText(aErr), errText(bErr))
	}
	if !reflect.DeepEqual(a, b) {
		out += cmp.Diff(a, b, planCmpOptions)
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
