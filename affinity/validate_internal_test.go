package affinity

import (
	"math/rand/v2"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// newRequirementOK is the oracle: apimachinery's own validation.
func newRequirementOK(key string, op selection.Operator, values []string) bool {
	_, err := labels.NewRequirement(key, op, values)
	return err == nil
}

var requirementOps = []selection.Operator{selection.In, selection.NotIn, selection.Exists, selection.DoesNotExist, selection.GreaterThan, selection.LessThan}

func TestValidRequirement(t *testing.T) {
	long63, long64 := strings.Repeat("a", 63), strings.Repeat("a", 64)
	prefix253 := strings.Repeat(strings.Repeat("a", 63)+".", 3) + strings.Repeat("a", 61) // 253 characters
	tests := []struct {
		name   string
		key    string
		op     selection.Operator
		values []string
		want   bool
	}{
		{name: "a plain key with In", key: "zone", op: selection.In, values: []string{"a", "b"}, want: true},
		{name: "a prefixed key", key: "topology.kubernetes.io/zone", op: selection.Exists, want: true},
		{name: "an uppercase name", key: "Zone_1.x", op: selection.Exists, want: true},
		{name: "an uppercase prefix", key: "Example.com/zone", op: selection.Exists, want: false},
		{name: "an empty key", key: "", op: selection.Exists, want: false},
		{name: "an empty prefix", key: "/zone", op: selection.Exists, want: false},
		{name: "an empty name", key: "example.com/", op: selection.Exists, want: false},
		{name: "two slashes", key: "a/b/c", op: selection.Exists, want: false},
		{name: "a name of 63 characters", key: long63, op: selection.Exists, want: true},
		{name: "a name of 64 characters", key: long64, op: selection.Exists, want: false},
		{name: "a prefix of 253 characters", key: prefix253 + "/x", op: selection.Exists, want: true},
		{name: "a prefix of 254 characters", key: prefix253 + "a/x", op: selection.Exists, want: false},
		{name: "a prefix label ending in a dash", key: "a-.com/x", op: selection.Exists, want: false},
		{name: "a prefix with an empty label", key: "a..com/x", op: selection.Exists, want: false},
		{name: "a name starting with a dot", key: ".x", op: selection.Exists, want: false},
		{name: "a name ending with an underscore", key: "x_", op: selection.Exists, want: false},
		{name: "In without values", key: "x", op: selection.In, want: false},
		{name: "Exists with a value", key: "x", op: selection.Exists, values: []string{"a"}, want: false},
		{name: "an empty value", key: "x", op: selection.In, values: []string{""}, want: true},
		{name: "a value of 64 characters", key: "x", op: selection.NotIn, values: []string{long64}, want: false},
		{name: "a value with a space", key: "x", op: selection.In, values: []string{"a b"}, want: false},
		{name: "Gt with an integer", key: "cores", op: selection.GreaterThan, values: []string{"8"}, want: true},
		{name: "Gt with a negative integer, not a label value", key: "cores", op: selection.GreaterThan, values: []string{"-8"}, want: false},
		{name: "Lt with a leading plus, not a label value", key: "cores", op: selection.LessThan, values: []string{"+8"}, want: false},
		{name: "Gt with a non-integer", key: "cores", op: selection.GreaterThan, values: []string{"8x"}, want: false},
		{name: "Gt with two values", key: "cores", op: selection.GreaterThan, values: []string{"1", "2"}, want: false},
		{name: "Gt beyond int64", key: "cores", op: selection.GreaterThan, values: []string{"9223372036854775808"}, want: false},
		{name: "Equals is not a node operator", key: "x", op: selection.Equals, values: []string{"a"}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if oracle := newRequirementOK(tt.key, tt.op, tt.values); oracle != tt.want && tt.op != selection.Equals {
				t.Fatalf("the table is wrong: labels.NewRequirement accepts = %v", oracle)
			}
			if got := validRequirement(tt.key, tt.op, tt.values); got != tt.want {
				t.Errorf("validRequirement() = %v, want %v", got, tt.want)
			}
		})
	}
}

// checkValidator holds the scanning validator to the oracle: it must never
// accept what labels.NewRequirement rejects (that would change verdicts),
// and it should not reject what it accepts (that would only cost time, but
// the two are meant to agree).
func checkValidator(t *testing.T, key string, op selection.Operator, values []string) {
	t.Helper()
	fast, oracle := validRequirement(key, op, values), newRequirementOK(key, op, values)
	if fast != oracle {
		t.Fatalf("validRequirement(%q, %s, %q) = %v, labels.NewRequirement accepts = %v", key, op, values, fast, oracle)
	}
}

// alphabet mixes the characters that matter to label syntax.
const alphabet = "aZ09-_./+ A.z-9"

func randomLabelish(r *rand.Rand) string {
	n := r.IntN(12)
	if r.IntN(20) == 0 {
		n = 60 + r.IntN(200)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func TestValidatorAgreesWithLabels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		var values []string
		for range r.IntN(3) {
			values = append(values, randomLabelish(r))
		}
		checkValidator(t, randomLabelish(r), requirementOps[r.IntN(len(requirementOps))], values)
	}
}

func FuzzValidRequirement(f *testing.F) {
	f.Add("topology.kubernetes.io/zone", uint8(0), "zone-a", "")
	f.Add("cores", uint8(4), "8", "")
	f.Add("a..b/c", uint8(2), "", "")
	f.Add("x", uint8(1), "-1", "a b")
	f.Fuzz(func(t *testing.T, key string, op uint8, v1, v2 string) {
		values := []string{v1, v2}
		switch op % 4 {
		case 0:
			values = nil
		case 1:
			values = values[:1]
		}
		checkValidator(t, key, requirementOps[int(op/4)%len(requirementOps)], values)
	})
}
