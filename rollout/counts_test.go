package rollout_test

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

// budgetDS returns a RollingUpdate DaemonSet kube-system/agent with the
// given maxSurge and maxUnavailable (nil leaves them unset).
func budgetDS(maxSurge, maxUnavailable *intstr.IntOrString) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent"},
		Spec: appsv1.DaemonSetSpec{
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{
					MaxSurge:       maxSurge,
					MaxUnavailable: maxUnavailable,
				},
			},
		},
	}
}

func intOrStr(v int32) *intstr.IntOrString  { p := intstr.FromInt32(v); return &p }
func strOrInt(s string) *intstr.IntOrString { p := intstr.FromString(s); return &p }

// budgetCase is one row shared by the SurgeCount and UnavailableCount
// tables and by the fuzz seeds.
type budgetCase struct {
	name    string
	value   *intstr.IntOrString
	total   int
	want    int
	wantErr bool
}

var budgetCases = []budgetCase{
	{name: "integer 0 is 0", value: intOrStr(0), total: 10, want: 0},
	{name: "integer 1 is 1 whatever the total", value: intOrStr(1), total: 0, want: 1},
	{name: "integer above the total is kept", value: intOrStr(25), total: 3, want: 25},
	{name: "0% is 0", value: strOrInt("0%"), total: 10, want: 0},
	{name: "1% of 1 rounds up to 1", value: strOrInt("1%"), total: 1, want: 1}, // 0.01 → 1: any positive percentage of a positive total is at least 1
	{name: "10% of 0 is 0", value: strOrInt("10%"), total: 0, want: 0},         // no nodes, no budget
	{name: "10% of 1 rounds up to 1", value: strOrInt("10%"), total: 1, want: 1},
	{name: "10% of 9 rounds up to 1", value: strOrInt("10%"), total: 9, want: 1},
	{name: "10% of 10 is exactly 1", value: strOrInt("10%"), total: 10, want: 1},
	{name: "10% of 11 rounds up to 2", value: strOrInt("10%"), total: 11, want: 2}, // 1.1 → 2
	{name: "100% of 7 is 7", value: strOrInt("100%"), total: 7, want: 7},
	{name: "33% of 10 rounds 3.3 up to 4", value: strOrInt("33%"), total: 10, want: 4},
	{name: "150% of 10 is 15", value: strOrInt("150%"), total: 10, want: 15},
	{name: "a leading plus sign parses", value: strOrInt("+20%"), total: 10, want: 2},
	{name: "leading zeros parse", value: strOrInt("007%"), total: 100, want: 7},
	{name: "negative integer passes through", value: intOrStr(-3), total: 10, want: -3},
	{name: "negative percentage rounds toward zero (up)", value: strOrInt("-15%"), total: 10, want: -1},
	{name: "largest int32 passes through", value: intOrStr(math.MaxInt32), total: 10, want: math.MaxInt32},      // math.MaxInt32
	{name: "large percentage of a large total", value: strOrInt("2147483647%"), total: 1000, want: 21474836470}, // above int32: the result is an int
	{name: "abc% is invalid", value: strOrInt("abc%"), total: 10, wantErr: true},
	{name: "a number without % is invalid", value: strOrInt("10"), total: 10, wantErr: true}, // strings must be percentages
	{name: "an empty string is invalid", value: strOrInt(""), total: 10, wantErr: true},
	{name: "a lone % is invalid", value: strOrInt("%"), total: 10, wantErr: true},
	{name: "a double %% is invalid", value: strOrInt("10%%"), total: 10, wantErr: true},
	{name: "a space is invalid", value: strOrInt(" 10%"), total: 10, wantErr: true},
	{name: "a fraction is invalid", value: strOrInt("1.5%"), total: 10, wantErr: true},
	{name: "a percentage beyond int64 is invalid", value: strOrInt("9223372036854775808%"), total: 10, wantErr: true}, // math.MaxInt64+1: strconv.Atoi range error
	{name: "an unknown IntOrString type is invalid", value: &intstr.IntOrString{Type: 7, IntVal: 3}, total: 10, wantErr: true},
}

// ignoreDetail compares field errors by type, field and value only.
var ignoreDetail = cmpopts.IgnoreFields(field.Error{}, "Detail")

func TestSurgeCount(t *testing.T) {
	for _, tt := range budgetCases {
		t.Run(tt.name, func(t *testing.T) {
			ds := budgetDS(tt.value, intOrStr(1))
			got, err := rollout.SurgeCount(ds, tt.total)
			checkBudgetResult(t, "SurgeCount", got, err, tt, "spec.updateStrategy.rollingUpdate.maxSurge")
		})
	}
}

func TestUnavailableCount(t *testing.T) {
	for _, tt := range budgetCases {
		t.Run(tt.name, func(t *testing.T) {
			ds := budgetDS(nil, tt.value)
			got, err := rollout.UnavailableCount(ds, tt.total)
			checkBudgetResult(t, "UnavailableCount", got, err, tt, "spec.updateStrategy.rollingUpdate.maxUnavailable")
		})
	}
}

func checkBudgetResult(t *testing.T, fn string, got int, err error, tt budgetCase, path string) {
	t.Helper()
	if !tt.wantErr {
		if err != nil {
			t.Fatalf("%s() error = %v, want none", fn, err)
		}
		if got != tt.want {
			t.Errorf("%s() = %d, want %d", fn, got, tt.want)
		}
		return
	}
	if got != 0 {
		t.Errorf("%s() = %d with an error, want 0", fn, got)
	}
	var fe *field.Error
	if !errors.As(err, &fe) {
		t.Fatalf("%s() error = %v, want a wrapped *field.Error", fn, err)
	}
	want := &field.Error{Type: field.ErrorTypeInvalid, Field: path, BadValue: tt.value.String()}
	if diff := cmp.Diff(want, fe, ignoreDetail); diff != "" {
		t.Errorf("%s() field error mismatch (-want +got):\n%s", fn, diff)
	}
	if err != error(fe) {
		t.Errorf("%s() error = %q, want the *field.Error itself: the DaemonSet is the caller's", fn, err)
	}
}

func TestBudgetsOutsideRollingUpdate(t *testing.T) {
	onDelete := budgetDS(strOrInt("abc%"), nil)
	onDelete.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
	noType := budgetDS(intOrStr(2), intOrStr(3))
	noType.Spec.UpdateStrategy.Type = ""
	noRolling := budgetDS(nil, nil)
	noRolling.Spec.UpdateStrategy.RollingUpdate = nil
	tests := []struct {
		name            string
		ds              *appsv1.DaemonSet
		wantSurge       int
		wantSurgeErr    error
		wantUnavailable int
		wantUnavailErr  error
		wantAllows      bool
	}{
		{name: "OnDelete ignores even invalid values", ds: onDelete},
		{name: "an empty strategy type counts as not rolling", ds: noType},
		{name: "a nil rollingUpdate gives zero budgets", ds: noRolling},
		{name: "a nil maxSurge gives no surge", ds: budgetDS(nil, intOrStr(2)), wantUnavailable: 2},
		{name: "a positive surge allows surge", ds: budgetDS(strOrInt("1%"), intOrStr(0)), wantSurge: 1, wantAllows: true},
		{name: "a zero surge does not allow surge", ds: budgetDS(strOrInt("0%"), intOrStr(1)), wantUnavailable: 1},
		{name: "a negative surge does not allow surge", ds: budgetDS(intOrStr(-1), intOrStr(1)), wantSurge: -1, wantUnavailable: 1},
		{
			name: "a nil ds is an error", ds: nil,
			wantSurgeErr: rollout.ErrNilDaemonSet, wantUnavailErr: rollout.ErrNilDaemonSet,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			surge, err := rollout.SurgeCount(tt.ds, 10)
			if !errors.Is(err, tt.wantSurgeErr) || surge != tt.wantSurge {
				t.Errorf("SurgeCount() = %d, %v; want %d, %v", surge, err, tt.wantSurge, tt.wantSurgeErr)
			}
			unavail, err := rollout.UnavailableCount(tt.ds, 10)
			if !errors.Is(err, tt.wantUnavailErr) || unavail != tt.wantUnavailable {
				t.Errorf("UnavailableCount() = %d, %v; want %d, %v", unavail, err, tt.wantUnavailable, tt.wantUnavailErr)
			}
			if got := rollout.AllowsSurge(tt.ds); got != tt.wantAllows {
				t.Errorf("AllowsSurge() = %v, want %v", got, tt.wantAllows)
			}
		})
	}
}

func TestUnavailableCountNilMaxUnavailable(t *testing.T) {
	ds := budgetDS(intOrStr(1), nil)
	got, err := rollout.UnavailableCount(ds, 10)
	if got != 0 {
		t.Errorf("UnavailableCount() = %d, want 0", got)
	}
	var fe *field.Error
	if !errors.As(err, &fe) {
		t.Fatalf("UnavailableCount() error = %v, want a wrapped *field.Error", err)
	}
	want := &field.Error{Type: field.ErrorTypeRequired, Field: "spec.updateStrategy.rollingUpdate.maxUnavailable", BadValue: ""}
	if diff := cmp.Diff(want, fe, ignoreDetail); diff != "" {
		t.Errorf("UnavailableCount() field error mismatch (-want +got):\n%s", diff)
	}
	if !rollout.AllowsSurge(ds) {
		t.Errorf("AllowsSurge() = false, want true: maxUnavailable does not matter")
	}
}

func TestAllowsSurgeInvalid(t *testing.T) {
	if rollout.AllowsSurge(budgetDS(strOrInt("abc%"), intOrStr(1))) {
		t.Errorf("AllowsSurge() = true for an invalid maxSurge, want false")
	}
}

func TestBudgetsDoNotModifyInput(t *testing.T) {
	ds := budgetDS(strOrInt("25%"), strOrInt("abc%"))
	ds.Annotations = map[string]string{"a": "b"}
	before := ds.DeepCopy()
	_, _ = rollout.SurgeCount(ds, 10)
	_, _ = rollout.UnavailableCount(ds, 10)
	_ = rollout.AllowsSurge(ds)
	if diff := cmp.Diff(before, ds); diff != "" {
		t.Errorf("budget functions modified the DaemonSet (-before +after):\n%s", diff)
	}
}

func TestBudgetsAllocs(t *testing.T) {
	ds := budgetDS(strOrInt("25%"), intOrStr(2))
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = rollout.SurgeCount(ds, 1000)
		_, _ = rollout.UnavailableCount(ds, 1000)
		_ = rollout.AllowsSurge(ds)
	})
	if allocs != 0 {
		t.Errorf("valid budgets allocate %v times per run, want 0", allocs)
	}
}

// naiveBudget is the oracle: it parses a percentage by hand and rounds up
// with exact integer arithmetic. ok is false when the value is invalid. For
// a percentage, pct is the parsed number (nil for an integer).
func naiveBudget(v *intstr.IntOrString, total int) (n, pct *big.Int, ok bool) {
	switch v.Type {
	case intstr.Int:
		return big.NewInt(int64(v.IntVal)), nil, true
	case intstr.String:
	default:
		return nil, nil, false
	}
	s := v.StrVal
	if len(s) == 0 || s[len(s)-1] != '%' {
		return nil, nil, false
	}
	s = s[:len(s)-1]
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 {
		return nil, nil, false
	}
	pct = new(big.Int)
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return nil, nil, false
		}
		pct.Mul(pct, big.NewInt(10))
		pct.Add(pct, big.NewInt(int64(c-'0')))
	}
	if neg {
		pct.Neg(pct)
	}
	if !pct.IsInt64() {
		return nil, nil, false // strconv.Atoi's range on 64-bit platforms
	}
	// ceil(pct*total/100) = -floor(-pct*total/100); big.Int.Div is
	// Euclidean, so it floors for the positive divisor 100.
	n = new(big.Int).Mul(pct, big.NewInt(int64(total)))
	n.Neg(n)
	n.Div(n, big.NewInt(100))
	return n.Neg(n), pct, true
}

// float64Exact reports whether |pct*total| < 2^53: there apimachinery's
// float64 arithmetic is exact and its rounded-up quotient equals the
// integer one (a non-integer quotient below 2^47 is at least 0.01 away from
// an integer, more than half an ulp).
func float64Exact(pct *big.Int, total int) bool {
	if pct == nil {
		return true
	}
	prod := new(big.Int).Mul(pct, big.NewInt(int64(total)))
	return prod.CmpAbs(new(big.Int).Lsh(big.NewInt(1), 53)) < 0
}

func fuzzBudget(f *testing.F, fn func(*appsv1.DaemonSet, int) (int, error), forSurge bool) {
	for _, c := range budgetCases {
		f.Add(int64(c.value.Type), c.value.IntVal, c.value.StrVal, int64(c.total))
	}
	f.Fuzz(func(t *testing.T, typ int64, intVal int32, strVal string, total int64) {
		v := &intstr.IntOrString{Type: intstr.Type(typ), IntVal: intVal, StrVal: strVal}
		ds := budgetDS(nil, v)
		if forSurge {
			ds = budgetDS(v, nil)
		}
		got, err := fn(ds, int(total))
		want, pct, ok := naiveBudget(v, int(total))
		if ok != (err == nil) {
			t.Fatalf("value %#v of %d: error = %v, oracle valid = %v", v, total, err, ok)
		}
		if !ok {
			if got != 0 {
				t.Fatalf("value %#v of %d: got %d with an error, want 0", v, total, got)
			}
			return
		}
		// Beyond 2^53 apimachinery's float64 arithmetic rounds, so only
		// validity is compared there.
		if float64Exact(pct, int(total)) && (!want.IsInt64() || int64(got) != want.Int64()) {
			t.Fatalf("value %#v of %d = %d, oracle %s", v, total, got, want)
		}
	})
}

// FuzzSurgeCount compares SurgeCount with a naive oracle: same validity,
// and the same value wherever float64 arithmetic is exact.
func FuzzSurgeCount(f *testing.F) { fuzzBudget(f, rollout.SurgeCount, true) }

// FuzzUnavailableCount is FuzzSurgeCount for UnavailableCount.
func FuzzUnavailableCount(f *testing.F) { fuzzBudget(f, rollout.UnavailableCount, false) }
