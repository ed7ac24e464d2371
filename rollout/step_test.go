package rollout_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

var stepNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

const newHash = "new"

// stepDS returns a RollingUpdate DaemonSet with the given budgets; a nil
// budget stays nil.
func stepDS(maxUnavailable, maxSurge *intstr.IntOrString) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "ns"},
		Spec: appsv1.DaemonSetSpec{
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: maxUnavailable, MaxSurge: maxSurge},
			},
		},
	}
}

func ip(i int) *intstr.IntOrString    { v := intstr.FromInt32(int32(i)); return &v }
func sp(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }

// pod kinds for fixtures.
type podKind int

const (
	oldAvail podKind = iota
	oldUnavail
	newAvail
	newUnavail
	oldDeleting
)

func stepPod(name, node string, k podKind) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: "old"}},
		Spec:       corev1.PodSpec{NodeName: node},
	}
	ready := corev1.ConditionTrue
	switch k {
	case newAvail, newUnavail:
		p.Labels[appsv1.ControllerRevisionHashLabelKey] = newHash
	case oldDeleting:
		p.DeletionTimestamp = &metav1.Time{Time: stepNow}
	}
	if k == oldUnavail || k == newUnavail {
		ready = corev1.ConditionFalse
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.Time{Time: stepNow.Add(-time.Hour)}}}
	return p
}

// node builds a rollout.Node with pods named after the node.
func node(name string, shouldRun bool, kinds ...podKind) rollout.Node {
	n := rollout.Node{Name: name, ShouldRun: shouldRun}
	for i, k := range kinds {
		n.Pods = append(n.Pods, stepPod(name+"-"+string(rune('a'+i)), name, k))
	}
	return n
}

func missing(n rollout.Node) rollout.Node { n.Missing = true; return n }

// withNilPod puts a nil entry before the node's pods.
func withNilPod(n rollout.Node) rollout.Node {
	n.Pods = append([]*corev1.Pod{nil}, n.Pods...)
	return n
}

// withGivenStates sets the node's States as given.
func withGivenStates(n rollout.Node, states ...rollout.PodState) rollout.Node {
	n.States = states
	return n
}

// stepSummary is the comparable shape of a Step.
type stepSummary struct {
	MaxSurge, MaxUnavailable, Desired int
	NumUnavailable, NumSurge          int
	NumAvailable, Candidates          int
	Creates                           []string // node/reason
	Deletes                           []string // pod/reason
}

func summarize(s rollout.Step) stepSummary {
	out := stepSummary{MaxSurge: s.MaxSurge, MaxUnavailable: s.MaxUnavailable, Desired: s.Desired,
		NumUnavailable: s.NumUnavailable, NumSurge: s.NumSurge, NumAvailable: s.NumAvailable, Candidates: s.Candidates}
	for _, c := range s.Creates {
		out.Creates = append(out.Creates, c.NodeName+"/"+string(c.Reason))
	}
	for _, d := range s.Deletes {
		out.Deletes = append(out.Deletes, d.Pod.Name+"/"+string(d.Reason))
	}
	return out
}

func TestRollingUpdate(t *testing.T) {
	tests := []struct {
		name  string
		ds    *appsv1.DaemonSet
		nodes []rollout.Node
		want  stepSummary
	}{
		{
			name:  "maxUnavailable 1 replaces the first old available pod by node name",
			ds:    stepDS(ip(1), ip(0)),
			nodes: []rollout.Node{node("n3", true, oldAvail), node("n1", true, oldAvail), node("n2", true, oldAvail)},
			want: stepSummary{MaxUnavailable: 1, Desired: 3, Candidates: 3,
				Deletes: []string{"n1-a/RollingUpdate"}},
		},
		{
			name:  "an unavailable new pod uses up the budget",
			ds:    stepDS(ip(1), nil),
			nodes: []rollout.Node{node("n1", true, newUnavail), node("n2", true, oldAvail)},
			want:  stepSummary{MaxUnavailable: 1, Desired: 2, NumUnavailable: 1, Candidates: 1},
		},
		{
			name:  "old unavailable pods are replaced at once, beyond the budget",
			ds:    stepDS(ip(1), nil),
			nodes: []rollout.Node{node("n1", true, oldUnavail), node("n2", true, oldUnavail), node("n3", true, oldAvail)},
			want: stepSummary{MaxUnavailable: 1, Desired: 3, NumUnavailable: 2, Candidates: 1,
				Deletes: []string{"n1-a/ReplaceUnavailable", "n2-a/ReplaceUnavailable"}},
		},
		{
			name:  "a node without pods and a node with old and new pods count as unavailable",
			ds:    stepDS(sp("50%"), nil),
			nodes: []rollout.Node{node("n1", true), node("n2", true, oldAvail, newAvail), node("n3", true, oldAvail), node("n4", true, oldAvail)},
			// 50% of 4 = 2, both used up by n1 and n2.
			want: stepSummary{MaxUnavailable: 2, Desired: 4, NumUnavailable: 2, Candidates: 2},
		},
		{
			name:  "several old pods on a node are left to the create/delete pass and count as unavailable",
			ds:    stepDS(ip(2), nil),
			nodes: []rollout.Node{node("n1", true, oldAvail, oldAvail), node("n2", true, oldAvail)},
			want:  stepSummary{MaxUnavailable: 2, Desired: 2, NumUnavailable: 1, Candidates: 1, Deletes: []string{"n2-a/RollingUpdate"}},
		},
		{
			name:  "pods being deleted are ignored",
			ds:    stepDS(ip(1), nil),
			nodes: []rollout.Node{node("n1", true, oldDeleting, newAvail)},
			want:  stepSummary{MaxUnavailable: 1, Desired: 1},
		},
		{
			name:  "nil pods are ignored",
			ds:    stepDS(ip(1), nil),
			nodes: []rollout.Node{withNilPod(node("n1", true, oldAvail)), node("n2", true, oldAvail)},
			want:  stepSummary{MaxUnavailable: 1, Desired: 2, Candidates: 2, Deletes: []string{"n1-a/RollingUpdate"}},
		},
		{
			name:  "both budgets zero with pods desired default to one unavailable",
			ds:    stepDS(ip(0), ip(0)),
			nodes: []rollout.Node{node("n1", true, oldAvail), node("n2", true, oldAvail)},
			want:  stepSummary{MaxUnavailable: 1, Desired: 2, Candidates: 2, Deletes: []string{"n1-a/RollingUpdate"}},
		},
		{
			name:  "percentages round up over the desired count",
			ds:    stepDS(sp("10%"), nil),
			nodes: []rollout.Node{node("n1", true, oldAvail), node("n2", true, oldAvail), node("n3", false, oldAvail)},
			// 10% of 2 desired rounds up to 1; the ineligible n3 still holds a candidate.
			want: stepSummary{MaxUnavailable: 1, Desired: 2, Candidates: 3, Deletes: []string{"n1-a/RollingUpdate"}},
		},
		{
			name:  "an old pod on a missing node is a candidate without surge",
			ds:    stepDS(ip(1), nil),
			nodes: []rollout.Node{missing(node("gone", false, oldAvail))},
			// A fixed maxUnavailable is not scaled, so it stays 1 with nothing desired.
			want: stepSummary{MaxUnavailable: 1, Desired: 0, Candidates: 1, Deletes: []string{"gone-a/RollingUpdate"}},
		},
		{
			name:  "surge creates beside old available pods up to maxSurge",
			ds:    stepDS(ip(0), ip(2)),
			nodes: []rollout.Node{node("n1", true, oldAvail), node("n2", true, oldAvail), node("n3", true, oldAvail)},
			want: stepSummary{MaxSurge: 2, Desired: 3, NumAvailable: 3, Candidates: 3,
				Creates: []string{"n1/Surge", "n2/Surge"}},
		},
		{
			name:  "surge creates beside an old unavailable pod at once",
			ds:    stepDS(ip(0), ip(1)),
			nodes: []rollout.Node{node("n1", true, oldAvail, newUnavail), node("n2", true, oldUnavail), node("n3", true, oldAvail)},
			want: stepSummary{MaxSurge: 1, Desired: 3, NumSurge: 1, NumAvailable: 2, Candidates: 1,
				Creates: []string{"n2/SurgeForUnavailable"}},
		},
		{
			name:  "surge deletes the old pod once the new one is available",
			ds:    stepDS(ip(0), ip(1)),
			nodes: []rollout.Node{node("n1", true, oldAvail, newAvail), node("n2", true, oldAvail)},
			want: stepSummary{MaxSurge: 1, Desired: 2, NumAvailable: 2, Candidates: 1,
				Creates: []string{"n2/Surge"}, Deletes: []string{"n1-a/SurgeReplaced"}},
		},
		{
			name: "surge removes ineligible old pods only while availability exceeds desired",
			ds:   stepDS(ip(0), ip(1)),
			nodes: []rollout.Node{
				node("n1", true, newAvail), node("n2", true, newAvail),
				node("x1", false, oldAvail), node("x2", false, oldAvail), node("x3", false, oldUnavail),
			},
			// available: n1, n2, x1, x2 = 4; desired 2; surplus 2; x3 goes at once.
			want: stepSummary{MaxSurge: 1, Desired: 2, NumAvailable: 4,
				Deletes: []string{"x1-a/IneligibleUnderSurge", "x2-a/IneligibleUnderSurge", "x3-a/IneligibleUnderSurge"}},
		},
		{
			name:  "surge keeps ineligible old pods while availability is at desired",
			ds:    stepDS(ip(0), ip(1)),
			nodes: []rollout.Node{node("n1", true, newUnavail), node("x1", false, oldAvail)},
			want:  stepSummary{MaxSurge: 1, Desired: 1, NumAvailable: 1},
		},
		{
			name:  "a negative surge still replaces unavailable old pods",
			ds:    stepDS(ip(0), ip(-1)),
			nodes: []rollout.Node{node("n1", true, oldUnavail), node("n2", true, oldAvail)},
			want: stepSummary{MaxSurge: -1, Desired: 2, NumAvailable: 1, Candidates: 1,
				Creates: []string{"n1/SurgeForUnavailable"}},
		},
		{
			name:  "OnDelete does nothing",
			ds:    &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}}},
			nodes: []rollout.Node{node("n1", true, oldAvail)},
			want:  stepSummary{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rollout.RollingUpdate(tt.ds, tt.nodes, newHash, stepNow)
			if err != nil {
				t.Fatalf("RollingUpdate() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, summarize(got)); diff != "" {
				t.Errorf("RollingUpdate() step mismatch (-want +got):\n%s", diff)
			}
			// Precomputed pod states give the same step.
			withStates := append([]rollout.Node(nil), tt.nodes...)
			for i := range withStates {
				for _, p := range withStates[i].Pods {
					withStates[i].States = append(withStates[i].States, rollout.StateOf(p, newHash, nil, tt.ds.Spec.MinReadySeconds, stepNow))
				}
			}
			again, err := rollout.RollingUpdate(tt.ds, withStates, newHash, stepNow)
			if err != nil {
				t.Fatalf("RollingUpdate(with States) error = %v", err)
			}
			if diff := cmp.Diff(summarize(got), summarize(again)); diff != "" {
				t.Errorf("RollingUpdate(with States) differs (-judged +given):\n%s", diff)
			}
			// The order of the nodes never matters.
			r := rand.New(rand.NewPCG(1, 2))
			for range 5 {
				shuffled := append([]rollout.Node(nil), tt.nodes...)
				r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				again, err := rollout.RollingUpdate(tt.ds, shuffled, newHash, stepNow)
				if err != nil {
					t.Fatalf("RollingUpdate(shuffled) error = %v", err)
				}
				if diff := cmp.Diff(summarize(got), summarize(again)); diff != "" {
					t.Errorf("RollingUpdate(shuffled) differs (-first +shuffled):\n%s", diff)
				}
			}
		})
	}
}

// TestRollingUpdateErrors pins the step's errors: each names the field or
// the pod, never the DaemonSet (the caller's), and is a type a caller can
// branch on. A nil DaemonSet: TestRollingUpdateNilDaemonSet.
func TestRollingUpdateErrors(t *testing.T) {
	budget := func(name string) *field.Path { return field.NewPath("spec", "updateStrategy", "rollingUpdate", name) }
	const scaleDetail = `must be an integer or a percentage such as "25%"`
	tests := []struct {
		name  string
		ds    *appsv1.DaemonSet
		nodes []rollout.Node
		want  error
	}{
		{name: "invalid maxUnavailable", ds: stepDS(sp("abc%"), nil), nodes: []rollout.Node{node("n1", true, oldAvail)},
			want: field.Invalid(budget("maxUnavailable"), "abc%", scaleDetail)},
		{name: "nil maxUnavailable", ds: stepDS(nil, ip(1)), nodes: []rollout.Node{node("n1", true, oldAvail)},
			want: field.Required(budget("maxUnavailable"), "required when rollingUpdate is set")},
		{name: "invalid maxSurge", ds: stepDS(ip(1), sp("5")), nodes: []rollout.Node{node("n1", true, oldAvail)},
			want: field.Invalid(budget("maxSurge"), "5", scaleDetail)},
		{name: "surge over an old pod on a missing node", ds: stepDS(ip(0), ip(1)),
			nodes: []rollout.Node{node("n1", true, oldAvail), missing(node("gone", false, oldAvail))},
			want:  &rollout.MissingNodeError{Pod: "gone-a", Node: "gone"}},
		{name: "fewer states than pods", ds: stepDS(ip(1), nil),
			nodes: []rollout.Node{withGivenStates(node("n1", true, oldAvail, newAvail), rollout.PodState{})},
			want:  field.Invalid(field.NewPath("nodes").Index(0).Child("states"), 1, `node "n1" has 2 pods: one state per pod, or none`)},
		{name: "more states than pods", ds: stepDS(ip(1), nil),
			nodes: []rollout.Node{node("n0", true), withGivenStates(node("n1", true), rollout.PodState{})},
			want:  field.Invalid(field.NewPath("nodes").Index(1).Child("states"), 1, `node "n1" has 0 pods: one state per pod, or none`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rollout.RollingUpdate(tt.ds, tt.nodes, newHash, stepNow)
			if err == nil {
				t.Fatalf("RollingUpdate() = %+v, want an error", got)
			}
			if diff := cmp.Diff(tt.want, err); diff != "" {
				t.Errorf("error (-want,+got):\n%s", diff)
			}
		})
	}
	t.Run("the missing-node error text", func(t *testing.T) {
		var err error = &rollout.MissingNodeError{Pod: "gone-a", Node: "gone"}
		if diff := cmp.Diff(`pod "gone-a" targets node "gone", which does not exist`, err.Error()); diff != "" {
			t.Errorf("Error() (-want,+got):\n%s", diff)
		}
	})
}

func TestRollingUpdateDoesNotModifyInput(t *testing.T) {
	ds := stepDS(ip(1), ip(1))
	nodes := []rollout.Node{node("n2", true, oldAvail, newAvail), node("n1", true, oldUnavail), node("x", false, oldAvail)}
	dsBefore := ds.DeepCopy()
	nodesBefore := make([]rollout.Node, len(nodes))
	for i, n := range nodes {
		nodesBefore[i] = n
		nodesBefore[i].Pods = nil
		for _, p := range n.Pods {
			nodesBefore[i].Pods = append(nodesBefore[i].Pods, p.DeepCopy())
		}
	}
	if _, err := rollout.RollingUpdate(ds, nodes, newHash, stepNow); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(dsBefore, ds); diff != "" {
		t.Errorf("DaemonSet modified (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(nodesBefore, nodes); diff != "" {
		t.Errorf("nodes modified (-before +after):\n%s", diff)
	}
}

func TestStateOf(t *testing.T) {
	gen := int64(3)
	tests := []struct {
		name string
		pod  *corev1.Pod
		gen  *int64
		min  int32
		want rollout.PodState
	}{
		{name: "nil pod", pod: nil, want: rollout.PodState{}},
		{name: "new and available", pod: stepPod("p", "n", newAvail), want: rollout.PodState{Updated: true, Ready: true, Available: true}},
		{name: "old and not ready", pod: stepPod("p", "n", oldUnavail), want: rollout.PodState{}},
		{name: "ready but not yet available", pod: stepPod("p", "n", oldAvail), min: 7200, want: rollout.PodState{Ready: true}},
		{
			name: "updated by template generation",
			pod: func() *corev1.Pod {
				p := stepPod("p", "n", oldAvail)
				p.Labels["pod-template-generation"] = "3"
				return p
			}(),
			gen:  &gen,
			want: rollout.PodState{Updated: true, Ready: true, Available: true},
		},
		{
			name: "being deleted",
			pod: func() *corev1.Pod {
				p := stepPod("p", "n", newAvail)
				p.DeletionTimestamp = &metav1.Time{Time: stepNow}
				return p
			}(),
			want: rollout.PodState{Updated: true, Ready: true, Available: true, Deleting: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, rollout.StateOf(tt.pod, newHash, tt.gen, tt.min, stepNow)); diff != "" {
				t.Errorf("StateOf() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
