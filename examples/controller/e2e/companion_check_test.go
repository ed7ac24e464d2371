package e2e

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestZoneRolloutCheck covers the zone-order bound the companion scenario
// evaluates on every pod event; it needs no cluster.
func TestZoneRolloutCheck(t *testing.T) {
	zones := []string{"a", "b"}
	nodes := zonedNodes(zones, 2) // a-000 a-001 b-000 b-001
	pod := func(node, hash string, ready, deleting bool) *corev1.Pod {
		p := testPod(node+"-"+hash, node, ready, deleting)
		p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
		return p
	}
	state := func(pods ...*corev1.Pod) map[string]*corev1.Pod {
		m := map[string]*corev1.Pod{}
		for _, p := range pods {
			m[p.Name] = p
		}
		return m
	}
	steps := []struct {
		name        string
		pods        map[string]*corev1.Pod
		wantStarted []string
		want        string // substring of the violation; "" for none
	}{
		{name: "all old", pods: state(pod("a-000", "v1", true, false), pod("a-001", "v1", true, false), pod("b-000", "v1", true, false), pod("b-001", "v1", true, false))},
		{name: "a-000 starts", pods: state(pod("a-000", "v1", true, true), pod("a-001", "v1", true, false), pod("b-000", "v1", true, false), pod("b-001", "v1", true, false)),
			wantStarted: []string{"a-000"}},
		{name: "a-000 updated", pods: state(pod("a-000", "v2", true, false), pod("a-001", "v1", true, false), pod("b-000", "v1", true, false), pod("b-001", "v1", true, false)),
			wantStarted: []string{"a-000"}},
		{name: "b-000 starts before a-001", pods: state(pod("a-000", "v2", true, false), pod("a-001", "v1", true, false), pod("b-001", "v1", true, false)),
			wantStarted: []string{"a-000", "b-000"}, want: "node b-000 (b) started while a-001 (a)"},
	}
	var started []string
	check := zoneRolloutCheck("agent", "v1", nodes, zones, 1, &started)
	for _, s := range steps {
		got := check(s.pods)
		if (s.want == "") != (got == "") || !strings.Contains(got, s.want) {
			t.Errorf("%s: check = %q, want %q", s.name, got, s.want)
		}
		if strings.Join(started, " ") != strings.Join(s.wantStarted, " ") {
			t.Errorf("%s: started %q, want %q", s.name, started, s.wantStarted)
		}
	}
}
