package daemontest_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// errKind is what a checkCase expects of Compute's error.
type errKind int

const (
	noError errKind = iota
	invalidInput
	someError
)

func (k errKind) matches(err error) bool {
	switch k {
	case noError:
		return err == nil
	case invalidInput:
		return errors.Is(err, daemon.ErrInvalidInput)
	}
	return err != nil && !errors.Is(err, daemon.ErrInvalidInput)
}

// checkCase is an input on which every invariant must hold.
type checkCase struct {
	name    string
	in      func() simulate.Input
	wantErr errKind
}

// checkCases are the table of inputs CheckPlan must accept; the fuzz
// targets are seeded from them.
func checkCases() []checkCase {
	return []checkCase{
		{name: "a fresh DaemonSet creates a pod on every eligible node", in: func() simulate.Input { return fresh() }},
		{name: "a settled DaemonSet asks for nothing", in: func() simulate.Input { return settled() }},
		{name: "a rolling update deletes one old pod within maxUnavailable", in: func() simulate.Input { return rollingOut() }},
		{name: "maxUnavailable 100% replaces every old pod at once", in: func() simulate.Input { return rollingOut(dt.WithMaxUnavailable("100%")) }},
		{name: "both budgets zero fall back to maxUnavailable 1", in: func() simulate.Input { return rollingOut(dt.WithMaxUnavailable("0")) }},
		{name: "a surge update creates a new pod beside an old one", in: surging},
		{name: "OnDelete leaves old pods alone", in: func() simulate.Input { return rollingOut(dt.OnDelete()) }},
		{name: "a failed pod is deleted", in: func() simulate.Input {
			in := settled()
			in.Pods[0] = dt.Pod(in.DaemonSet, "fluentd-n1", "n1", dt.WithPhase(corev1.PodFailed), dt.NotReadyPod())
			return in
		}},
		{name: "an orphan is adopted and, being the younger of two, deleted", in: func() simulate.Input {
			in := settled()
			in.Pods = append(in.Pods, dt.Pod(in.DaemonSet, "orphan", "n1", dt.Orphan(), dt.CreatedAt(dt.Epoch)))
			return in
		}},
		{name: "a pod whose labels no longer match is released", in: func() simulate.Input {
			in := settled()
			in.Pods[0].Labels["app"] = "other"
			return in
		}},
		{name: "a never-scheduled pod of a missing node is deleted", in: func() simulate.Input {
			in := settled()
			in.Pods = append(in.Pods, dt.Pod(in.DaemonSet, "lost", "gone", dt.Unscheduled()))
			return in
		}},
		{name: "pods being deleted and ready for minReadySeconds are judged at Now", in: func() simulate.Input {
			in := rollingOut(dt.WithMinReadySeconds(30))
			in.Pods[1].DeletionTimestamp = &metav1.Time{Time: dt.Epoch}
			in.Pods[2].Status.Conditions[0].LastTransitionTime = metav1.Time{Time: dt.Epoch.Add(-10 * time.Second)}
			return in
		}},
		{name: "the burst cap defers creates", in: func() simulate.Input {
			in := fresh()
			in.Options.BurstReplicas = 1
			return in
		}},
		{name: "no nodes at all", in: func() simulate.Input {
			in := settled()
			in.Nodes, in.Pods = nil, nil
			return in
		}},
		{name: "a DaemonSet being deleted is skipped", in: func() simulate.Input {
			in := settled()
			in.DaemonSet.DeletionTimestamp = &metav1.Time{Time: dt.Epoch}
			return in
		}},
		{name: "the empty selector is skipped", in: func() simulate.Input {
			in := settled()
			in.DaemonSet.Spec.Selector = &metav1.LabelSelector{}
			return in
		}},
		{name: "a revision name collision is an error that bumps the count", in: func() simulate.Input {
			in := fresh()
			taken := dt.Revision(dt.DaemonSet("fluentd", dt.WithImage("other")), 1)
			taken.Name, taken.OwnerReferences, taken.Labels = "fluentd-"+dt.Hash(in.DaemonSet), nil, nil
			in.Options.Revisions = []*appsv1.ControllerRevision{taken}
			return in
		}, wantErr: someError},
		// Upstream's rolling step tests maxSurge == 0, so a negative
		// maxSurge that scales to nonzero takes the surge path and creates
		// beside old unavailable pods, though rollout.AllowsSurge is false.
		{name: "a negative maxSurge creates beside old unavailable pods", in: func() simulate.Input {
			in := rollingOut(dt.WithMaxSurge("-50%"), dt.WithMaxUnavailable("0"))
			for i, p := range in.Pods {
				in.Pods[i] = dt.Pod(in.DaemonSet, p.Name, p.Spec.NodeName, dt.WithHash("old"), dt.NotReadyPod())
			}
			return in
		}},
		// Invalid input found in the rolling step: it matches
		// ErrInvalidInput (before the one error contract it did not), and
		// comes with the part of the plan upstream carries out.
		{name: "an unparsable maxSurge fails the rolling step", in: func() simulate.Input { return rollingOut(dt.WithMaxSurge("abc%")) }, wantErr: invalidInput},
		{name: "a nil DaemonSet is invalid input", in: func() simulate.Input { return simulate.Input{} }, wantErr: invalidInput},
		{name: "a nil node is invalid input", in: func() simulate.Input {
			in := settled()
			in.Nodes = append(in.Nodes, nil)
			return in
		}, wantErr: invalidInput},
		{name: "two nodes of one name are invalid input", in: func() simulate.Input {
			in := settled()
			in.Nodes = append(in.Nodes, dt.Node("n1"))
			return in
		}, wantErr: invalidInput},
	}
}

// TestCheckPlanHolds runs CheckPlan on every table case: no invariant may
// be violated, and Compute's error must be of the expected kind.
func TestCheckPlanHolds(t *testing.T) {
	for i, tt := range checkCases() {
		t.Run(tt.name, func(t *testing.T) {
			rep := dt.CheckPlan(tt.in(), dt.CheckOptions{Seed: uint64(i)})
			if !tt.wantErr.matches(rep.ComputeErr) {
				t.Errorf("Compute() error = %v, want kind %d", rep.ComputeErr, tt.wantErr)
			}
			if err := rep.Err(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestCheckPlanInputUnchanged checks that CheckPlan leaves its input as it
// found it.
func TestCheckPlanInputUnchanged(t *testing.T) {
	for _, tt := range checkCases() {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in()
			before := in.DeepCopy()
			dt.CheckPlan(in, dt.CheckOptions{})
			if diff := cmp.Diff(before, in, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
				t.Errorf("CheckPlan() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

// TestCheckPlanPermutations checks the permutation knob: none when
// negative, and a seed that is used.
func TestCheckPlanPermutations(t *testing.T) {
	for _, n := range []int{-1, 0, 1, 10} {
		rep := dt.CheckPlan(rollingOut(), dt.CheckOptions{Seed: 7, Permutations: n})
		if err := rep.Err(); err != nil {
			t.Errorf("Permutations %d: %v", n, err)
		}
	}
}

func TestReportErr(t *testing.T) {
	if err := (dt.Report{}).Err(); err != nil {
		t.Errorf("Err() of an empty report = %v, want nil", err)
	}
	rep := dt.Report{Violations: []dt.Violation{{Invariant: dt.InvariantBurst, Detail: "3 creates exceed the burst of 2"}}}
	err := rep.Err()
	if !errors.Is(err, dt.ErrViolation) {
		t.Errorf("Err() = %v, does not wrap ErrViolation", err)
	}
	var v dt.Violation
	if !errors.As(err, &v) || v.Invariant != dt.InvariantBurst {
		t.Errorf("errors.As(Err(), Violation) = %v, want the BurstCap violation", v)
	}
	if got, want := v.Error(), "BurstCap: 3 creates exceed the burst of 2"; got != want {
		t.Errorf("Violation.Error() = %q, want %q", got, want)
	}
	if !rep.Has(dt.InvariantBurst) || rep.Has(dt.InvariantSorted) {
		t.Errorf("Has() disagrees with the violations %v", rep.Violations)
	}
}

func TestBudgetsOf(t *testing.T) {
	tests := []struct {
		name    string
		opts    []dt.DaemonSetOption
		desired int
		want    simulate.Budgets
		wantErr bool
	}{
		{name: "the builder's default: one unavailable", desired: 5, want: simulate.Budgets{Desired: 5, MaxUnavailable: 1}},
		{name: "no desired node: no fallback to 1", opts: []dt.DaemonSetOption{dt.WithMaxUnavailable("0")}, desired: 0, want: simulate.Budgets{}},
		{name: "both zero with one desired node fall back to maxUnavailable 1", opts: []dt.DaemonSetOption{dt.WithMaxUnavailable("0")}, desired: 1, want: simulate.Budgets{Desired: 1, MaxUnavailable: 1}},
		{name: "10% of 15 rounds up to 2", opts: []dt.DaemonSetOption{dt.WithMaxUnavailable("10%")}, desired: 15, want: simulate.Budgets{Desired: 15, MaxUnavailable: 2}},
		{name: "100% is every node", opts: []dt.DaemonSetOption{dt.WithMaxUnavailable("100%")}, desired: 7, want: simulate.Budgets{Desired: 7, MaxUnavailable: 7}},
		{name: "1% of 1 rounds up to 1", opts: []dt.DaemonSetOption{dt.WithMaxSurge("1%"), dt.WithMaxUnavailable("0")}, desired: 1, want: simulate.Budgets{Desired: 1, MaxSurge: 1}},
		{name: "surge and unavailability together", opts: []dt.DaemonSetOption{dt.WithMaxSurge("50%"), dt.WithMaxUnavailable("2")}, desired: 3, want: simulate.Budgets{Desired: 3, MaxSurge: 2, MaxUnavailable: 2}},
		{name: "OnDelete has no rollingUpdate: the fallback applies", opts: []dt.DaemonSetOption{dt.OnDelete()}, desired: 2, want: simulate.Budgets{Desired: 2, MaxUnavailable: 1}},
		{name: "an unparsable value is an error", opts: []dt.DaemonSetOption{dt.WithMaxSurge("abc%")}, desired: 4, want: simulate.Budgets{Desired: 4, MaxUnavailable: 1}, wantErr: true},
		// Were scaled from rollingUpdate whatever the strategy.
		{name: "OnDelete ignores a leftover rollingUpdate, as rollout does", opts: []dt.DaemonSetOption{dt.WithMaxSurge("2"), dt.WithMaxUnavailable("3"), func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
		}}, desired: 4, want: simulate.Budgets{Desired: 4, MaxUnavailable: 1}},
		// Was read as 0 without an error.
		{name: "a nil maxUnavailable in a rollingUpdate is an error, as rollout says", opts: []dt.DaemonSetOption{func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = nil
		}}, desired: 4, want: simulate.Budgets{Desired: 4, MaxUnavailable: 1}, wantErr: true},
		{name: "a nil rollingUpdate has no budgets but the fallback", opts: []dt.DaemonSetOption{func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = nil
		}}, desired: 4, want: simulate.Budgets{Desired: 4, MaxUnavailable: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := simulate.BudgetsOf(dt.DaemonSet("x", tt.opts...), tt.desired)
			if (got.Err != nil) != tt.wantErr {
				t.Errorf("BudgetsOf() error = %v, want error %v", got.Err, tt.wantErr)
			}
			got.Err = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("BudgetsOf() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// Panicked.
	if b := simulate.BudgetsOf(nil, 2); !errors.Is(b.Err, rollout.ErrNilDaemonSet) || b.MaxUnavailable != 1 || b.MaxSurge != 0 {
		t.Errorf("BudgetsOf(nil, 2) = %+v, want ErrNilDaemonSet and the fallback", b)
	}
}

// TestBudgetsOfAgreesWithRollout compares BudgetsOf with the rollout
// package's scaling over a ladder of values and desired counts.
func TestBudgetsOfAgreesWithRollout(t *testing.T) {
	values := []string{"0", "1", "3", "0%", "1%", "10%", "33%", "50%", "99%", "100%"}
	for _, mu := range values {
		for _, ms := range values {
			ds := dt.DaemonSet("x", dt.WithMaxUnavailable(mu), dt.WithMaxSurge(ms))
			for desired := range 12 {
				b := simulate.BudgetsOf(ds, desired)
				u, err1 := rollout.UnavailableCount(ds, desired)
				s, err2 := rollout.SurgeCount(ds, desired)
				if err1 != nil || err2 != nil {
					t.Fatalf("rollout: %v, %v", err1, err2)
				}
				if desired > 0 && u == 0 && s == 0 {
					u = 1
				}
				if b.MaxUnavailable != u || b.MaxSurge != s {
					t.Errorf("maxUnavailable %s, maxSurge %s, desired %d: BudgetsOf = %d, %d; rollout = %d, %d", mu, ms, desired, b.MaxUnavailable, b.MaxSurge, u, s)
				}
			}
		}
	}
}

// podsWithout returns pods without p, in a new slice.
func podsWithout(pods []*corev1.Pod, p *corev1.Pod) []*corev1.Pod {
	return slices.DeleteFunc(slices.Clone(pods), func(x *corev1.Pod) bool { return x == p })
}
