package rollout_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// withField returns data, a revision's {"spec":{"template":{...}}}, with
// value set at path below spec.template: how a newer kube-controller-
// manager records a template that sets a field this build does not know.
func withField(t testing.TB, data []byte, value any, path ...string) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	m := doc["spec"].(map[string]any)["template"].(map[string]any)
	for _, key := range path[:len(path)-1] {
		switch next := m[key].(type) {
		case map[string]any:
			m = next
		case []any:
			m = next[0].(map[string]any) // the first element
		default:
			t.Fatalf("no object at %q", key)
		}
	}
	m[path[len(path)-1]] = value
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConstructHistoryTemplateSkew(t *testing.T) {
	ds := histDS("registry.example/agent:v2")
	v1 := histDS("registry.example/agent:v1")
	cur, old1 := histData(t, ds), histData(t, v1)
	newHash := rollout.ComputeHash(&ds.Spec.Template, nil)
	// What a newer kube-controller-manager records for ds's template when
	// it also sets fields this build's types do not know.
	curPlus := withField(t, cur, []any{map[string]any{"name": "drain"}}, "spec", "futureResponders")
	curPlusTwo := withField(t, curPlus, true, "spec", "containers", "futureProbe")
	old1Plus := withField(t, old1, "x", "spec", "futureField")
	// A known field set to its zero value is not unknown, only not
	// byte-equal.
	curExplicit := withField(t, cur, false, "spec", "hostNetwork")

	tests := []struct {
		name    string
		claimed []*appsv1.ControllerRevision
		want    rollout.History
		wantErr *rollout.TemplateSkewError
	}{
		{
			name:    "the newest revision is the template plus a field this build does not know",
			claimed: []*appsv1.ControllerRevision{histRev("agent-v1", 1, old1, "v1"), histRev("agent-v2", 2, curPlus, "v2new")},
			wantErr: &rollout.TemplateSkewError{Revision: "agent-v2", Hash: "v2new", Fields: []string{"spec.template.spec.futureResponders"}},
		},
		{
			name:    "every unknown field is named, sorted, with its path",
			claimed: []*appsv1.ControllerRevision{histRev("agent-v2", 2, curPlusTwo, "v2new")},
			wantErr: &rollout.TemplateSkewError{Revision: "agent-v2", Hash: "v2new", Fields: []string{
				"spec.template.spec.containers[0].futureProbe", "spec.template.spec.futureResponders",
			}},
		},
		{
			name: "an older revision this build matches does not hide a newer one with unknown fields",
			// The template changed in an unknown field only: this build
			// decodes the template of the revision before and would raise
			// it above kube-controller-manager's.
			claimed: []*appsv1.ControllerRevision{histRev("agent-v2", 1, cur, "v2"), histRev("agent-v2plus", 2, curPlus, "v2new")},
			wantErr: &rollout.TemplateSkewError{Revision: "agent-v2plus", Hash: "v2new", Fields: []string{"spec.template.spec.futureResponders"}},
		},
		{
			name: "the newest revision holds unknown fields and the template changed since",
			// kube-controller-manager has not recorded the new template
			// yet; the cluster speaks fields this build does not know, so
			// the template it decoded may lack some too.
			claimed: []*appsv1.ControllerRevision{histRev("agent-v1", 1, old1Plus, "v1")},
			wantErr: &rollout.TemplateSkewError{Revision: "agent-v1", Hash: "v1", Fields: []string{"spec.template.spec.futureField"}},
		},
		{
			name:    "no hash label: the skew says so with an empty hash",
			claimed: []*appsv1.ControllerRevision{withoutHashLabel(histRev("agent-v2", 2, curPlus, ""))},
			wantErr: &rollout.TemplateSkewError{Revision: "agent-v2", Fields: []string{"spec.template.spec.futureResponders"}},
		},
		{
			name:    "an unknown field in an old revision, the newest current: no skew, nothing decoded",
			claimed: []*appsv1.ControllerRevision{histRev("agent-v1", 1, old1Plus, "v1"), histRev("agent-v2", 2, cur, "v2")},
			want: rollout.History{
				Hash: "v2", Current: histRev("agent-v2", 2, cur, "v2"),
				Old: []*appsv1.ControllerRevision{histRev("agent-v1", 1, old1Plus, "v1")},
			},
		},
		{
			name:    "the template changed and the newest revision has known fields only: a new revision, as upstream",
			claimed: []*appsv1.ControllerRevision{histRev("agent-v1", 1, old1, "v1")},
			want: rollout.History{
				Hash: newHash, Current: expectedNewRevision(t, ds, 2),
				Old:  []*appsv1.ControllerRevision{histRev("agent-v1", 1, old1, "v1")},
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, ds, 2)},
			},
		},
		{
			name:    "a known field written explicitly is no skew: not current, as upstream",
			claimed: []*appsv1.ControllerRevision{histRev("agent-x", 1, curExplicit, "x")},
			want: rollout.History{
				Hash: newHash, Current: expectedNewRevision(t, ds, 2),
				Old:  []*appsv1.ControllerRevision{histRev("agent-x", 1, curExplicit, "x")},
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, ds, 2)},
			},
		},
		{
			name: "data that is not a template patch is no evidence",
			claimed: []*appsv1.ControllerRevision{
				histRev("agent-a", 1, []byte(`{"future":{"template":{}}}`), "a"),
				histRev("agent-b", 2, []byte(`{"spec":{"template":"not an object"}}`), "b"),
				histRev("agent-c", 3, []byte(`not json`), "c"),
				histRev("agent-d", 4, []byte(`{"spec":{"template":{"spec":{"containers":"wrong type","futureField":1}}}}`), "d"),
			},
			want: rollout.History{
				Hash: newHash, Current: expectedNewRevision(t, ds, 5),
				Old: []*appsv1.ControllerRevision{
					histRev("agent-a", 1, []byte(`{"future":{"template":{}}}`), "a"),
					histRev("agent-b", 2, []byte(`{"spec":{"template":"not an object"}}`), "b"),
					histRev("agent-c", 3, []byte(`not json`), "c"),
					histRev("agent-d", 4, []byte(`{"spec":{"template":{"spec":{"containers":"wrong type","futureField":1}}}}`), "d"),
				},
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, ds, 5)},
			},
		},
		{
			name: "ties on the revision number go to the lowest name, as the kept current revision's",
			claimed: []*appsv1.ControllerRevision{
				histRev("agent-b", 2, curPlus, "b"), histRev("agent-a", 2, old1, "a"),
			},
			want: rollout.History{
				Hash: newHash, Current: expectedNewRevision(t, ds, 3),
				Old:  []*appsv1.ControllerRevision{histRev("agent-a", 2, old1, "a"), histRev("agent-b", 2, curPlus, "b")},
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, ds, 3)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := deepCopyRevisions(tt.claimed)
			got, err := rollout.ConstructHistory(ds, tt.claimed, tt.claimed, nil)
			var skew *rollout.TemplateSkewError
			errors.As(err, &skew)
			if diff := cmp.Diff(tt.wantErr, skew); diff != "" {
				t.Fatalf("ConstructHistory() skew mismatch (-want +got):\n%s\nerror: %v", diff, err)
			}
			if tt.wantErr == nil && err != nil {
				t.Fatalf("ConstructHistory() error = %v, want none", err)
			}
			if tt.wantErr != nil && !errors.Is(err, rollout.ErrTemplateSkew) {
				t.Errorf("errors.Is(%v, ErrTemplateSkew) = false", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ConstructHistory() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.claimed); diff != "" {
				t.Errorf("ConstructHistory() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestTemplateSkewErrorMessage(t *testing.T) {
	err := error(&rollout.TemplateSkewError{Revision: "agent-7d9f", Hash: "7d9f", Fields: []string{"spec.template.spec.a", "spec.template.spec.b"}})
	want := `this build does not know fields of this DaemonSet's template (spec.template.spec.a, spec.template.spec.b in controllerrevision "agent-7d9f"); upgrade daemonplan`
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if errors.Is(err, rollout.ErrNilDaemonSet) {
		t.Errorf("errors.Is(skew, ErrNilDaemonSet) = true")
	}
}
