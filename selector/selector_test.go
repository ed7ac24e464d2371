package selector_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/selector"
)

// ignoreDetail compares field errors by type, path and value, not prose.
var ignoreDetail = cmpopts.IgnoreFields(field.Error{}, "Detail")

func expr(key string, op metav1.LabelSelectorOperator, values ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
}

func exprs(e ...metav1.LabelSelectorRequirement) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: e}
}

func matchLabels(m map[string]string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: m}
}

type selectorCase struct {
	name    string
	ds      *appsv1.DaemonSet
	want    string          // String() of the selector when err is nil
	wantErr *selector.Error // nil when no error is expected
}

func selectorCases() []selectorCase {
	sel := field.NewPath("spec", "selector")
	ml := sel.Child("matchLabels")
	me := sel.Child("matchExpressions")
	in, notIn := metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn
	exists, dne := metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist
	long63, long64 := strings.Repeat("a", 63), strings.Repeat("a", 64)
	fail := func(errs ...*field.Error) *selector.Error {
		return &selector.Error{Fields: errs}
	}
	return []selectorCase{
		{name: "nil daemonset is a required error",
			ds:      nil,
			wantErr: &selector.Error{Fields: field.ErrorList{field.Required(sel, "")}}},
		{name: "nil selector is a required error",
			ds:      newDaemonSet(nil, nil),
			wantErr: fail(field.Required(sel, ""))},
		{name: "exactly empty selector selects all",
			ds:      newDaemonSet(&metav1.LabelSelector{}, nil),
			wantErr: &selector.Error{SelectsAll: true, Fields: field.ErrorList{field.Invalid(sel, "{}", "")}}},
		{name: "non-nil empty matchLabels matches everything",
			ds:   newDaemonSet(matchLabels(map[string]string{}), nil),
			want: ""},
		{name: "non-nil empty matchExpressions matches everything",
			ds:   newDaemonSet(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{}}, nil),
			want: ""},
		{name: "non-nil empty matchLabels and matchExpressions match everything",
			ds: newDaemonSet(&metav1.LabelSelector{
				MatchLabels:      map[string]string{},
				MatchExpressions: []metav1.LabelSelectorRequirement{},
			}, nil),
			want: ""},
		{name: "one label",
			ds:   newDaemonSet(matchLabels(map[string]string{"app": "fluentd"}), nil),
			want: "app=fluentd"},
		{name: "labels are rendered in key order",
			ds:   newDaemonSet(matchLabels(map[string]string{"tier": "node", "app": "fluentd", "b": "2"}), nil),
			want: "app=fluentd,b=2,tier=node"},
		{name: "empty label value is valid",
			ds:   newDaemonSet(matchLabels(map[string]string{"app": ""}), nil),
			want: "app="},
		{name: "prefixed key is valid",
			ds:   newDaemonSet(matchLabels(map[string]string{"example.com/app": "x"}), nil),
			want: "example.com/app=x"},
		{name: "every operator",
			ds:   newDaemonSet(exprs(expr("a", in, "y", "x"), expr("b", notIn, "z"), expr("c", exists), expr("d", dne)), nil),
			want: "a in (x,y),b notin (z),c,!d"},
		{name: "labels and expressions on the same key are both kept",
			ds: newDaemonSet(&metav1.LabelSelector{
				MatchLabels:      map[string]string{"app": "fluentd"},
				MatchExpressions: []metav1.LabelSelectorRequirement{expr("app", exists)},
			}, nil),
			want: "app=fluentd,app"},
		{name: "63-character key and value are valid", // the name part's limit
			ds:   newDaemonSet(matchLabels(map[string]string{long63: long63}), nil),
			want: long63 + "=" + long63},
		{name: "64-character key is invalid at matchLabels",
			ds:      newDaemonSet(matchLabels(map[string]string{long64: "x"}), nil),
			wantErr: fail(field.Invalid(ml, long64, ""))},
		{name: "64-character value is invalid at matchLabels[key]",
			ds:      newDaemonSet(matchLabels(map[string]string{"app": long64}), nil),
			wantErr: fail(field.Invalid(ml.Key("app"), long64, ""))},
		{name: "empty key is invalid",
			ds:      newDaemonSet(matchLabels(map[string]string{"": "x"}), nil),
			wantErr: fail(field.Invalid(ml, "", ""))},
		{name: "In with no values is required at values",
			ds:      newDaemonSet(exprs(expr("app", in)), nil),
			wantErr: fail(field.Required(me.Index(0).Child("values"), ""))},
		{name: "NotIn with an empty non-nil values is required at values",
			ds:      newDaemonSet(exprs(metav1.LabelSelectorRequirement{Key: "app", Operator: notIn, Values: []string{}}), nil),
			wantErr: fail(field.Required(me.Index(0).Child("values"), ""))},
		{name: "the third expression's error names index 2",
			ds:      newDaemonSet(exprs(expr("a", exists), expr("b", in, "x"), expr("c", in)), nil),
			wantErr: fail(field.Required(me.Index(2).Child("values"), ""))},
		{name: "Exists with values is invalid at values",
			ds:      newDaemonSet(exprs(expr("app", exists, "x")), nil),
			wantErr: fail(field.Invalid(me.Index(0).Child("values"), []string{"x"}, ""))},
		{name: "DoesNotExist with an empty non-nil values is valid",
			ds:   newDaemonSet(exprs(metav1.LabelSelectorRequirement{Key: "app", Operator: dne, Values: []string{}}), nil),
			want: "!app"},
		{name: "Gt is not a label selector operator",
			ds:      newDaemonSet(exprs(expr("n", "Gt", "1")), nil),
			wantErr: fail(field.NotSupported(me.Index(0).Child("operator"), "Gt", []string{"In", "NotIn", "Exists", "DoesNotExist"}))},
		{name: "operators are case-sensitive",
			ds:      newDaemonSet(exprs(expr("app", "in", "x")), nil),
			wantErr: fail(field.NotSupported(me.Index(0).Child("operator"), "in", []string{"In", "NotIn", "Exists", "DoesNotExist"}))},
		{name: "empty operator is not supported",
			ds:      newDaemonSet(exprs(expr("app", "")), nil),
			wantErr: fail(field.NotSupported(me.Index(0).Child("operator"), "", []string{"In", "NotIn", "Exists", "DoesNotExist"}))},
		{name: "bad expression key is invalid at key",
			ds:      newDaemonSet(exprs(expr("bad key", exists)), nil),
			wantErr: fail(field.Invalid(me.Index(0).Child("key"), "bad key", ""))},
		{name: "bad expression value is invalid at its index",
			ds:      newDaemonSet(exprs(expr("app", in, "ok", "not ok")), nil),
			wantErr: fail(field.Invalid(me.Index(0).Child("values").Index(1), "not ok", ""))},
		{name: "every problem is reported, labels by key then expressions by index",
			ds: newDaemonSet(&metav1.LabelSelector{
				MatchLabels:      map[string]string{"z": "bad value", "a": "-bad"},
				MatchExpressions: []metav1.LabelSelectorRequirement{expr("ok", exists), expr("-k", "Foo", "bad value")},
			}, nil),
			wantErr: fail(
				field.Invalid(ml.Key("a"), "-bad", ""),
				field.Invalid(ml.Key("z"), "bad value", ""),
				field.Invalid(me.Index(1).Child("key"), "-k", ""),
				field.NotSupported(me.Index(1).Child("operator"), "Foo", []string{"In", "NotIn", "Exists", "DoesNotExist"}),
				field.Invalid(me.Index(1).Child("values").Index(0), "bad value", ""),
			)},
	}
}

func TestForDaemonSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tt := range selectorCases() {
		t.Run(tt.name, func(t *testing.T) {
			got, err := selector.ForDaemonSet(tt.ds)
			if tt.wantErr != nil {
				var se *selector.Error
				if !errors.As(err, &se) {
					t.Fatalf("ForDaemonSet() error = %v, want a *selector.Error", err)
				}
				if diff := cmp.Diff(tt.wantErr, se, ignoreDetail); diff != "" {
					t.Errorf("ForDaemonSet() error mismatch (-want +got):\n%s", diff)
				}
				if got != nil {
					t.Errorf("ForDaemonSet() selector = %q with an error, want nil", got)
				}
				if gotIs := errors.Is(err, selector.ErrSelectsAll); gotIs != tt.wantErr.SelectsAll {
					t.Errorf("errors.Is(err, ErrSelectsAll) = %v, want %v", gotIs, tt.wantErr.SelectsAll)
				}
				var fe *field.Error
				if !errors.As(err, &fe) || fe.Field != tt.wantErr.Fields[0].Field {
					t.Errorf("errors.As(err, *field.Error) = %v, want the first field error at %s", fe, tt.wantErr.Fields[0].Field)
				}
			} else {
				if err != nil {
					t.Fatalf("ForDaemonSet() unexpected error: %v", err)
				}
				if diff := cmp.Diff(tt.want, got.String()); diff != "" {
					t.Errorf("ForDaemonSet() selector mismatch (-want +got):\n%s", diff)
				}
			}
			if tt.ds != nil {
				checkAgainstUpstream(t, rng, tt.ds.Spec.Selector, got, err)
			}
		})
	}
}

func TestForDaemonSetInputUnchanged(t *testing.T) {
	for _, tt := range selectorCases() {
		if tt.ds == nil {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			before := tt.ds.DeepCopy()
			_, _ = selector.ForDaemonSet(tt.ds)
			if diff := cmp.Diff(before, tt.ds); diff != "" {
				t.Errorf("ForDaemonSet() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestForDaemonSetSharesNoSlice(t *testing.T) {
	ds := newDaemonSet(exprs(expr("app", metav1.LabelSelectorOpIn, "a", "b")), nil)
	sel, err := selector.ForDaemonSet(ds)
	if err != nil {
		t.Fatalf("ForDaemonSet() unexpected error: %v", err)
	}
	ds.Spec.Selector.MatchExpressions[0].Values[0] = "changed"
	if got, want := sel.String(), "app in (a,b)"; got != want {
		t.Errorf("after changing the DaemonSet, selector = %q, want %q", got, want)
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  *selector.Error
		want string
	}{
		{
			// The DaemonSet is the caller's: daemon.Compute names it once.
			name: "one field error is the field error alone",
			err:  &selector.Error{Fields: field.ErrorList{field.Required(field.NewPath("spec", "selector"), "needed")}},
			want: `spec.selector: Required value: needed`,
		},
		{
			name: "several field errors are joined in order",
			err: &selector.Error{Fields: field.ErrorList{
				field.Required(field.NewPath("x"), "one"), field.Required(field.NewPath("y"), "two"),
			}},
			want: `x: Required value: one; y: Required value: two`,
		},
		{
			name: "selects all without field errors still reads well",
			err:  &selector.Error{SelectsAll: true},
			want: `selector selects all pods`,
		},
		{
			name: "nil field entries do not panic",
			err:  &selector.Error{Fields: field.ErrorList{nil}},
			want: `<nil>`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.err.Error()); diff != "" {
				t.Errorf("Error() mismatch (-want +got):\n%s", diff)
			}
			if errors.Is(tt.err, selector.ErrSelectsAll) != tt.err.SelectsAll {
				t.Errorf("errors.Is(ErrSelectsAll) = %v, want %v", !tt.err.SelectsAll, tt.err.SelectsAll)
			}
		})
	}
}

func TestForDaemonSetMessageNamesField(t *testing.T) {
	_, err := selector.ForDaemonSet(newDaemonSet(exprs(expr("a", metav1.LabelSelectorOpExists), expr("b", metav1.LabelSelectorOpExists), expr("app", metav1.LabelSelectorOpIn)), nil))
	want := `spec.selector.matchExpressions[2].values: Required value`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("ForDaemonSet() error = %v, want it to start with %q", err, want)
	}
}
