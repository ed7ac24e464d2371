package progressive_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// TestKeysListEveryConstant: every Annotation* constant of keys.go is one
// of Keys, once, with a doc; so a key added to the schema without its
// entry fails here (and every program that loops over Keys gets it).
func TestKeysListEveryConstant(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "keys.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				if strings.HasPrefix(n.Name, "Annotation") && n.Name != "AnnotationPrefix" {
					consts = append(consts, n.Name)
				}
			}
		}
	}
	keys := progressive.Keys()
	seen := map[string]int{}
	for _, k := range keys {
		seen[k.Name]++
		if k.Doc == "" || !strings.HasPrefix(k.Name, progressive.AnnotationPrefix) {
			t.Errorf("key %+v: want a doc and the prefix", k)
		}
	}
	if len(consts) != len(keys) {
		t.Errorf("keys.go has %d Annotation* constants, Keys %d: %v", len(consts), len(keys), consts)
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("Keys lists %s %d times", name, n)
		}
	}
	keys[0].Name = "changed"
	if progressive.Keys()[0].Name == "changed" {
		t.Error("Keys returns the schema itself, not a copy")
	}
}

// TestKeyCheck: a value is judged on its own, as ParseAnnotations judges
// it, at the key's field; what it needs of other keys is not its error.
func TestKeyCheck(t *testing.T) {
	key := func(name string) progressive.Key {
		for _, k := range progressive.Keys() {
			if k.Name == name {
				return k
			}
		}
		return progressive.Key{Name: name}
	}
	tests := []struct {
		name, key, value string
		wantErr          string // the error's field, "" for none
	}{
		{name: "a good canary", key: progressive.AnnotationCanary, value: "10%"},
		{name: "pause-after a wave without order-by is not its own error", key: progressive.AnnotationPauseAfter, value: "zone-a"},
		{name: "a canary of 0", key: progressive.AnnotationCanary, value: "0", wantErr: "metadata.annotations[rollout.daemonplan.io/canary]"},
		{name: "an empty window", key: progressive.AnnotationWindow, value: "", wantErr: "metadata.annotations[rollout.daemonplan.io/window]"},
		{name: "a boolean that is not one", key: progressive.AnnotationPaused, value: "yes", wantErr: "metadata.annotations[rollout.daemonplan.io/paused]"},
		{name: "a key outside the schema", key: progressive.AnnotationPrefix + "max-surge", value: "1", wantErr: "metadata.annotations[rollout.daemonplan.io/max-surge]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := key(tt.key).Check(tt.value)
			var fe *field.Error
			got := ""
			if errors.As(err, &fe) {
				got = fe.Field
			}
			if got != tt.wantErr || (err != nil) != (tt.wantErr != "") {
				t.Fatalf("Check(%q) = %v, want an error at %q", tt.value, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, daemon.ErrInvalidInput) {
				t.Errorf("Check(%q) = %v, not daemon.ErrInvalidInput", tt.value, err)
			}
		})
	}
}

// TestInert: annotations on a DaemonSet that is not OnDelete are inert
// beside kube-controller-manager, valid or not; on an OnDelete one, or
// with none, they are not.
func TestInert(t *testing.T) {
	ds := func(strategy appsv1.DaemonSetUpdateStrategyType, annotations map[string]string) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Annotations: annotations},
			Spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: strategy}}}
	}
	canary := map[string]string{progressive.AnnotationCanary: "2"}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want string // a part of the text, "" for none
	}{
		{name: "nil", ds: nil},
		{name: "RollingUpdate without rollout annotations", ds: ds(appsv1.RollingUpdateDaemonSetStrategyType, map[string]string{"example.com/team": "a"})},
		{name: "OnDelete with a canary", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, canary)},
		{name: "RollingUpdate with a canary", ds: ds(appsv1.RollingUpdateDaemonSetStrategyType, canary), want: "this RollingUpdate one by itself"},
		{name: "no strategy is RollingUpdate", ds: ds("", canary), want: "this RollingUpdate one by itself"},
		{name: "RollingUpdate with an invalid annotation", ds: ds(appsv1.RollingUpdateDaemonSetStrategyType, map[string]string{progressive.AnnotationCanary: "0"}), want: "set spec.updateStrategy.type to OnDelete"},
		{name: "RollingUpdate with a misspelt prefix ParseAnnotations refuses", ds: ds(appsv1.RollingUpdateDaemonSetStrategyType, map[string]string{"rollouts.daemonplan.io/canary": "2"}), want: "will not be carried out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before *appsv1.DaemonSet
			if tt.ds != nil {
				before = tt.ds.DeepCopy()
			}
			got := progressive.Inert(tt.ds)
			if (got == "") != (tt.want == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Inert() = %s, want one with %s", strconv.Quote(got), strconv.Quote(tt.want))
			}
			if tt.ds != nil {
				if diff := cmp.Diff(before, tt.ds); diff != "" {
					t.Errorf("Inert modified its input (-before +after):\n%s", diff)
				}
			}
		})
	}
}
