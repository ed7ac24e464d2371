package rollout_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// policyNodes returns nodes n0..n<k-1>, each with one pod of kind kinds[i].
func policyNodes(kinds ...podKind) []rollout.Node {
	nodes := make([]rollout.Node, len(kinds))
	for i, k := range kinds {
		name := fmt.Sprintf("n%d", i)
		nodes[i] = rollout.Node{Name: name, ShouldRun: true, Pods: []*corev1.Pod{stepPod("p-"+name, name, k)}}
	}
	return nodes
}

func stepNodes(st rollout.Step) string {
	var out []string
	for _, c := range st.Creates {
		out = append(out, "+"+c.NodeName)
	}
	for _, d := range st.Deletes {
		out = append(out, "-"+d.NodeName)
	}
	return strings.Join(out, " ")
}

func TestRollingUpdatePolicy(t *testing.T) {
	five := []podKind{oldAvail, oldAvail, oldAvail, oldAvail, oldAvail}
	tests := []struct {
		name       string
		maxU, surg int
		kinds      []podKind
		hold       []bool  // Node.Frozen of each node
		rank       []int32 // Node.Rank of each node
		domain     []int32 // Node.Domain of each node
		p          rollout.Policy
		want       string
		wantPolicy *rollout.StepPolicy
	}{
		{name: "zero policy", maxU: 2, kinds: five, want: "-n0 -n1", wantPolicy: &rollout.StepPolicy{Remaining: 5}},
		{name: "partition 4", maxU: 5, kinds: five, p: rollout.Policy{Partition: 4}, want: "-n0",
			wantPolicy: &rollout.StepPolicy{Partition: 4, Remaining: 5}},
		{name: "partition counts updated nodes as done", maxU: 5, kinds: []podKind{newAvail, newAvail, oldAvail, oldAvail, oldAvail},
			p: rollout.Policy{Partition: 2}, want: "-n2", wantPolicy: &rollout.StepPolicy{Partition: 2, Remaining: 3}},
		{name: "hold", maxU: 5, kinds: five, hold: []bool{true, false, true, false, true}, want: "-n1 -n3",
			wantPolicy: &rollout.StepPolicy{Remaining: 2, Held: 3}},
		{name: "rank", maxU: 2, kinds: five, rank: []int32{4, 3, 2, 1, 0}, want: "-n3 -n4",
			wantPolicy: &rollout.StepPolicy{Remaining: 5}},
		{name: "domains", maxU: 5, kinds: five, domain: []int32{1, 1, 2, 2, 0}, p: rollout.Policy{DomainMaxUnavailable: ip(1)},
			want: "-n0 -n2 -n4", wantPolicy: &rollout.StepPolicy{Remaining: 5}},
		{name: "domain budget without domains: one domain", maxU: 5, kinds: five, p: rollout.Policy{DomainMaxUnavailable: ip(2)},
			want: "-n0 -n1", wantPolicy: &rollout.StepPolicy{Remaining: 5}},
		{name: "strict", maxU: 1, kinds: []podKind{oldUnavail, oldUnavail, oldAvail}, p: rollout.Policy{Strict: true}, want: "-n0",
			wantPolicy: &rollout.StepPolicy{Remaining: 3}},
		{name: "strict, domains: an unavailable pod left in a full domain keeps its slot", maxU: 3,
			kinds: []podKind{oldUnavail, oldUnavail, oldAvail, oldAvail}, domain: []int32{1, 1, 2, 0},
			p: rollout.Policy{Strict: true, DomainMaxUnavailable: ip(1)}, want: "-n0 -n2",
			wantPolicy: &rollout.StepPolicy{Remaining: 4}},
		{name: "surge partition", surg: 5, kinds: five, p: rollout.Policy{Partition: 3}, want: "+n0 +n1",
			wantPolicy: &rollout.StepPolicy{Partition: 3, Remaining: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := policyNodes(tt.kinds...)
			for i := range nodes {
				if tt.hold != nil {
					nodes[i].Frozen = tt.hold[i]
				}
				if tt.rank != nil {
					nodes[i].Rank = tt.rank[i]
				}
				if tt.domain != nil {
					nodes[i].Domain = tt.domain[i]
				}
			}
			st, err := rollout.RollingUpdatePolicy(stepDS(ip(tt.maxU), ip(tt.surg)), nodes, newHash, stepNow, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if got := stepNodes(st); got != tt.want {
				t.Errorf("step = %q, want %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.wantPolicy, st.Policy); diff != "" {
				t.Errorf("Policy (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStrictNumUnavailable: under Strict (maxSurge 0), Step.NumUnavailable
// counts every unavailable old pod, replaced or left, as upstream's step
// does, so that MaxUnavailable - NumUnavailable is the room the available
// pods had. Before the fix, a left pod was not counted (1, 1 and 0).
func TestStrictNumUnavailable(t *testing.T) {
	tests := []struct {
		name   string
		maxU   int
		kinds  []podKind
		domain []int32
		p      rollout.Policy
		want   int
	}{
		{name: "upstream", maxU: 1, kinds: []podKind{oldUnavail, oldUnavail, oldAvail}, want: 2},
		{name: "strict, left by the budget", maxU: 1, kinds: []podKind{oldUnavail, oldUnavail, oldAvail},
			p: rollout.Policy{Strict: true}, want: 2},
		{name: "strict, left by its domain", maxU: 3, kinds: []podKind{oldUnavail, oldUnavail, oldAvail, oldAvail},
			domain: []int32{1, 1, 2, 0}, p: rollout.Policy{Strict: true, DomainMaxUnavailable: ip(1)}, want: 2},
		{name: "strict, left by the partition", maxU: 3, kinds: []podKind{oldUnavail, oldUnavail, oldAvail},
			p: rollout.Policy{Strict: true, Partition: 3}, want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := policyNodes(tt.kinds...)
			for i := range tt.domain {
				nodes[i].Domain = tt.domain[i]
			}
			st, err := rollout.RollingUpdatePolicy(stepDS(ip(tt.maxU), ip(0)), nodes, newHash, stepNow, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, st.NumUnavailable); diff != "" {
				t.Errorf("NumUnavailable (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRollingUpdatePolicyErrors(t *testing.T) {
	tests := []struct {
		name string
		p    rollout.Policy
		want string
	}{
		{"negative partition", rollout.Policy{Partition: -1}, `policy.partition: Invalid value: -1`},
		{"bad domain budget", rollout.Policy{DomainMaxUnavailable: sp("x%")}, `policy.domainBudget: Invalid value: "x%"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rollout.RollingUpdatePolicy(stepDS(ip(1), ip(0)), policyNodes(oldAvail, oldAvail), newHash, stepNow, tt.p)
			want := tt.want
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error = %v, want prefix %q", err, want)
			}
		})
	}
}

// A partition of 2 over four nodes: the step replaces the first two nodes
// of the order and keeps the last two; Step.Policy says how many remain.
func ExampleRollingUpdatePolicy() {
	ds := stepDS(ip(4), ip(0))
	nodes := policyNodes(oldAvail, oldAvail, oldAvail, oldAvail)
	st, _ := rollout.RollingUpdatePolicy(ds, nodes, newHash, stepNow, rollout.Policy{Partition: 2})
	fmt.Println(stepNodes(st))
	fmt.Printf("remaining %d, partition %d\n", st.Policy.Remaining, st.Policy.Partition)
	// Output:
	// -n0 -n1
	// remaining 4, partition 2
}
