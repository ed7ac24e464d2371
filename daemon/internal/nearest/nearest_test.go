package nearest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 2, 0},
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 2, 3},
		{"rollout.daemonplan.io", "rollout.deamonplan.io", 3, 2},
		{"rollout.daemonplan.io", "rollout.daemon-plan.io", 3, 1},
		{"abc", "abcdefgh", 2, 3},
	} {
		if got := Distance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	got, ok := Closest("kube-rbac-prxy", []string{"node-exporter", "kube-rbac-proxy"}, 3)
	if !ok || got != "kube-rbac-proxy" {
		t.Errorf("Closest = %q, %v; want kube-rbac-proxy, true", got, ok)
	}
	if got, ok := Closest("xyz", []string{"node-exporter"}, 2); ok {
		t.Errorf("Closest = %q, true; want none", got)
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("rollout.daemonplan.io", "rollout.deamonplan.io")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := Distance(a, b, 3)
		if d < 0 || d > 4 || d != Distance(b, a, 3) || (a == b) != (d == 0) {
			t.Fatalf("Distance(%q, %q) = %d, reverse %d", a, b, d, Distance(b, a, 3))
		}
	})
}
