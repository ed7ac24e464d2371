package progressive_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// TestAnnotationBounds probes each bounded value at and past its bounds:
// a value past one is refused, its error naming the bound.
func TestAnnotationBounds(t *testing.T) {
	tests := []struct {
		key, value string
		// wantErr is a part of the error's text; "" for none.
		wantErr string
	}{
		{pfx + "wave-bake", "0s", ""},
		{pfx + "wave-bake", "1s", ""},
		{pfx + "wave-bake", "168h", ""},
		{pfx + "wave-bake", "168h0m1s", "from 1s to 168h (7 days)"},
		{pfx + "wave-bake", "2562047h", "from 1s to 168h (7 days)"}, // finding 6
		{pfx + "wave-bake", "1ns", "from 1s to 168h"},
		{pfx + "wave-bake", "-1s", "from 1s to 168h"},
		{pfx + "progress-deadline", "1ns", "from 1s to 720h (30 days)"}, // finding 6
		{pfx + "progress-deadline", "999ms", "from 1s to 720h"},
		{pfx + "progress-deadline", "1s", ""},
		{pfx + "progress-deadline", "720h", ""},
		{pfx + "progress-deadline", "721h", "from 1s to 720h"},
		{pfx + "ready-timeout", "1s", ""},
		{pfx + "ready-timeout", "24h", ""},
		{pfx + "ready-timeout", "25h", "from 1s to 24h (1 day)"},
		{pfx + "ready-timeout", "500ms", "from 1s to 24h"},
		{pfx + "max-restarts", "0", ""},
		{pfx + "max-restarts", "1000", ""},
		{pfx + "max-restarts", "1001", "from 0 to 1000"},
		{pfx + "canary", "100000", ""},
		{pfx + "canary", "100001", "from 1 to 100000"},
		{pfx + "canary", "0", "from 1 to 100000"},
		{pfx + "partition", "0", ""},
		{pfx + "partition", "100000", ""},
		{pfx + "partition", "100001", "from 0 to 100000"},
		{pfx + "partition", "101%", "from 0% to 100%"},
		{pfx + "max-unavailable", "100001", "from 1 to 100000"},
		{pfx + "domain-max-unavailable", "100001", "from 1 to 100000"},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			in := map[string]string{tt.key: tt.value}
			switch tt.key {
			case pfx + "wave-bake":
				in[pfx+"order-by"] = "zone"
			case pfx + "domain-max-unavailable":
				in[pfx+"domain"] = "zone"
			}
			a, err := progressive.ParseAnnotations(in)
			if tt.wantErr == "" {
				if err != nil || a == nil {
					t.Fatalf("ParseAnnotations() = %v, %v; want no error", a, err)
				}
				return
			}
			var got []string
			for _, fe := range fieldErrs(t, err) {
				got = append(got, fe.Field)
			}
			if diff := cmp.Diff([]string{annPath(tt.key)}, got); diff != "" {
				t.Fatalf("error fields (-want +got):\n%s\nerror: %v", diff, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not name the bound %q", err, tt.wantErr)
			}
		})
	}
	if progressive.MaxWaveBake != 7*24*time.Hour || progressive.MinDuration != time.Second {
		t.Errorf("the documented bounds changed: update the keys' docs")
	}
}
