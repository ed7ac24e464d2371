package scenario_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/daemon/internal/scenario"
)

// acceptsSlow is the reference for JudgeList: R is accepted when every
// element of want can be struck from a copy of R, what is left can be
// struck from a copy of may, and |R| is within count.
func acceptsSlow(want, may, got []string, count *scenario.Count) bool {
	rest := slices.Clone(got)
	for _, w := range want {
		i := slices.Index(rest, w)
		if i < 0 {
			return false
		}
		rest = slices.Delete(rest, i, i+1)
	}
	pool := slices.Clone(may)
	for _, r := range rest {
		i := slices.Index(pool, r)
		if i < 0 {
			return false
		}
		pool = slices.Delete(pool, i, i+1)
	}
	return count == nil || (len(got) >= count.Min && len(got) <= count.Max)
}

// split turns a fuzz string into a small list of names over a small
// alphabet, so that names repeat often: each byte is one name.
func split(s string) []string {
	var out []string
	for i := 0; i < len(s) && i < 12; i++ {
		out = append(out, string(rune('a'+s[i]%4)))
	}
	return out
}

// FuzzJudgeList compares JudgeList with the strike-out reference, and checks
// that it reports nothing exactly when the reference accepts, that it never
// modifies its input and that it does not depend on the order of R.
func FuzzJudgeList(f *testing.F) {
	f.Add("a", "", "a", 1, 1, true)
	f.Add("ab", "c", "abc", 2, 3, true)
	f.Add("aa", "a", "aaa", 0, 9, true)
	f.Add("a", "b", "bb", 0, 0, false)
	f.Add("", "", "", 0, 0, false)
	f.Fuzz(func(t *testing.T, want, may, got string, lo, hi int, withCount bool) {
		l := scenario.NamedList{Name: "x", Want: split(want), May: split(may)}
		if withCount {
			l.Count = &scenario.Count{Min: lo, Max: hi}
		}
		r := split(got)
		before := strings.Join(r, ",")
		lines := scenario.JudgeList(l, r)
		if strings.Join(r, ",") != before {
			t.Fatalf("JudgeList modified got: %q, was %q", r, before)
		}
		if ok := acceptsSlow(l.Want, l.May, r, l.Count); ok != (len(lines) == 0) {
			t.Fatalf("JudgeList(%+v, %q) = %q, reference accepts = %v", l, r, lines, ok)
		}
		rev := slices.Clone(r)
		slices.Reverse(rev)
		if again := scenario.JudgeList(l, rev); !slices.Equal(again, lines) {
			t.Fatalf("JudgeList depends on order: %q vs %q", lines, again)
		}
	})
}

// FuzzDecode checks that Decode never panics and that whatever it accepts
// has a name and a DaemonSet.
func FuzzDecode(f *testing.F) {
	f.Add(minimal)
	f.Add(strings.Replace(minimal, `"status": null`, `"status": {}`, 1))
	f.Add(strings.Replace(minimal, `"pods": [],`, `"pods": [null], "revisions": [{"data": {"a": [1, 2]}}],`, 1))
	f.Add(`{"name": "x"}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := scenario.Decode([]byte(in))
		if err != nil {
			return
		}
		if s.Name == "" || s.DaemonSet == nil {
			t.Fatalf("Decode(%q) accepted a scenario without name or DaemonSet: %+v", in, s)
		}
	})
}
