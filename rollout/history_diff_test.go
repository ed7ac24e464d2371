package rollout_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

// withData returns a copy of rev storing data.
func withData(rev *appsv1.ControllerRevision, data string) *appsv1.ControllerRevision {
	out := rev.DeepCopy()
	out.Data.Raw = []byte(data)
	return out
}

// legacyData is the revision data of exampleDS("registry.example/agent:v2")
// as controllers built with older libraries wrote it.
const legacyData = `{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"agent"}},"spec":{"containers":[{"image":"registry.example/agent:v2","name":"agent","resources":{}}]}}}}`

func TestDiffRevision(t *testing.T) {
	v2 := exampleDS("registry.example/agent:v2")
	current := exampleRevision(v2, "agent-v2", "v2", 2)
	twoContainers := exampleDS("registry.example/agent:v2")
	twoContainers.Spec.Template.Spec.Containers = append(twoContainers.Spec.Template.Spec.Containers, corev1.Container{Name: "sidecar", Image: "s"})
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		rev  *appsv1.ControllerRevision
		want rollout.RevisionDiff
	}{
		{name: "the current revision matches", ds: v2, rev: current, want: rollout.RevisionDiff{}},
		{
			name: "another image", ds: v2, rev: exampleRevision(exampleDS("registry.example/agent:v1"), "agent-v1", "v1", 1),
			want: rollout.RevisionDiff{Kind: rollout.DiffValue, Path: "spec.template.spec.containers[0].image",
				Revision: `"registry.example/agent:v1"`, DaemonSet: `"registry.example/agent:v2"`},
		},
		{
			name: "the upgrade hazard: creationTimestamp null written by an older controller", ds: v2, rev: withData(current, legacyData),
			want: rollout.RevisionDiff{Kind: rollout.DiffOnlyInRevision, Path: "spec.template.metadata.creationTimestamp", Revision: "null"},
		},
		{
			name: "a container the revision lacks", ds: twoContainers, rev: current,
			want: rollout.RevisionDiff{Kind: rollout.DiffOnlyInDaemonSet, Path: "spec.template.spec.containers[1]",
				DaemonSet: `{"image":"s","name":"sidecar","resources":{}}`},
		},
		{
			name: "a key that is not an identifier is quoted", ds: v2,
			rev:  withData(current, strings.Replace(string(current.Data.Raw), `"$patch":"replace",`, "", 1)),
			want: rollout.RevisionDiff{Kind: rollout.DiffOnlyInDaemonSet, Path: `spec.template["$patch"]`, DaemonSet: `"replace"`},
		},
		{
			name: "a number where the patch has a string", ds: v2,
			rev:  withData(current, strings.Replace(string(current.Data.Raw), `"registry.example/agent:v2"`, "2", 1)),
			want: rollout.RevisionDiff{Kind: rollout.DiffValue, Path: "spec.template.spec.containers[0].image", Revision: "2", DaemonSet: `"registry.example/agent:v2"`},
		},
		{
			name: "an object where the patch has an array", ds: v2,
			rev: withData(current, `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"agent"}},"spec":{"containers":{}}}}}`),
			want: rollout.RevisionDiff{Kind: rollout.DiffValue, Path: "spec.template.spec.containers", Revision: "{}",
				DaemonSet: `[{"image":"registry.example/agent:v2","name":"agent","resources":{}}]`},
		},
		{
			name: "another JSON type than an object", ds: v2, rev: withData(current, "[1]"),
			want: rollout.RevisionDiff{Kind: rollout.DiffValue, Path: ".", Revision: "[1]", DaemonSet: string(current.Data.Raw)},
		},
		{
			name: "the same value pretty-printed", ds: v2, rev: withData(current, " "+string(current.Data.Raw)+"\n"),
			want: rollout.RevisionDiff{Kind: rollout.DiffEncoding},
		},
		{
			name: "data that is not JSON", ds: v2, rev: withData(current, `{"spec":`),
			want: rollout.RevisionDiff{Kind: rollout.DiffNotJSON, Revision: `{"spec":`},
		},
		{
			name: "two JSON values", ds: v2, rev: withData(current, `{} {}`),
			want: rollout.RevisionDiff{Kind: rollout.DiffNotJSON, Revision: `{} {}`},
		},
		{
			name: "empty data", ds: v2, rev: withData(current, ""),
			want: rollout.RevisionDiff{Kind: rollout.DiffNotJSON},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.rev.DeepCopy()
			got, err := rollout.DiffRevision(tt.ds, tt.rev)
			if err != nil {
				t.Fatalf("DiffRevision() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DiffRevision() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.rev); diff != "" {
				t.Errorf("DiffRevision() modified the revision (-before +after):\n%s", diff)
			}
		})
	}
}

func TestDiffRevisionErrors(t *testing.T) {
	rev := exampleRevision(exampleDS("v1"), "agent-v1", "v1", 1)
	if _, err := rollout.DiffRevision(nil, rev); !errors.Is(err, rollout.ErrNilDaemonSet) {
		t.Errorf("DiffRevision(nil, rev) error = %v, want ErrNilDaemonSet", err)
	}
	_, err := rollout.DiffRevision(exampleDS("v1"), nil)
	want := &field.Error{Type: field.ErrorTypeRequired, Field: "rev", BadValue: "", Detail: "a ControllerRevision to compare"}
	fe, ok := err.(*field.Error)
	if !ok {
		t.Fatalf("DiffRevision(ds, nil) error = %v, want a *field.Error", err)
	}
	if diff := cmp.Diff(want, fe); diff != "" {
		t.Errorf("DiffRevision(ds, nil) error (-want,+got):\n%s", diff)
	}
}

func TestRevisionDiffString(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct {
		name string
		d    rollout.RevisionDiff
		want string
	}{
		{"none", rollout.RevisionDiff{}, "none: the revision matches"},
		{"encoding", rollout.RevisionDiff{Kind: rollout.DiffEncoding}, "the revision's data holds the same value encoded differently"},
		{"not JSON", rollout.RevisionDiff{Kind: rollout.DiffNotJSON, Revision: "x"}, "the revision's data is not valid JSON"},
		{"hazard", rollout.RevisionDiff{Kind: rollout.DiffOnlyInRevision, Path: "spec.template.metadata.creationTimestamp", Revision: "null"},
			"spec.template.metadata.creationTimestamp: the revision has null, the DaemonSet's patch has nothing"},
		{"long values are shortened", rollout.RevisionDiff{Kind: rollout.DiffValue, Path: "a", Revision: long, DaemonSet: "1"},
			"a: the revision has " + long[:64] + "…, the DaemonSet's patch has 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCollisionErrorNamesTheDifference checks the upgrade hazard end to
// end: a revision with the current template's name and the legacy
// encoding collides, and the error names the differing path and carries
// the diff.
func TestCollisionErrorNamesTheDifference(t *testing.T) {
	ds := exampleDS("registry.example/agent:v2")
	name := "agent-" + rollout.ComputeHash(&ds.Spec.Template, nil)
	legacy := withData(exampleRevision(ds, name, "h", 1), legacyData)
	h, err := rollout.ConstructHistory(ds, []*appsv1.ControllerRevision{legacy}, nil, nil)
	var ce *rollout.CollisionError
	if !errors.As(err, &ce) {
		t.Fatalf("ConstructHistory() error = %v, want a *CollisionError", err)
	}
	want := &rollout.RevisionDiff{Kind: rollout.DiffOnlyInRevision, Path: "spec.template.metadata.creationTimestamp", Revision: "null"}
	if diff := cmp.Diff(want, ce.Diff); diff != "" {
		t.Errorf("CollisionError.Diff mismatch (-want +got):\n%s", diff)
	}
	if !strings.HasSuffix(err.Error(), "; first difference: spec.template.metadata.creationTimestamp: the revision has null, the DaemonSet's patch has nothing") {
		t.Errorf("error = %q, want it to name the first difference", err)
	}
	if h.Plan.CollisionCount == nil || *h.Plan.CollisionCount != 1 {
		t.Errorf("Plan.CollisionCount = %v, want 1 (upstream bumps it)", h.Plan.CollisionCount)
	}
}

// FuzzDiffRevision checks DiffRevision on arbitrary revision data: no
// panic, no error, DiffNone exactly when the data equals the patch, a path
// exactly for the kinds that have one, a non-empty String, the same answer
// twice and the revision unchanged.
func FuzzDiffRevision(f *testing.F) {
	ds := exampleDS("registry.example/agent:v2")
	patch, err := rollout.Patch(ds)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{string(patch), legacyData, "", "null", "{}", "[1,2]", `{"spec":1}`, " " + string(patch), `{"a":1} x`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rev := exampleRevision(ds, "agent-x", "x", 1)
		rev.Data.Raw = bytes.Clone(data)
		d, err := rollout.DiffRevision(ds, rev)
		if err != nil {
			t.Fatalf("DiffRevision() error = %v", err)
		}
		if (d.Kind == rollout.DiffNone) != bytes.Equal(data, patch) {
			t.Fatalf("Kind %q for data %q", d.Kind, data)
		}
		switch d.Kind {
		case rollout.DiffValue, rollout.DiffOnlyInRevision, rollout.DiffOnlyInDaemonSet:
			if d.Path == "" || (d.Revision == "" && d.DaemonSet == "") {
				t.Fatalf("%+v: a path and a value expected", d)
			}
		default:
			if d.Path != "" || d.DaemonSet != "" {
				t.Fatalf("%+v: no path expected", d)
			}
		}
		if d.String() == "" {
			t.Fatal("empty String()")
		}
		if again, _ := rollout.DiffRevision(ds, rev); again != d {
			t.Fatalf("second call gave %+v, first %+v", again, d)
		}
		if !bytes.Equal(rev.Data.Raw, data) {
			t.Fatal("DiffRevision modified the revision's data")
		}
	})
}
