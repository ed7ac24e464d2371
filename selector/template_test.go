package selector_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/selector"
)

func templateCases() []struct {
	name    string
	ds      *appsv1.DaemonSet
	wantErr *selector.Error
} {
	tmpl := field.NewPath("spec", "template", "metadata", "labels")
	sel := field.NewPath("spec", "selector")
	app := matchLabels(map[string]string{"app": "fluentd"})
	return []struct {
		name    string
		ds      *appsv1.DaemonSet
		wantErr *selector.Error
	}{
		{name: "selector matching the template labels is fine",
			ds: newDaemonSet(app, map[string]string{"app": "fluentd", "tier": "node"})},
		{name: "selector not matching the template labels is invalid at the labels",
			ds:      newDaemonSet(app, map[string]string{"tier": "node", "app": "other"}),
			wantErr: &selector.Error{Fields: field.ErrorList{field.Invalid(tmpl, "app=other,tier=node", "")}}},
		{name: "nil template labels fail an equality selector",
			ds:      newDaemonSet(app, nil),
			wantErr: &selector.Error{Fields: field.ErrorList{field.Invalid(tmpl, "", "")}}},
		{name: "nil template labels pass a DoesNotExist selector",
			ds: newDaemonSet(exprs(expr("app", metav1.LabelSelectorOpDoesNotExist)), nil)},
		{name: "non-nil empty matchLabels matches any template",
			ds: newDaemonSet(matchLabels(map[string]string{}), nil)},
		{name: "exactly empty selector gives the selects-all error",
			ds:      newDaemonSet(&metav1.LabelSelector{}, map[string]string{"app": "fluentd"}),
			wantErr: &selector.Error{SelectsAll: true, Fields: field.ErrorList{field.Invalid(sel, "{}", "")}}},
		{name: "unparsable selector gives the parse error",
			ds: newDaemonSet(exprs(expr("app", metav1.LabelSelectorOpIn)), map[string]string{"app": "fluentd"}),
			wantErr: &selector.Error{Fields: field.ErrorList{
				field.Required(sel.Child("matchExpressions").Index(0).Child("values"), "")}}},
		{name: "nil daemonset gives the required error",
			ds:      nil,
			wantErr: &selector.Error{Fields: field.ErrorList{field.Required(sel, "")}}},
	}
}

func TestMatchesTemplate(t *testing.T) {
	for _, tt := range templateCases() {
		t.Run(tt.name, func(t *testing.T) {
			err := selector.MatchesTemplate(tt.ds)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("MatchesTemplate() unexpected error: %v", err)
				}
				return
			}
			var se *selector.Error
			if !errors.As(err, &se) {
				t.Fatalf("MatchesTemplate() error = %v, want a *selector.Error", err)
			}
			if diff := cmp.Diff(tt.wantErr, se, ignoreDetail); diff != "" {
				t.Errorf("MatchesTemplate() error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMatchesTemplateInputUnchanged(t *testing.T) {
	for _, tt := range templateCases() {
		if tt.ds == nil {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			before := tt.ds.DeepCopy()
			_ = selector.MatchesTemplate(tt.ds)
			if diff := cmp.Diff(before, tt.ds); diff != "" {
				t.Errorf("MatchesTemplate() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}
