package deploy_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/examples/controller/deploy"
)

// rules lists the verbs a set of RBAC objects grants, one
// "group/resource verb" per line, sorted.
func rules(objs []runtime.Object) []string {
	var out []string
	for _, o := range objs {
		var rs []rbacv1.PolicyRule
		switch r := o.(type) {
		case *rbacv1.ClusterRole:
			rs = r.Rules
		case *rbacv1.Role:
			rs = r.Rules
		}
		for _, r := range rs {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						out = append(out, g+"/"+res+" "+v)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestCompanionManifests checks what the manifests promise: least
// privilege for companion mode (the exact verbs), bindings to the one
// ServiceAccount, and a Deployment of two replicas in companion mode with
// leader election on the Lease the Role covers.
func TestCompanionManifests(t *testing.T) {
	objs, err := deploy.Companion()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/events create", "/events patch",
		"/nodes list", "/nodes watch",
		"/pods delete", "/pods list", "/pods watch",
		"apps/controllerrevisions list", "apps/controllerrevisions watch",
		"apps/daemonsets list", "apps/daemonsets patch", "apps/daemonsets watch",
		"apps/daemonsets/status patch",
		"coordination.k8s.io/leases create", "coordination.k8s.io/leases get", "coordination.k8s.io/leases update",
	}
	if diff := cmp.Diff(want, rules(objs)); diff != "" {
		t.Errorf("companion RBAC (-want,+got):\n%s", diff)
	}
	var sa *corev1.ServiceAccount
	var dep *appsv1.Deployment
	var leaseNS string
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.ServiceAccount:
			sa = o
		case *appsv1.Deployment:
			dep = o
		case *rbacv1.Role:
			leaseNS = o.Namespace
		}
	}
	if sa == nil || dep == nil {
		t.Fatalf("no ServiceAccount (%v) or Deployment (%v)", sa, dep)
	}
	for _, o := range objs {
		var subjects []rbacv1.Subject
		switch b := o.(type) {
		case *rbacv1.ClusterRoleBinding:
			subjects = b.Subjects
		case *rbacv1.RoleBinding:
			subjects = b.Subjects
		default:
			continue
		}
		if len(subjects) != 1 || subjects[0].Kind != "ServiceAccount" || subjects[0].Name != sa.Name || subjects[0].Namespace != sa.Namespace {
			t.Errorf("%T binds %+v, want the ServiceAccount %s/%s", o, subjects, sa.Namespace, sa.Name)
		}
	}
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != 2 {
		t.Errorf("replicas %v, want 2", dep.Spec.Replicas)
	}
	if dep.Namespace != sa.Namespace || dep.Spec.Template.Spec.ServiceAccountName != sa.Name {
		t.Errorf("Deployment %s runs as %q", dep.Namespace, dep.Spec.Template.Spec.ServiceAccountName)
	}
	args := dep.Spec.Template.Spec.Containers[0].Args
	for _, a := range []string{"--mode=companion", "--leader-elect", "--leader-elect-namespace=" + leaseNS} {
		if !slices.Contains(args, a) {
			t.Errorf("args %q lack %s", args, a)
		}
	}
}

func TestReplaceManifests(t *testing.T) {
	objs, err := deploy.Replace()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/pods create", "/pods patch",
		"apps/controllerrevisions create", "apps/controllerrevisions delete", "apps/controllerrevisions patch", "apps/controllerrevisions update",
		"apps/daemonsets get", "apps/daemonsets/status update",
	}
	if diff := cmp.Diff(want, rules(objs)); diff != "" {
		t.Errorf("replace RBAC on top of companion's (-want,+got):\n%s", diff)
	}
	companion, err := deploy.Companion()
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for _, o := range companion {
		if d, ok := o.(*appsv1.Deployment); ok {
			name = d.Namespace + "/" + d.Name
		}
	}
	var deps []string
	for _, o := range objs {
		if d, ok := o.(*appsv1.Deployment); ok {
			deps = append(deps, d.Namespace+"/"+d.Name)
			if !slices.Contains(d.Spec.Template.Spec.Containers[0].Args, "--mode=replace") {
				t.Errorf("replace/'s Deployment runs %q", d.Spec.Template.Spec.Containers[0].Args)
			}
		}
	}
	if diff := cmp.Diff([]string{name}, deps); diff != "" {
		t.Errorf("replace/ must replace the companion's Deployment (-want,+got):\n%s", diff)
	}
}

// TestArgoCDConfigMapEmbedsHealthLua keeps argocd-cm.yaml's script and
// health.lua the same.
func TestArgoCDConfigMapEmbedsHealthLua(t *testing.T) {
	script, err := deploy.File("argocd/health.lua")
	if err != nil {
		t.Fatal(err)
	}
	data, err := deploy.File("argocd/argocd-cm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(data, &cm); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(script), cm.Data["resource.customizations.health.apps_DaemonSet"]); diff != "" {
		t.Errorf("argocd-cm.yaml's script differs from health.lua (-health.lua +argocd-cm.yaml):\n%s", diff)
	}
}

func TestHealthLua(t *testing.T) {
	ds := func(strategy appsv1.DaemonSetUpdateStrategyType, ann map[string]string, st appsv1.DaemonSetStatus, conds ...appsv1.DaemonSetCondition) *appsv1.DaemonSet {
		st.Conditions = conds
		return &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: "agent", Generation: 3, Annotations: ann},
			Spec:       appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: strategy}},
			Status:     st,
		}
	}
	c := func(t, status, reason, msg string) appsv1.DaemonSetCondition {
		return appsv1.DaemonSetCondition{Type: appsv1.DaemonSetConditionType(t), Status: corev1.ConditionStatus(status), Reason: reason, Message: msg}
	}
	ann := map[string]string{"rollout.daemonplan.io/max-unavailable": "1"}
	settled := appsv1.DaemonSetStatus{ObservedGeneration: 3, DesiredNumberScheduled: 4, UpdatedNumberScheduled: 2, NumberAvailable: 4}
	complete := c("RolloutProgressing", "True", "RolloutComplete", "4/4 nodes updated (generation 3)")
	notPaused := c("RolloutPaused", "False", "NotPaused", "")
	notBlocked := c("RolloutBlocked", "False", "NotBlocked", "")
	tests := []struct {
		name, want, wantMsg string
		ds                  *appsv1.DaemonSet
	}{
		{name: "RollingUpdate, not yet observed", ds: ds(appsv1.RollingUpdateDaemonSetStrategyType, nil, appsv1.DaemonSetStatus{ObservedGeneration: 2}), want: "Progressing"},
		{name: "RollingUpdate, half updated", ds: ds(appsv1.RollingUpdateDaemonSetStrategyType, nil, settled), want: "Progressing", wantMsg: "2 out of 4"},
		{name: "OnDelete without annotations: the built-in rules", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, nil, settled), want: "Healthy"},
		{name: "companion: no condition yet", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled), want: "Progressing", wantMsg: "companion to report"},
		{name: "companion: complete", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled, complete, notPaused, notBlocked), want: "Healthy", wantMsg: "4/4"},
		{name: "companion: complete for an older generation", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled,
			c("RolloutProgressing", "True", "RolloutComplete", "4/4 nodes updated (generation 2)"), notPaused, notBlocked), want: "Progressing", wantMsg: "observe generation 3"},
		{name: "companion: updating", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled,
			c("RolloutProgressing", "True", "Updating", "zone a: 1/2 updated (wave 1 of 2); 1/4 nodes updated (generation 3)"), notPaused, notBlocked), want: "Progressing", wantMsg: "zone a"},
		{name: "companion: paused", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled,
			c("RolloutProgressing", "False", "Paused", "1/4 nodes updated (generation 3)"), c("RolloutPaused", "True", "PausedByAnnotation", "paused by the annotation"), notBlocked), want: "Suspended"},
		{name: "companion: blocked", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled,
			c("RolloutProgressing", "False", "ProgressDeadlineExceeded", "1/4 nodes updated (generation 3)"),
			c("RolloutPaused", "True", "ProgressDeadlineExceeded", "paused itself"),
			c("RolloutBlocked", "True", "NewRevisionUnavailable", "the new revision is not becoming available on n1")), want: "Degraded", wantMsg: "NewRevisionUnavailable"},
		{name: "companion: blocked by a health gate", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled,
			c("RolloutProgressing", "False", "HealthGateFailed", "1/4 nodes updated; stopped by a health gate (generation 3)"),
			c("RolloutPaused", "True", "HealthGateFailed", "paused itself: a health gate failed on the new revision"),
			c("RolloutBlocked", "True", "HealthGateFailed", "health gate failed: CrashLoopBackOff on pod agent-x (node n1, container agent: 4 restarts)")),
			want: "Degraded", wantMsg: "CrashLoopBackOff on pod agent-x (node n1"},
		{name: "companion: waiting for approval", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled,
			c("RolloutProgressing", "True", "WaitingForApproval", "1/4 nodes updated; waiting for approval after wave canary (kubectl dsplan rollout approve default/agent) (generation 3)"),
			notPaused, notBlocked), want: "Suspended", wantMsg: "kubectl dsplan rollout approve"},
		{name: "companion: outside the maintenance windows", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled,
			c("RolloutProgressing", "True", "OutsideWindow", "1/4 nodes updated; outside the maintenance windows until 2026-11-30T08:00:00Z (Mon-Fri 08:00-17:00 UTC) (generation 3)"),
			notPaused, notBlocked), want: "Progressing", wantMsg: "outside the maintenance windows until"},
		{name: "companion: waiting for approval of an older generation", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled,
			c("RolloutProgressing", "True", "WaitingForApproval", "waiting for approval after wave canary (generation 2)"),
			notPaused, notBlocked), want: "Progressing", wantMsg: "observe generation 3"},
		{name: "companion: invalid annotations", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled,
			c("RolloutProgressing", "False", "InvalidAnnotations", "no pod is replaced: metadata.annotations[x] (generation 3)")), want: "Degraded"},
		// The finding 2: a rolled-back change read as Healthy once
		// the restored revision was complete.
		{name: "companion: rolled back", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled,
			c("RolloutProgressing", "False", "RolledBack", "rolled back from revision 5 (h5) to revision 6 (h4) by on-failure: rollback (health gate failed: CrashLoopBackOff on pod agent-x); 4/4 nodes updated (generation 3)"),
			notPaused, notBlocked, c("Stalled", "True", "RolledBack", "rolled back")), want: "Degraded", wantMsg: "rolled back from revision 5 (h5) to revision 6 (h4)"},
		{name: "companion: a completed revision's pods fail: not Degraded", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, settled,
			c("RolloutProgressing", "True", "PodsFailing", "the rollout to revision 6 (h4) completed, and pods of it now fail (generation 3)"),
			notPaused, notBlocked), want: "Progressing", wantMsg: "pods of it now fail"},
		{name: "companion: no status at all", ds: ds(appsv1.OnDeleteDaemonSetStrategyType, ann, appsv1.DaemonSetStatus{}), want: "Progressing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, msg, err := deploy.ArgoCDHealth(tt.ds)
			if err != nil {
				t.Fatal(err)
			}
			if status != tt.want || !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("health = %s %q, want %s with %q", status, msg, tt.want, tt.wantMsg)
			}
		})
	}
}
