package affinity_test

import (
	"fmt"
	"testing"

	"github.com/daemonplan/daemonplan/affinity"
)

// TestTruthZeroIsUnknown: a SetVerdict no one filled in, such as the one a
// Yes placement leaves empty, must not read as Never.
func TestTruthZeroIsUnknown(t *testing.T) {
	var zero affinity.SetVerdict
	if zero.Truth == affinity.Never || zero.Truth == affinity.Sometimes || zero.Truth == affinity.Always {
		t.Errorf("the zero Truth is %v, want none of Never, Sometimes, Always", zero.Truth)
	}
	tests := []struct {
		truth affinity.Truth
		want  string
	}{
		{affinity.Truth(0), "Unknown"},
		{affinity.Never, "Never"},
		{affinity.Sometimes, "Sometimes"},
		{affinity.Always, "Always"},
	}
	for _, tt := range tests {
		if got := tt.truth.String(); got != tt.want {
			t.Errorf("Truth(%d).String() = %q, want %q", int(tt.truth), got, tt.want)
		}
	}
	if got := fmt.Sprintf("%+v", zero); got != "{Truth:Unknown NodeSelector:false NodeSelectorKey: Term:0 Requirement:0 Field:false Key:}" {
		t.Errorf("the zero SetVerdict prints %s", got)
	}
}
