package progressive_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// FuzzParseAnnotations parses up to three annotations and checks:
// it never panics and never modifies its input; each field error of an
// error names a key under the prefix (one of the input, or one it needs
// and misses) or a key of the input that misspells the prefix, and an
// error comes with no result; without a key under the prefix and without
// an error the result is nil; a result passes RolloutPolicy.Validate,
// has the health gates on unless health-gates says "false" and an
// OnFailure, formats, and parses back from its format to itself.
func FuzzParseAnnotations(f *testing.F) {
	seeds := [][3][2]string{
		{{pfx + "max-unavailable", "1"}, {pfx + "order-by", "topology.kubernetes.io/zone"}, {pfx + "wave-bake", "5m"}},
		{{pfx + "partition", "10%"}, {pfx + "scope", "zone in (a,b),!spot"}, {pfx + "paused", "true"}},
		{{pfx + "domain", "rack"}, {pfx + "domain-max-unavailable", "25%"}, {pfx + "strict", "true"}},
		{{pfx + "order-by", "zone"}, {pfx + "order-values", "c,b, a"}, {pfx + "progress-deadline", "1h"}},
		{{pfx + "scope", "pool!=a,gpu"}, {pfx + "max-surge", "1"}, {"rollouts.daemonplan.io/partition", "2"}},
		{{pfx + "partition", "x"}, {pfx + "scope", "rank>3"}, {"app", "agent"}},
		{{pfx + "max-unavailable", "0%"}, {pfx + "wave-bake", "-1s"}, {pfx, ""}},
		{{pfx + "canary", "10%"}, {pfx + "order-by", "zone"}, {pfx + "pause-after", "canary, every-wave,a"}},
		{{pfx + "canary", "1"}, {pfx + "pause-after", "every_wave"}, {pfx + "approved", "5d8f9c/topology.kubernetes.io/zone=a"}},
		{{pfx + "health-gates", "false"}, {pfx + "max-restarts", "0"}, {pfx + "ready-timeout", "90s"}},
		{{pfx + "on-failure", "rolback"}, {pfx + "rolled-back-from", "7b6c5d"}, {pfx + "window", "Mon-Fri 08:00-17:00 Europe/Amsterdam"}},
		{{pfx + "on-failure", "rollback"}, {pfx + "approved", "h/!zone"}, {pfx + "pause-afer", "canary"}},
		{{pfx + "domain", "rack"}, {pfx + "domain-max-unavailable", "1"}, {pfx + "canary", "3"}},
	}
	for _, s := range seeds {
		f.Add(s[0][0], s[0][1], s[1][0], s[1][1], s[2][0], s[2][1])
	}
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, k3, v3 string) {
		in := map[string]string{k1: v1, k2: v2, k3: v3}
		before := maps.Clone(in)
		got, err := progressive.ParseAnnotations(in)
		if diff := cmp.Diff(before, in); diff != "" {
			t.Fatalf("input modified (-before +after):\n%s", diff)
		}
		prefixed := false
		for k := range in {
			prefixed = prefixed || strings.HasPrefix(k, pfx)
		}
		if err != nil {
			if got != nil {
				t.Fatalf("error %v with a result %+v", err, got)
			}
			errs := fieldErrs(t, err)
			if len(errs) == 0 {
				t.Fatalf("error %v holds no field error", err)
			}
			for _, fe := range errs {
				// A key under the prefix (a missing one for "needed by"), or
				// a key of the input that misspells the prefix.
				named := strings.HasPrefix(fe.Field, annPath(pfx)[:len(annPath(pfx))-1])
				for k := range in {
					named = named || (fe.Field == annPath(k) && strings.Contains(k, "daemonplan"))
				}
				if !named {
					t.Fatalf("field error %v names no rollout key of the input %q", fe, in)
				}
				if !strings.Contains(err.Error(), fe.Field) {
					t.Fatalf("error text %q does not name %s", err, fe.Field)
				}
			}
			return
		}
		if !prefixed {
			if got != nil {
				t.Fatalf("no key under the prefix, got %+v", got)
			}
			return
		}
		if got == nil {
			t.Fatalf("keys under the prefix, no result and no error")
		}
		if err := got.Policy.Validate(); err != nil {
			t.Fatalf("parsed policy fails Validate: %v", err)
		}
		if got.Gates.Health.On != (in[pfx+"health-gates"] != "false") || got.Gates.Health.ReadyTimeout <= 0 || got.OnFailure == "" {
			t.Fatalf("parsed gates miss their defaults: %+v, on-failure %q", got.Gates.Health, got.OnFailure)
		}
		if c := got.Policy.Canary; c != nil && c.Spread != in[pfx+"domain"] && c.Spread != in[pfx+"order-by"] {
			t.Fatalf("canary spread %q is neither domain nor order-by of %q", c.Spread, in)
		}
		out, err := got.Format()
		if err != nil {
			t.Fatalf("Format() of a parsed value: %v", err)
		}
		again, err := progressive.ParseAnnotations(out)
		if err != nil {
			t.Fatalf("parsing Format()'s %q: %v", out, err)
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("parse(format(x)) != x for %q → %q (-x +again):\n%s", in, out, diff)
		}
	})
}
