package scenario_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/backoff"
	"github.com/daemonplan/daemonplan/daemon/internal/scenario"
)

func ptr[T any](v T) *T { return &v }

// status returns a status of desired scheduled pods, ready of them ready
// and available, observed at generation gen.
func status(desired, ready int32, gen int64) *appsv1.DaemonSetStatus {
	return &appsv1.DaemonSetStatus{
		DesiredNumberScheduled: desired, CurrentNumberScheduled: desired,
		NumberReady: ready, UpdatedNumberScheduled: desired, NumberAvailable: ready,
		NumberUnavailable: desired - ready, ObservedGeneration: gen,
	}
}

// base returns a small scenario: two nodes, one pod "ds-a" on node-a to be
// deleted, one create on node-b, hash "h1", and a status write.
func base() *scenario.Scenario {
	return &scenario.Scenario{
		Name: "base",
		DaemonSet: &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "ns", Generation: 2},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ds"}},
			},
			Status: *status(2, 1, 1),
		},
		Expected: scenario.Expected{
			Hash:         "h1",
			Creates:      []string{"node-b"},
			CreatesCount: &scenario.Count{Min: 1, Max: 1},
			Deletes:      []string{"ds-a"},
			DeletesCount: &scenario.Count{Min: 1, Max: 1},
			Status:       status(2, 1, 2),
			Trials:       1,
		},
	}
}

// pod returns a pod named name on node.
func pod(name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{NodeName: node}}
}

// createdPod is the pod the base scenario records for node-b when a test
// adds it to CreatedPods.
func createdPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: "ds-", Namespace: "ns",
			Labels: map[string]string{"app": "ds", "controller-revision-hash": "h1"},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}},
	}
}

// recorded renders p as a scenario file records it: without the empty
// objects encoding/json adds (resources, status).
func recorded(t *testing.T, p *corev1.Pod) json.RawMessage {
	t.Helper()
	m := map[string]any{
		"metadata": map[string]any{"generateName": p.GenerateName, "namespace": p.Namespace, "labels": p.Labels},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "img"}}},
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// basePlan is the plan that conforms to base().
func basePlan() daemon.Plan {
	return daemon.Plan{
		Hash:          "h1",
		Creates:       []daemon.Create{{NodeName: "node-b", Pod: createdPod()}},
		Deletes:       []daemon.Delete{{Pod: pod("ds-a", "node-a"), NodeName: "node-a"}},
		Status:        *status(2, 1, 2),
		StatusChanged: true,
	}
}

func TestJudge(t *testing.T) {
	tests := []struct {
		name     string
		scenario func(s *scenario.Scenario) // changes base(); nil keeps it
		plan     func(p *daemon.Plan)       // changes basePlan(); nil keeps it
		err      error
		// want are substrings, one per expected mismatch line, in order.
		want []string
	}{
		{name: "the conforming plan passes"},
		// Lists.
		{
			name: "a recorded create that the plan lacks is missing",
			plan: func(p *daemon.Plan) { p.Creates = nil },
			want: []string{`creates: missing "node-b"`, "creates: plan has 0, upstream had between 1 and 1"},
		},
		{
			name: "a delete upstream never made is unexpected",
			scenario: func(s *scenario.Scenario) {
				s.Expected.DeletesCount = nil
			},
			plan: func(p *daemon.Plan) {
				p.Deletes = append(p.Deletes, daemon.Delete{Pod: pod("ds-z", "node-z")})
			},
			want: []string{`deletes: unexpected "ds-z"`},
		},
		{
			name: "a May entry may be present",
			scenario: func(s *scenario.Scenario) {
				s.Expected.DeletesMay = []string{"ds-z"}
				s.Expected.DeletesCount = &scenario.Count{Min: 1, Max: 2}
			},
			plan: func(p *daemon.Plan) {
				p.Deletes = append(p.Deletes, daemon.Delete{Pod: pod("ds-z", "node-z")})
			},
		},
		{
			name: "a May entry may be absent",
			scenario: func(s *scenario.Scenario) {
				s.Expected.DeletesMay = []string{"ds-z"}
				s.Expected.DeletesCount = &scenario.Count{Min: 1, Max: 2}
			},
		},
		{
			name: "the count bounds apply even when every name is allowed",
			scenario: func(s *scenario.Scenario) {
				s.Expected.DeletesMay = []string{"ds-y", "ds-z"}
				s.Expected.DeletesCount = &scenario.Count{Min: 1, Max: 2}
			},
			plan: func(p *daemon.Plan) {
				p.Deletes = append(p.Deletes, daemon.Delete{Pod: pod("ds-y", "n")}, daemon.Delete{Pod: pod("ds-z", "n")})
			},
			want: []string{"deletes: plan has 3, upstream had between 1 and 2"},
		},
		{
			name: "a count minimum above the certain entries is enforced",
			scenario: func(s *scenario.Scenario) {
				s.Expected.DeletesMay = []string{"ds-z"}
				s.Expected.DeletesCount = &scenario.Count{Min: 2, Max: 2}
			},
			want: []string{"deletes: plan has 1, upstream had between 2 and 2"},
		},
		{
			name: "lists are multisets: a node listed twice needs two creates",
			scenario: func(s *scenario.Scenario) {
				s.Expected.Creates = []string{"node-b", "node-b"}
				s.Expected.CreatesCount = nil
			},
			want: []string{`creates: missing "node-b": upstream always had it 2 times, plan has it once`},
		},
		{
			name: "lists are multisets: a second create on a node listed once is unexpected",
			plan: func(p *daemon.Plan) { p.Creates = append(p.Creates, p.Creates[0]) },
			want: []string{`creates: unexpected "node-b": upstream had it at most once, plan has it 2 times`, "creates: plan has 2"},
		},
		{
			name: "lists are multisets: a May copy allows a second create on the node",
			scenario: func(s *scenario.Scenario) {
				s.Expected.CreatesMay = []string{"node-b"}
				s.Expected.CreatesCount = &scenario.Count{Min: 1, Max: 2}
			},
			plan: func(p *daemon.Plan) { p.Creates = append(p.Creates, p.Creates[0]) },
		},
		{
			name: "a nil pod in a list never matches",
			plan: func(p *daemon.Plan) { p.Deletes[0].Pod = nil },
			want: []string{`deletes: unexpected "<nil>"`, `deletes: missing "ds-a"`},
		},
		{
			name: "history lists are read from the plan's HistoryPlan",
			scenario: func(s *scenario.Scenario) {
				s.Expected.RevisionsCreated = []string{"ds-h1"}
				s.Expected.RevisionsDeleted = []string{"ds-h0"}
				s.Expected.Relabels = []string{"ds-a"}
			},
			plan: func(p *daemon.Plan) {
				p.History.Create = &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "ds-h1"}}
				p.History.Update = []*appsv1.ControllerRevision{{ObjectMeta: metav1.ObjectMeta{Name: "ds-h2"}}}
				p.History.Relabel = []*corev1.Pod{pod("ds-a", "node-a")}
			},
			want: []string{`revisionsDeleted: missing "ds-h0"`, `revisionsUpdated: unexpected "ds-h2"`},
		},
		{
			name: "adopts and releases are read from Adopt and Release",
			scenario: func(s *scenario.Scenario) {
				s.Expected.Adopts = []string{"orphan"}
			},
			plan: func(p *daemon.Plan) { p.Release = []*corev1.Pod{pod("orphan", "")} },
			want: []string{`adopts: missing "orphan"`, `releases: unexpected "orphan"`},
		},
		// Hash.
		{
			name: "a different hash is reported",
			plan: func(p *daemon.Plan) { p.Hash = "h2" },
			want: []string{`hash: plan has "h2", upstream had "h1"`},
		},
		{
			name:     "a hash from hashMay passes",
			scenario: func(s *scenario.Scenario) { s.Expected.HashMay = []string{"h2"} },
			plan:     func(p *daemon.Plan) { p.Hash = "h2" },
		},
		{
			name:     "an empty hash passes only when recorded",
			scenario: func(s *scenario.Scenario) { s.Expected.HashMay = []string{"h2"} },
			plan:     func(p *daemon.Plan) { p.Hash = "" },
			want:     []string{`hash: plan has "", upstream had one of "h1", "h2"`},
		},
		// Status.
		{
			name: "a status counter that differs is reported with a diff",
			plan: func(p *daemon.Plan) { p.Status.NumberMisscheduled = 1 },
			want: []string{"status: mismatch (-want +got):\n"},
		},
		{
			name: "observedGeneration is judged",
			plan: func(p *daemon.Plan) { p.Status.ObservedGeneration = 1 },
			want: []string{"ObservedGeneration"},
		},
		{
			name: "a collisionCount the record lacks is reported",
			plan: func(p *daemon.Plan) { p.Status.CollisionCount = ptr[int32](1) },
			want: []string{"CollisionCount"},
		},
		{
			name:     "a recorded collisionCount must be carried",
			scenario: func(s *scenario.Scenario) { s.Expected.Status.CollisionCount = ptr[int32](2) },
			want:     []string{"CollisionCount"},
		},
		{
			name: "fields outside the judged ones are ignored",
			plan: func(p *daemon.Plan) {
				p.Status.Conditions = []appsv1.DaemonSetCondition{{Type: "x"}}
			},
		},
		{
			name: "a recorded write the plan does not make is reported",
			plan: func(p *daemon.Plan) { p.StatusChanged = false },
			want: []string{"status: upstream wrote a status, plan writes none"},
		},
		{
			name:     "a write upstream did not make is reported",
			scenario: func(s *scenario.Scenario) { s.Expected.Status = nil },
			want:     []string{"status: upstream wrote no status, plan writes one"},
		},
		{
			name:     "no write passes when the counters equal the stored ones",
			scenario: func(s *scenario.Scenario) { s.Expected.Status = nil },
			plan: func(p *daemon.Plan) {
				p.StatusChanged = false
				p.Status = *status(2, 1, 2)
			},
		},
		{
			name:     "no write with counters other than the stored ones is reported",
			scenario: func(s *scenario.Scenario) { s.Expected.Status = nil },
			plan:     func(p *daemon.Plan) { p.StatusChanged = false; p.Status = *status(3, 1, 2) },
			want:     []string{"status: upstream wrote none because its counters equalled the stored ones"},
		},
		{
			name: "no write by a DaemonSet being deleted does not judge counters",
			scenario: func(s *scenario.Scenario) {
				s.Expected.Status = nil
				s.DaemonSet.DeletionTimestamp = &metav1.Time{}
			},
			plan: func(p *daemon.Plan) { p.StatusChanged = false; p.Status = appsv1.DaemonSetStatus{} },
		},
		{
			name: "no write by a DaemonSet selecting everything does not judge counters",
			scenario: func(s *scenario.Scenario) {
				s.Expected.Status = nil
				s.DaemonSet.Spec.Selector = &metav1.LabelSelector{}
			},
			plan: func(p *daemon.Plan) { p.StatusChanged = false; p.Status = appsv1.DaemonSetStatus{} },
		},
		{
			name: "a status from statusMay passes",
			scenario: func(s *scenario.Scenario) {
				s.Expected.Status = nil
				s.Expected.StatusMay = []*appsv1.DaemonSetStatus{status(2, 2, 2)}
			},
			plan: func(p *daemon.Plan) { p.Status = *status(2, 2, 2) },
		},
		{
			name: "no write passes when statusMay allows it",
			scenario: func(s *scenario.Scenario) {
				s.Expected.StatusMay = []*appsv1.DaemonSetStatus{nil}
			},
			plan: func(p *daemon.Plan) { p.StatusChanged = false; p.Status = *status(2, 1, 2) },
		},
		// Errors.
		{
			name:     "an error upstream returned must be returned",
			scenario: func(s *scenario.Scenario) { s.Expected.Error = ptr("boom") },
			want:     []string{`error: upstream returned "boom", plan returned no error`},
		},
		{
			name:     "with both in error nothing else is judged",
			scenario: func(s *scenario.Scenario) { s.Expected.Error = ptr("boom") },
			plan:     func(p *daemon.Plan) { *p = daemon.Plan{} },
			err:      errors.New("another text"),
		},
		{
			name: "an error upstream did not return is reported alone",
			plan: func(p *daemon.Plan) { p.Hash = "other" },
			err:  errors.New("bad"),
			want: []string{`error: upstream returned no error, plan returned "bad"`},
		},
		{
			name: "errorMay allows either outcome: an error",
			scenario: func(s *scenario.Scenario) {
				s.Expected.ErrorMay = []*string{ptr("sometimes")}
			},
			err: errors.New("x"),
		},
		{
			name: "errorMay allows either outcome: no error",
			scenario: func(s *scenario.Scenario) {
				s.Expected.Error = ptr("sometimes")
				s.Expected.ErrorMay = []*string{nil}
			},
		},
		{
			name: "a collision needs the bumped collision count in the plan",
			scenario: func(s *scenario.Scenario) {
				s.Expected.Error = ptr(`controllerrevisions.apps "ds-h1" already exists`)
				s.Expected.Status.CollisionCount = ptr[int32](1)
			},
			err:  errors.New("collision"),
			want: []string{"collision: upstream bumped status.collisionCount to 1, plan.History.CollisionCount is nil"},
		},
		{
			name: "a collision with the right count passes",
			scenario: func(s *scenario.Scenario) {
				s.Expected.Error = ptr(`controllerrevisions.apps "ds-h1" already exists`)
				s.Expected.Status.CollisionCount = ptr[int32](1)
			},
			plan: func(p *daemon.Plan) { p.History.CollisionCount = ptr[int32](1) },
			err:  errors.New("collision"),
		},
		{
			name: "a collision with a wrong count is reported",
			scenario: func(s *scenario.Scenario) {
				s.Expected.Error = ptr(`controllerrevisions.apps "ds-h1" already exists`)
				s.Expected.Status.CollisionCount = ptr[int32](1)
			},
			plan: func(p *daemon.Plan) { p.History.CollisionCount = ptr[int32](2) },
			err:  errors.New("collision"),
			want: []string{"collision: plan.History.CollisionCount is 2, upstream bumped status.collisionCount to 1"},
		},
		{
			name: "a collision recorded without a count is reported as bad data",
			scenario: func(s *scenario.Scenario) {
				s.Expected.Error = ptr(`controllerrevisions.apps "ds-h1" already exists`)
			},
			err:  errors.New("collision"),
			want: []string{"collision: the scenario records a name collision but no status.collisionCount"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			if tt.scenario != nil {
				tt.scenario(s)
			}
			p := basePlan()
			if tt.plan != nil {
				tt.plan(&p)
			}
			checkLines(t, scenario.Judge(s, p, tt.err), tt.want)
		})
	}
}

// checkLines checks that got has one line per want, each containing it.
func checkLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("Judge() = %d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("Judge()[%d] = %q, want it to contain %q", i, got[i], want[i])
		}
	}
}

func TestJudgeCreatedPods(t *testing.T) {
	tests := []struct {
		name string
		plan func(p *daemon.Plan)
		// record changes the recorded pods; nil records createdPod() for node-b.
		record func(t *testing.T, s *scenario.Scenario)
		want   []string
	}{
		{name: "the same pod passes, empty objects aside"},
		{
			name: "a label that differs is reported with a diff",
			plan: func(p *daemon.Plan) { p.Creates[0].Pod.Labels["controller-revision-hash"] = "h2" },
			want: []string{`createdPods["node-b"]: pod mismatch (-want +got):`},
		},
		{
			name: "a field the record lacks is reported",
			plan: func(p *daemon.Plan) { p.Creates[0].Pod.Spec.HostNetwork = true },
			want: []string{`"hostNetwork": bool(true)`},
		},
		{
			name: "a node without a create is reported",
			record: func(t *testing.T, s *scenario.Scenario) {
				s.Expected.CreatedPods["node-c"] = recorded(t, createdPod())
			},
			want: []string{`createdPods["node-c"]: plan creates no pod on the node`},
		},
		{
			name: "a nil pod never matches",
			plan: func(p *daemon.Plan) { p.Creates[0].Pod = nil },
			want: []string{`createdPods["node-b"]: pod mismatch`},
		},
		{
			name: "when the node is listed twice, one matching pod is enough",
			record: func(t *testing.T, s *scenario.Scenario) {
				s.Expected.Creates = []string{"node-b", "node-b"}
				s.Expected.CreatesCount = nil
			},
			plan: func(p *daemon.Plan) {
				other := createdPod()
				other.Labels["x"] = "y"
				p.Creates = []daemon.Create{{NodeName: "node-b", Pod: other}, p.Creates[0]}
			},
		},
		{
			name: "a recorded pod that is not an object is reported",
			record: func(t *testing.T, s *scenario.Scenario) {
				s.Expected.CreatedPods["node-b"] = json.RawMessage(`[1]`)
			},
			want: []string{`createdPods["node-b"]: recorded pod: not a JSON object`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			s.Expected.CreatedPods = map[string]json.RawMessage{"node-b": recorded(t, createdPod())}
			if tt.record != nil {
				tt.record(t, s)
			}
			p := basePlan()
			if tt.plan != nil {
				tt.plan(&p)
			}
			checkLines(t, scenario.Judge(s, p, nil), tt.want)
		})
	}
}

func TestJudgeNilScenario(t *testing.T) {
	checkLines(t, scenario.Judge(nil, daemon.Plan{}, nil), []string{"scenario is nil"})
}

func TestJudgeDoesNotModifyInput(t *testing.T) {
	s := base()
	s.Expected.CreatedPods = map[string]json.RawMessage{"node-b": recorded(t, createdPod())}
	s.Expected.DeletesMay = []string{"x", "a"}
	p := basePlan()
	p.Creates[0].Pod.Labels["controller-revision-hash"] = "other"
	wantS, wantP := base(), basePlan()
	wantS.Expected.CreatedPods = map[string]json.RawMessage{"node-b": recorded(t, createdPod())}
	wantS.Expected.DeletesMay = []string{"x", "a"}
	wantP.Creates[0].Pod.Labels["controller-revision-hash"] = "other"

	if got := scenario.Judge(s, p, nil); len(got) == 0 {
		t.Fatal("Judge() found no mismatch; the test wants one to exercise the diff paths")
	}
	if diff := cmp.Diff(wantS, s); diff != "" {
		t.Errorf("Judge() modified the scenario (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(wantP, p, cmp.AllowUnexported(backoff.State{})); diff != "" {
		t.Errorf("Judge() modified the plan (-before +after):\n%s", diff)
	}
}
