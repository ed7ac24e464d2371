package affinity

import (
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

var parseCases = []struct {
	name   string
	in     string
	want   int64
	wantOK bool
}{
	{name: "empty", in: ""},
	{name: "a lone sign", in: "-"},
	{name: "a lone plus", in: "+"},
	{name: "zero", in: "0", wantOK: true},
	{name: "negative zero", in: "-0", wantOK: true},
	{name: "plus sign", in: "+5", want: 5, wantOK: true},
	{name: "leading zeros are decimal", in: "007", want: 7, wantOK: true},
	{name: "max int64", in: "9223372036854775807", want: 1<<63 - 1, wantOK: true},
	{name: "max int64 plus one", in: "9223372036854775808"},
	{name: "min int64", in: "-9223372036854775808", want: -1 << 63, wantOK: true},
	{name: "min int64 minus one", in: "-9223372036854775809"},
	{name: "past uint64", in: "99999999999999999999"},
	{name: "underscores need base 0", in: "1_000"},
	{name: "hex prefix needs base 0", in: "0x10"},
	{name: "space", in: " 1"},
	{name: "two signs", in: "--1"},
	{name: "letters", in: "12a"},
}

func TestParseInt64(t *testing.T) {
	for _, tt := range parseCases {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseInt64(tt.in)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("parseInt64(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestParseInt64Allocs(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		for _, tt := range parseCases {
			parseInt64(tt.in)
		}
	})
	if allocs != 0 { // budget: zero, also on failure
		t.Errorf("parseInt64 allocates %v times per run, want 0", allocs)
	}
}

// FuzzParseInt64 compares parseInt64 with strconv.ParseInt, its oracle.
func FuzzParseInt64(f *testing.F) {
	for _, tt := range parseCases {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := parseInt64(s)
		if ok != (err == nil) || (ok && got != want) {
			t.Fatalf("parseInt64(%q) = %d, %v; strconv.ParseInt = %d, %v", s, got, ok, want, err)
		}
	})
}

// TestCompiledTermsAgreeWithErr checks that the terms NewNodeMatcher keeps
// are exactly the non-empty terms that component-helpers parses without
// error: Err and the compiled form must tell the same story.
func TestCompiledTermsAgreeWithErr(t *testing.T) {
	exprs := []corev1.NodeSelectorRequirement{
		{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}},
		{Key: "zone", Operator: corev1.NodeSelectorOpIn},
		{Key: "bad key!", Operator: corev1.NodeSelectorOpExists},
		{Key: "n", Operator: corev1.NodeSelectorOpGt, Values: []string{"x"}},
		{Key: "n", Operator: corev1.NodeSelectorOpLt, Values: []string{"9"}},
		{Key: "zone", Operator: "Equals", Values: []string{"a"}},
	}
	fields := []corev1.NodeSelectorRequirement{
		{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}},
		{Key: "metadata.name", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a", "b"}},
		{Key: "other", Operator: corev1.NodeSelectorOpNotIn, Values: []string{""}},
		{Key: "metadata.name", Operator: corev1.NodeSelectorOpExists},
	}
	for ei := -1; ei < len(exprs); ei++ {
		for fi := -1; fi < len(fields); fi++ {
			var term corev1.NodeSelectorTerm
			if ei >= 0 {
				term.MatchExpressions = exprs[ei : ei+1]
			}
			if fi >= 0 {
				term.MatchFields = fields[fi : fi+1]
			}
			ns := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
			m := NewNodeMatcher(&corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: ns}}})
			_, helpersErr := nodeaffinity.NewNodeSelector(ns)
			empty := ei < 0 && fi < 0
			wantTerms := 0
			if !empty && helpersErr == nil {
				wantTerms = 1
			}
			if len(m.terms) != wantTerms || (m.Err() == nil) != (helpersErr == nil) {
				t.Errorf("term %+v: %d compiled terms and Err() = %v; component-helpers error = %v", term, len(m.terms), m.Err(), helpersErr)
			}
		}
	}
}
