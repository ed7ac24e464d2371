package chart_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/utils/ptr"
)

// allOn is every option away from its default: replace mode, the
// ServiceMonitor and PrometheusRule, the rollout-status RBAC in two
// namespaces, a priority class, a digest, hard anti-affinity.
var allOn = set(map[string]any{
	"mode":                               "replace",
	"serviceMonitor.enabled":             true,
	"serviceMonitor.labels":              map[string]any{"release": "prometheus"},
	"prometheusRule.enabled":             true,
	"rolloutStatus.rbac.enabled":         true,
	"rolloutStatus.rbac.namespaces":      []any{"kube-system", "monitoring"},
	"priorityClassName":                  "system-cluster-critical",
	"image.digest":                       "sha256:" + strings.Repeat("ab", 32),
	"podAntiAffinity":                    "hard",
	"extraArgs":                          []any{"--kube-api-qps=100"},
	"serviceAccount.annotations":         map[string]any{"example.com/role": "x"},
	"metrics.service.annotations":        map[string]any{"example.com/scrape": "true"},
	"podDisruptionBudget.maxUnavailable": "50%",
})

// TestLint runs helm lint's rules (Chart.yaml, values and schema,
// templates, dependencies) with the default values and with every option
// on; any warning or error fails.
func TestLint(t *testing.T) {
	for _, tt := range []struct {
		name   string
		values map[string]any
	}{
		{"default values", nil},
		{"all on", allOn},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The chart names no image until a release publishes one.
			l := lint.All(chartDir, withImage(tt.values), releaseNamespace, false)
			for _, m := range l.Messages {
				if m.Severity >= support.WarningSev {
					t.Errorf("helm lint: %s", m)
				} else {
					t.Logf("helm lint: %s", m)
				}
			}
		})
	}
}

// kinds lists the objects' "Kind name" (namespaced ones as Kind ns/name).
func kinds(objs []object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.String())
	}
	slices.Sort(out)
	return out
}

func TestRenderedObjects(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]any
		want   []string
	}{
		{
			name: "default values",
			want: []string{
				"ClusterRole/daemonplan-controller-companion",
				"ClusterRoleBinding/daemonplan-controller-companion",
				"Deployment/daemonplan-system/daemonplan-controller",
				"PodDisruptionBudget/daemonplan-system/daemonplan-controller",
				"Role/daemonplan-system/daemonplan-controller-leader-election",
				"RoleBinding/daemonplan-system/daemonplan-controller-leader-election",
				"Service/daemonplan-system/daemonplan-controller-metrics",
				"ServiceAccount/daemonplan-system/daemonplan-controller",
			},
		},
		{
			name:   "all on",
			values: allOn,
			want: []string{
				"ClusterRole/daemonplan-controller-companion",
				"ClusterRole/daemonplan-controller-replace",
				"ClusterRole/daemonplan-controller-rollout-status-nodes",
				"ClusterRoleBinding/daemonplan-controller-companion",
				"ClusterRoleBinding/daemonplan-controller-replace",
				"ClusterRoleBinding/daemonplan-controller-rollout-status-nodes",
				"Deployment/daemonplan-system/daemonplan-controller",
				"PodDisruptionBudget/daemonplan-system/daemonplan-controller",
				"PrometheusRule/daemonplan-system/daemonplan-controller",
				"Role/daemonplan-system/daemonplan-controller-leader-election",
				"Role/kube-system/daemonplan-controller-rollout-status",
				"Role/monitoring/daemonplan-controller-rollout-status",
				"RoleBinding/daemonplan-system/daemonplan-controller-leader-election",
				"RoleBinding/kube-system/daemonplan-controller-rollout-status",
				"RoleBinding/monitoring/daemonplan-controller-rollout-status",
				"Service/daemonplan-system/daemonplan-controller-metrics",
				"ServiceAccount/daemonplan-system/daemonplan-controller",
				"ServiceAccount/kube-system/daemonplan-rollout-status",
				"ServiceAccount/monitoring/daemonplan-rollout-status",
				"ServiceMonitor/daemonplan-system/daemonplan-controller",
			},
		},
		{
			name: "no Service, no PDB, an existing ServiceAccount",
			values: set(map[string]any{
				"metrics.service.enabled":     false,
				"podDisruptionBudget.enabled": false,
				"serviceAccount.create":       false,
				"serviceAccount.name":         "existing",
			}),
			want: []string{
				"ClusterRole/daemonplan-controller-companion",
				"ClusterRoleBinding/daemonplan-controller-companion",
				"Deployment/daemonplan-system/daemonplan-controller",
				"Role/daemonplan-system/daemonplan-controller-leader-election",
				"RoleBinding/daemonplan-system/daemonplan-controller-leader-election",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := mustRender(t, tt.values).objects(t)
			if diff := cmp.Diff(tt.want, kinds(objs)); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
			t.Logf("%s: %d objects rendered", tt.name, len(objs))
		})
	}
}

// grants lists what the rendered roles bound to subject grant, one
// "group/resource verb" per rule, sorted; the bindings must name roles of
// the render.
func grants(t *testing.T, objs []object, subject rbacv1.Subject) []string {
	t.Helper()
	rules := map[string][]rbacv1.PolicyRule{}
	for _, o := range objs {
		switch o.kind {
		case "ClusterRole":
			var r rbacv1.ClusterRole
			o.decode(t, &r)
			rules["ClusterRole/"+r.Name] = r.Rules
		case "Role":
			var r rbacv1.Role
			o.decode(t, &r)
			rules["Role/"+r.Namespace+"/"+r.Name] = r.Rules
		}
	}
	var out []string
	for _, o := range objs {
		var ref rbacv1.RoleRef
		var subjects []rbacv1.Subject
		var key string
		switch o.kind {
		case "ClusterRoleBinding":
			var b rbacv1.ClusterRoleBinding
			o.decode(t, &b)
			ref, subjects, key = b.RoleRef, b.Subjects, "ClusterRole/"+b.RoleRef.Name
		case "RoleBinding":
			var b rbacv1.RoleBinding
			o.decode(t, &b)
			ref, subjects, key = b.RoleRef, b.Subjects, "Role/"+b.Namespace+"/"+b.RoleRef.Name
			if b.RoleRef.Kind == "ClusterRole" {
				key = "ClusterRole/" + b.RoleRef.Name
			}
		default:
			continue
		}
		rs, ok := rules[key]
		if !ok {
			t.Errorf("%s binds %s %s, which the render lacks", o, ref.Kind, ref.Name)
		}
		if !slices.Contains(subjects, subject) {
			continue
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
	return slices.Compact(out)
}

// The companion's rules: examples/controller/README.md's RBAC section.
var companionGrants = []string{
	"/events create", "/events patch",
	"/nodes list", "/nodes watch",
	"/pods delete", "/pods list", "/pods watch",
	"apps/controllerrevisions list", "apps/controllerrevisions watch",
	"apps/daemonsets list", "apps/daemonsets patch", "apps/daemonsets watch",
	"apps/daemonsets/status patch",
	"coordination.k8s.io/leases create", "coordination.k8s.io/leases get", "coordination.k8s.io/leases update",
}

// What replace mode adds.
var replaceGrants = []string{
	"/pods create", "/pods patch",
	"apps/controllerrevisions create", "apps/controllerrevisions delete", "apps/controllerrevisions patch", "apps/controllerrevisions update",
	"apps/daemonsets get", "apps/daemonsets/status update",
}

func TestRBACPerMode(t *testing.T) {
	controller := rbacv1.Subject{Kind: "ServiceAccount", Name: releaseName, Namespace: releaseNamespace}
	both := slices.Sorted(slices.Values(append(slices.Clone(companionGrants), replaceGrants...)))
	rolloutStatus := []string{
		"/nodes list", "/nodes watch",
		"/pods get", "/pods list", "/pods watch",
		"apps/controllerrevisions get", "apps/controllerrevisions list", "apps/controllerrevisions watch",
		"apps/daemonsets get", "apps/daemonsets list", "apps/daemonsets watch",
	}
	tests := []struct {
		name    string
		values  map[string]any
		subject rbacv1.Subject
		want    []string
	}{
		{name: "companion", subject: controller, want: companionGrants},
		{name: "replace", values: set(map[string]any{"mode": "replace"}), subject: controller, want: both},
		{name: "all on: the controller", values: allOn, subject: controller, want: both},
		{name: "all on: the rollout-status Job in kube-system", values: allOn,
			subject: rbacv1.Subject{Kind: "ServiceAccount", Name: "daemonplan-rollout-status", Namespace: "kube-system"}, want: rolloutStatus},
		{name: "rollout-status RBAC in the release namespace by default", values: set(map[string]any{"rolloutStatus.rbac.enabled": true}),
			subject: rbacv1.Subject{Kind: "ServiceAccount", Name: "daemonplan-rollout-status", Namespace: releaseNamespace}, want: rolloutStatus},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := grants(t, mustRender(t, tt.values).objects(t), tt.subject)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verbs granted to %s/%s (-want +got):\n%s", tt.subject.Namespace, tt.subject.Name, diff)
			}
		})
	}
}

// TestDeployment checks what the Deployment runs: the mode's flags, leader
// election on the Lease the Role covers, the restricted securityContext,
// the probes on the metrics port, and the options.
func TestDeployment(t *testing.T) {
	wantPod := &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr.To(true),
		RunAsUser:      ptr.To[int64](65532),
		RunAsGroup:     ptr.To[int64](65532),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	wantContainer := &corev1.SecurityContext{
		RunAsNonRoot:             ptr.To(true),
		AllowPrivilegeEscalation: ptr.To(false),
		ReadOnlyRootFilesystem:   ptr.To(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	tests := []struct {
		name      string
		values    map[string]any
		wantArgs  []string
		wantImage string
		wantPrio  string
		hard      bool
	}{
		{
			name:      "default values",
			wantArgs:  []string{"--mode=companion", "--leader-elect", "--leader-elect-namespace=daemonplan-system", "--leader-elect-name=daemonplan-controller", "--metrics-addr=:8080", "--workers=2", "-v=0"},
			wantImage: "registry.example.com/you/controller:dev",
		},
		{
			name:      "all on",
			values:    allOn,
			wantArgs:  []string{"--mode=replace", "--leader-elect", "--leader-elect-namespace=daemonplan-system", "--leader-elect-name=daemonplan-controller", "--metrics-addr=:8080", "--workers=2", "-v=0", "--kube-api-qps=100"},
			wantImage: "registry.example.com/you/controller@sha256:" + strings.Repeat("ab", 32),
			wantPrio:  "system-cluster-critical",
			hard:      true,
		},
		{
			name:      "a tag, another port",
			values:    set(map[string]any{"image.repository": "ghcr.io/example/controller", "image.tag": "v0.2.0", "metrics.port": 9090}),
			wantArgs:  []string{"--mode=companion", "--leader-elect", "--leader-elect-namespace=daemonplan-system", "--leader-elect-name=daemonplan-controller", "--metrics-addr=:9090", "--workers=2", "-v=0"},
			wantImage: "ghcr.io/example/controller:v0.2.0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := mustRender(t, tt.values).objects(t)
			var dep appsv1.Deployment
			only(t, objs, "Deployment", "").decode(t, &dep)
			var lease rbacv1.Role
			only(t, objs, "Role", releaseName+"-leader-election").decode(t, &lease)
			spec := dep.Spec.Template.Spec
			if len(spec.Containers) != 1 {
				t.Fatalf("%d containers", len(spec.Containers))
			}
			c := spec.Containers[0]
			if diff := cmp.Diff(tt.wantArgs, c.Args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if c.Image != tt.wantImage || spec.PriorityClassName != tt.wantPrio {
				t.Errorf("image %q, priorityClassName %q; want %q, %q", c.Image, spec.PriorityClassName, tt.wantImage, tt.wantPrio)
			}
			if lease.Namespace != dep.Namespace {
				t.Errorf("the Lease Role is in %s, the Lease (--leader-elect-namespace) in %s", lease.Namespace, dep.Namespace)
			}
			if got := ptr.Deref(dep.Spec.Replicas, 0); got != 2 {
				t.Errorf("replicas %d, want 2", got)
			}
			if spec.ServiceAccountName != releaseName {
				t.Errorf("serviceAccountName %q", spec.ServiceAccountName)
			}
			if diff := cmp.Diff(wantPod, spec.SecurityContext); diff != "" {
				t.Errorf("pod securityContext (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantContainer, c.SecurityContext); diff != "" {
				t.Errorf("container securityContext (-want +got):\n%s", diff)
			}
			if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" ||
				c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
				t.Errorf("probes: liveness %+v, readiness %+v; want /healthz and /readyz", c.LivenessProbe, c.ReadinessProbe)
			}
			if len(c.Ports) != 1 || c.Ports[0].Name != "metrics" || !slices.Contains(c.Args, "--metrics-addr=:"+strconv.Itoa(int(c.Ports[0].ContainerPort))) {
				t.Errorf("ports %+v do not match the args' --metrics-addr", c.Ports)
			}
			if c.Resources.Requests.Cpu().IsZero() || c.Resources.Limits.Memory().IsZero() {
				t.Errorf("resources %+v", c.Resources)
			}
			anti := spec.Affinity.PodAntiAffinity
			hard := len(anti.RequiredDuringSchedulingIgnoredDuringExecution) == 1 && anti.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey == "kubernetes.io/hostname"
			soft := len(anti.PreferredDuringSchedulingIgnoredDuringExecution) == 1 && anti.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.TopologyKey == "kubernetes.io/hostname"
			if hard != tt.hard || soft == tt.hard {
				t.Errorf("podAntiAffinity %+v, want hard=%v", anti, tt.hard)
			}
		})
	}
}

// TestNotes checks what helm install prints after installing.
func TestNotes(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]any
		want   []string
	}{
		{"default values", nil, []string{"in companion mode", "Lease daemonplan-system/daemonplan-controller", "rollout.daemonplan.io/max-unavailable", "service/daemonplan-controller-metrics"}},
		{"all on", allOn, []string{"in replace mode", "--controllers=*,-daemonset-controller", "ServiceMonitor daemonplan-controller", "daemonplan-rollout-status in\nkube-system, monitoring"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notes := mustRender(t, tt.values).notes
			for _, w := range tt.want {
				if !strings.Contains(notes, w) {
					t.Errorf("NOTES.txt lacks %q:\n%s", w, notes)
				}
			}
		})
	}
}
