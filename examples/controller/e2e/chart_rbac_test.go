package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The companion scenarios install the Helm chart's default render — the
// plain manifests of examples/controller/deploy are that render written out
// (examples/controller/chart's TestPlainManifests keeps them so) — and run
// the companion with its ServiceAccount's token, so that the API server
// authorizes every request with the chart's RBAC. trackChartRBAC then reads
// the audit log: a request the chart does not grant fails the scenario,
// and the suite's log says which granted verbs the companion used.

// chartTally gathers, over the companion scenarios, what the chart granted
// the companion and what the companion did with it.
type chartTally struct {
	mu        sync.Mutex
	scenarios int
	// objects is the number of objects the chart rendered (the plain
	// manifests' Namespace aside, which Helm takes from --namespace).
	objects int
	// granted, used and forbidden are keyed "group/resource verb" (the
	// core group empty: "/pods delete").
	granted   map[string]bool
	used      map[string]int
	forbidden map[string]int
}

var chartRBAC = chartTally{granted: map[string]bool{}, used: map[string]int{}, forbidden: map[string]int{}}

// grantedTo returns what the roles in objs bound to the ServiceAccount
// namespace/name grant, as "group/resource verb" keys.
func grantedTo(objs []runtime.Object, namespace, name string) map[string]bool {
	rules := map[string][]rbacv1.PolicyRule{}
	for _, o := range objs {
		switch r := o.(type) {
		case *rbacv1.ClusterRole:
			rules["ClusterRole/"+r.Name] = r.Rules
		case *rbacv1.Role:
			rules["Role/"+r.Namespace+"/"+r.Name] = r.Rules
		}
	}
	sa := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace}
	out := map[string]bool{}
	grant := func(subjects []rbacv1.Subject, role string) {
		if !slices.Contains(subjects, sa) {
			return
		}
		for _, r := range rules[role] {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						out[g+"/"+res+" "+v] = true
					}
				}
			}
		}
	}
	for _, o := range objs {
		switch b := o.(type) {
		case *rbacv1.ClusterRoleBinding:
			grant(b.Subjects, "ClusterRole/"+b.RoleRef.Name)
		case *rbacv1.RoleBinding:
			role := "Role/" + b.Namespace + "/" + b.RoleRef.Name
			if b.RoleRef.Kind == "ClusterRole" {
				role = "ClusterRole/" + b.RoleRef.Name
			}
			grant(b.Subjects, role)
		}
	}
	return out
}

// rbacAuditEvent is the part of an audit event trackChartRBAC reads.
type rbacAuditEvent struct {
	AuditID string `json:"auditID"`
	Stage   string `json:"stage"`
	Verb    string `json:"verb"`
	User    struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		APIGroup    string `json:"apiGroup"`
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	Annotations map[string]string `json:"annotations"`
}

// trackChartRBAC checks, when the test ends (after the companion's
// replicas stopped, before the control plane does), every request the
// companion made: one RBAC refused ("authorization.k8s.io/decision":
// "forbid") fails the test; the verbs used go to the suite's tally. objs
// are the objects applied.
func (c *cluster) trackChartRBAC(objs []runtime.Object) {
	granted := grantedTo(objs, companionNamespace, companionSA)
	rendered := 0
	for _, o := range objs {
		if _, ok := o.(*corev1.Namespace); !ok {
			rendered++
		}
	}
	c.t.Cleanup(func() {
		used, forbidden, err := companionRequests(c.auditLog)
		if err != nil {
			c.t.Errorf("chart RBAC: %v", err)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(forbidden)) {
			c.t.Errorf("the chart's RBAC refused the companion %s ×%d (examples/controller/chart/daemonplan-controller/templates)", k, forbidden[k])
		}
		chartRBAC.mu.Lock()
		defer chartRBAC.mu.Unlock()
		chartRBAC.scenarios++
		chartRBAC.objects = rendered
		maps.Copy(chartRBAC.granted, granted)
		for k, v := range used {
			chartRBAC.used[k] += v
		}
		for k, v := range forbidden {
			chartRBAC.forbidden[k] += v
		}
	})
}

// companionRequests counts the companion's resource requests in the audit
// log at path, once each (a watch is logged when it starts and when it
// ends), by "group/resource verb": those RBAC allowed and those it
// refused.
func companionRequests(path string) (used, forbidden map[string]int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	used, forbidden = map[string]int{}, map[string]int{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev rbacAuditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, nil, fmt.Errorf("audit log line %q: %w", sc.Text(), err)
		}
		if ev.User.Username != companionUser || ev.ObjectRef == nil || ev.ObjectRef.Resource == "" || seen[ev.AuditID] {
			continue
		}
		seen[ev.AuditID] = true
		res := ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			res += "/" + ev.ObjectRef.Subresource
		}
		key := ev.ObjectRef.APIGroup + "/" + res + " " + ev.Verb
		if ev.Annotations["authorization.k8s.io/decision"] == "forbid" {
			forbidden[key]++
		} else {
			used[key]++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("audit log: %w", err)
	}
	return used, forbidden, nil
}

// printChartRBAC prints, when a companion scenario ran, "chart: N objects
// rendered; rbac: V of G granted verbs used, F forbidden" — over all the
// companion scenarios — and the granted verbs never used.
func printChartRBAC(w io.Writer) {
	chartRBAC.mu.Lock()
	defer chartRBAC.mu.Unlock()
	if chartRBAC.scenarios == 0 {
		return
	}
	var usedGranted, unused []string
	for _, k := range slices.Sorted(maps.Keys(chartRBAC.granted)) {
		if chartRBAC.used[k] > 0 {
			usedGranted = append(usedGranted, k)
		} else {
			unused = append(unused, k)
		}
	}
	forbidden := 0
	for _, v := range chartRBAC.forbidden {
		forbidden += v
	}
	fmt.Fprintf(w, "chart: %d objects rendered; rbac: %d of %d granted verbs used, %d forbidden\n",
		chartRBAC.objects, len(usedGranted), len(chartRBAC.granted), forbidden)
	if len(unused) > 0 {
		fmt.Fprintf(w, "chart: granted but not used in %d companion scenarios: %s\n", chartRBAC.scenarios, strings.Join(unused, ", "))
	}
}
