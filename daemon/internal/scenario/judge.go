package scenario

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// nilName stands for a nil object in a plan's list; it matches no recorded
// name, so a nil entry is always reported.
const nilName = "<nil>"

// Judge compares the outcome of daemon.Compute on s (plan and err) with what
// upstream did, and returns one human-readable line per disagreement, in a
// fixed order: error, lists (in the order of Expected.Lists), hash, status,
// created pods. An empty result means the outcome conforms. It modifies
// nothing.
//
// The rules, as testdata/conformance/README.md states them:
//
//  1. Error: upstream's recorded outcomes are Error and the ErrorMay
//     entries. err must be non-nil exactly when one of them is an error
//     (err is judged by presence, not text). When both errored, nothing else
//     is judged, except that when every recorded error is a revision name
//     collision ("already exists"), plan.History.CollisionCount must be
//     non-nil and equal the collisionCount of a recorded status.
//  2. Lists: for each list X, with R read from the plan (creates: Creates'
//     node names; deletes: Deletes' pod names; adopts, releases: Adopt,
//     Release; relabels: History.Relabel; revisionsCreated: History.Create;
//     revisionsDeleted, Updated, Adopted, Released: History.Delete, Update,
//     Adopt, Release), X ⊆ R ⊆ X ∪ XMay as multisets, and XCount.Min ≤
//     |R| ≤ XCount.Max when XCount is given.
//  3. Hash: plan.Hash is Hash or one of HashMay.
//  4. Status: the plan's outcome is plan.Status when plan.StatusChanged,
//     else "no write"; it must be one of Status and StatusMay, comparing
//     the seven counters, observedGeneration and collisionCount (absent =
//     nil). When the plan writes nothing, and the DaemonSet is live (no
//     deletionTimestamp) with a selector other than exactly {}, the counters
//     of plan.Status must also equal those stored in the DaemonSet's status.
//  5. Created pods: for each node of CreatedPods the plan must create a pod
//     on that node (exactly one, unless Creates lists the node more than
//     once; then any one of them may match), and that pod, rendered with
//     encoding/json, must equal the recorded object once empty JSON objects
//     are removed from both (see CompareCreatedPod).
//
// A nil s gives a single line saying so.
func Judge(s *Scenario, plan daemon.Plan, err error) []string {
	if s == nil {
		return []string{"scenario is nil"}
	}
	e := &s.Expected
	var out []string
	errorAllowed, noErrorAllowed := errorOutcomes(e)
	switch {
	case err != nil && !errorAllowed:
		return []string{fmt.Sprintf("error: upstream returned no error, plan returned %q", err.Error())}
	case err == nil && !noErrorAllowed:
		return []string{fmt.Sprintf("error: upstream returned %q, plan returned no error", firstError(e))}
	case err != nil:
		return judgeCollision(e, plan)
	}
	got := planLists(plan)
	for _, l := range e.Lists() {
		out = append(out, JudgeList(l, got[l.Name])...)
	}
	if allowed := allowedStrings(e.Hash, e.HashMay); !slices.Contains(allowed, plan.Hash) {
		out = append(out, fmt.Sprintf("hash: plan has %q, upstream had %s", plan.Hash, quoteAll(allowed)))
	}
	out = append(out, judgeStatus(s, plan)...)
	out = append(out, judgeCreatedPods(e, plan)...)
	return out
}

// errorOutcomes reports whether upstream errored in some run and whether it
// did not in some run.
func errorOutcomes(e *Expected) (errored, clean bool) {
	for _, o := range append([]*string{e.Error}, e.ErrorMay...) {
		if o != nil {
			errored = true
		} else {
			clean = true
		}
	}
	return errored, clean
}

// firstError returns the first recorded error text.
func firstError(e *Expected) string {
	for _, o := range append([]*string{e.Error}, e.ErrorMay...) {
		if o != nil {
			return *o
		}
	}
	return ""
}

// isCollision reports whether an upstream error text is a revision name
// collision.
func isCollision(msg string) bool { return strings.Contains(msg, "already exists") }

// judgeCollision applies rule 1's exception for a plan returned with an
// error.
func judgeCollision(e *Expected, plan daemon.Plan) []string {
	for _, o := range append([]*string{e.Error}, e.ErrorMay...) {
		if o != nil && !isCollision(*o) {
			return nil
		}
	}
	var want []int32
	for _, st := range append([]*appsv1.DaemonSetStatus{e.Status}, e.StatusMay...) {
		if st != nil && st.CollisionCount != nil && !slices.Contains(want, *st.CollisionCount) {
			want = append(want, *st.CollisionCount)
		}
	}
	if len(want) == 0 {
		return []string{"collision: the scenario records a name collision but no status.collisionCount to judge it by"}
	}
	got := plan.History.CollisionCount
	if got == nil {
		return []string{fmt.Sprintf("collision: upstream bumped status.collisionCount to %s, plan.History.CollisionCount is nil", intsText(want))}
	}
	if !slices.Contains(want, *got) {
		return []string{fmt.Sprintf("collision: plan.History.CollisionCount is %d, upstream bumped status.collisionCount to %s", *got, intsText(want))}
	}
	return nil
}

// JudgeList judges one list R of a plan against l: l.Want ⊆ R ⊆ l.Want ∪
// l.May as multisets, and l.Count's bounds on |R| when non-nil. It returns
// one line per name missing or in excess, in name order, then one for the
// count. It modifies nothing.
func JudgeList(l NamedList, got []string) []string {
	var out []string
	want, may, have := counts(l.Want), counts(l.May), counts(got)
	names := make([]string, 0, len(want)+len(have))
	for n := range want {
		names = append(names, n)
	}
	for n := range have {
		if _, ok := want[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		w, m, h := want[n], may[n], have[n]
		switch {
		case h < w:
			out = append(out, fmt.Sprintf("%s: missing %q: upstream always had it %s, plan has it %s", l.Name, n, times(w), times(h)))
		case h > w+m:
			out = append(out, fmt.Sprintf("%s: unexpected %q: upstream had it at most %s, plan has it %s", l.Name, n, times(w+m), times(h)))
		}
	}
	if c := l.Count; c != nil && (len(got) < c.Min || len(got) > c.Max) {
		out = append(out, fmt.Sprintf("%s: plan has %d, upstream had between %d and %d", l.Name, len(got), c.Min, c.Max))
	}
	return out
}

// counts returns the multiplicity of each name.
func counts(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for _, n := range names {
		m[n]++
	}
	return m
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// planLists returns the names the plan holds for each list of
// Expected.Lists, keyed by the list's name, in plan order. Nil objects are
// reported as nilName.
func planLists(p daemon.Plan) map[string][]string {
	creates := make([]string, 0, len(p.Creates))
	for _, c := range p.Creates {
		creates = append(creates, c.NodeName)
	}
	deletes := make([]string, 0, len(p.Deletes))
	for _, d := range p.Deletes {
		deletes = append(deletes, podName(d.Pod))
	}
	var created []string
	if p.History.Create != nil {
		created = []string{p.History.Create.Name}
	}
	return map[string][]string{
		"creates":           creates,
		"deletes":           deletes,
		"adopts":            podNames(p.Adopt),
		"releases":          podNames(p.Release),
		"relabels":          podNames(p.History.Relabel),
		"revisionsCreated":  created,
		"revisionsDeleted":  revisionNames(p.History.Delete),
		"revisionsUpdated":  revisionNames(p.History.Update),
		"revisionsAdopted":  revisionNames(p.History.Adopt),
		"revisionsReleased": revisionNames(p.History.Release),
	}
}

func podName(p *corev1.Pod) string {
	if p == nil {
		return nilName
	}
	return p.Name
}

func podNames(pods []*corev1.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, podName(p))
	}
	return out
}

func revisionNames(revs []*appsv1.ControllerRevision) []string {
	out := make([]string, 0, len(revs))
	for _, r := range revs {
		if r == nil {
			out = append(out, nilName)
			continue
		}
		out = append(out, r.Name)
	}
	return out
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	if len(q) == 1 {
		return q[0]
	}
	return "one of " + strings.Join(q, ", ")
}

func intsText(v []int32) string {
	q := make([]string, len(v))
	for i, n := range v {
		q[i] = fmt.Sprint(n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return "one of " + strings.Join(q, ", ")
}
