package affinity_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/affinity"
)

// fieldErr is the part of a field.Error a test pins: the message wording
// belongs to component-helpers and apimachinery.
type fieldErr struct {
	Type  field.ErrorType
	Field string
}

func fieldErrs(t *testing.T, err error) []fieldErr {
	t.Helper()
	if err == nil {
		return nil
	}
	var agg utilerrors.Aggregate
	if !errors.As(err, &agg) {
		t.Fatalf("Err() = %T, want a utilerrors.Aggregate", err)
	}
	var out []fieldErr
	for _, e := range agg.Errors() {
		var fe *field.Error
		if !errors.As(e, &fe) {
			t.Fatalf("aggregated error %T (%v) is not a *field.Error", e, e)
		}
		out = append(out, fieldErr{Type: fe.Type, Field: fe.Field})
	}
	return out
}

const reqPath = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"

func TestNodeMatcherErr(t *testing.T) {
	tests := []struct {
		name string
		spec *corev1.PodSpec
		want []fieldErr
	}{
		{name: "a nil spec has no errors"},
		{
			name: "a bad nodeSelector is not an error: it is never parsed",
			spec: &corev1.PodSpec{NodeSelector: map[string]string{"bad key!": "bad value!"}},
		},
		{
			name: "valid terms have no errors",
			spec: &corev1.PodSpec{Affinity: terms(
				exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a")),
				fieldTerm(expr("metadata.name", corev1.NodeSelectorOpNotIn, "node-a")),
			)},
		},
		{
			name: "empty terms are skipped, not errors",
			spec: &corev1.PodSpec{Affinity: terms(corev1.NodeSelectorTerm{}, corev1.NodeSelectorTerm{})},
		},
		{
			name: "an unknown operator names its term and requirement",
			spec: &corev1.PodSpec{Affinity: terms(
				exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a")),
				exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a"), expr("zone", "in", "a")),
			)},
			want: []fieldErr{{field.ErrorTypeNotSupported, reqPath + ".nodeSelectorTerms[1].matchExpressions[1].operator"}},
		},
		{
			name: "errors of several terms are flattened in order",
			spec: &corev1.PodSpec{Affinity: terms(
				exprTerm(expr("bad key!", corev1.NodeSelectorOpExists)),
				corev1.NodeSelectorTerm{},
				corev1.NodeSelectorTerm{
					MatchExpressions: []corev1.NodeSelectorRequirement{expr("node-count", corev1.NodeSelectorOpGt, "abc")},
					MatchFields:      []corev1.NodeSelectorRequirement{expr("metadata.name", corev1.NodeSelectorOpIn, "node-a", "node-b"), expr("metadata.name", corev1.NodeSelectorOpExists)},
				},
			)},
			want: []fieldErr{
				{field.ErrorTypeInvalid, reqPath + ".nodeSelectorTerms[0].matchExpressions[0].key"},
				{field.ErrorTypeInvalid, reqPath + ".nodeSelectorTerms[2].matchExpressions[0].values[0]"},
				{field.ErrorTypeInvalid, reqPath + ".nodeSelectorTerms[2].matchFields[0].values"},
				{field.ErrorTypeNotSupported, reqPath + ".nodeSelectorTerms[2].matchFields[1].operator"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fieldErrs(t, affinity.NewNodeMatcher(tt.spec).Err())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Err() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
