package validation_test

import (
	"encoding/json"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon/validation"
)

// FuzzValidate feeds Validate DaemonSets decoded from arbitrary JSON: it
// never panics, never modifies its input, gives the same list twice, and
// gives exactly one error for nil (input "null").
func FuzzValidate(f *testing.F) {
	for _, c := range validateCases() {
		b, err := json.Marshal(c.ds)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`null`))
	f.Add([]byte(`{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"200%","maxSurge":-3}}}}`))
	f.Add([]byte(`{"spec":{"selector":{},"template":{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":[{"key":"x","operator":"Gt"}]}]}}}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var ds *appsv1.DaemonSet
		if err := json.Unmarshal(data, &ds); err != nil {
			return
		}
		var before *appsv1.DaemonSet
		if ds != nil {
			before = ds.DeepCopy()
		}
		first := validation.Validate(ds)
		second := validation.Validate(ds)
		if ds == nil && len(first) != 1 {
			t.Fatalf("Validate(nil) gave %d errors, want 1", len(first))
		}
		if !reflect.DeepEqual(errorTexts(first), errorTexts(second)) {
			t.Fatalf("Validate is not deterministic:\n%v\n%v", errorTexts(first), errorTexts(second))
		}
		if ds != nil && !reflect.DeepEqual(before, ds) {
			t.Fatal("Validate modified its input")
		}
	})
}

func errorTexts[E error](errs []E) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}
