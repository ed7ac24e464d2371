package validation_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/validation"
)

// validateCase is one DaemonSet and the API server's answer to creating
// it. The wanted texts are kube-apiserver v1.37.2's own validation's
// (apps/v1 defaults, conversion, ValidateDaemonSet) on the same objects:
// the conformance tool daemon/validation/oracle checks them (see
// TestValidateCasesFile).
type validateCase struct {
	name string
	ds   *appsv1.DaemonSet
	want []string
}

// dsWith returns daemontest's DaemonSet "x" changed by f.
func dsWith(f func(ds *appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := dt.DaemonSet("x")
	f(ds)
	return ds
}

func budgets(unavailable, surge *intstr.IntOrString) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: unavailable, MaxSurge: surge}
	}
}

func ios(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }
func iostr(s string) *intstr.IntOrString {
	v := intstr.FromString(s)
	return &v
}

func nodeAffinity(terms ...corev1.NodeSelectorTerm) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
		}}
	}
}

func fieldTerm(reqs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchFields: reqs}
}

func validateCases() []validateCase {
	negative := int32(-1)
	deadline := int64(30)
	seconds := int64(10)
	return []validateCase{
		{name: "valid", ds: dt.DaemonSet("x")},
		{name: "valid on delete", ds: dt.DaemonSet("x", dt.OnDelete())},
		{name: "valid surge percent", ds: dsWith(budgets(ios("0"), iostr("100%")))},
		{name: "defaults: empty strategy", ds: dsWith(func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{} })},
		{name: "defaults: nil budgets", ds: dsWith(budgets(nil, nil))},
		{
			name: "maxUnavailable above 100%",
			ds:   dsWith(budgets(iostr("150%"), nil)),
			want: []string{`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%`},
		},
		{
			name: "negative maxUnavailable",
			ds:   dsWith(budgets(ios("-1"), ios("0"))),
			want: []string{`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0`},
		},
		{
			name: "negative maxSurge",
			ds:   dsWith(budgets(ios("1"), ios("-2"))),
			want: []string{
				`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: -2: must be greater than or equal to 0`,
				`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: -2: may not be set when maxUnavailable is non-zero`,
			},
		},
		{
			name: "both budgets non-zero",
			ds:   dsWith(budgets(iostr("10%"), ios("1"))),
			want: []string{`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero`},
		},
		{
			name: "both budgets zero",
			ds:   dsWith(budgets(iostr("0%"), ios("0"))),
			want: []string{`spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`},
		},
		{
			name: "malformed percent",
			ds:   dsWith(budgets(iostr("1.5%"), nil)),
			want: []string{
				`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "1.5%": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
				`spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`,
			},
		},
		{
			name: "percent beyond int64",
			ds:   dsWith(budgets(iostr("99999999999999999999%"), nil)),
			want: []string{`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "99999999999999999999%": must not be greater than 100%`},
		},
		{
			name: "on delete ignores rollingUpdate",
			ds:   dsWith(func(ds *appsv1.DaemonSet) { dt.OnDelete()(ds); budgets(iostr("500%"), ios("-1"))(ds) }),
		},
		{
			name: "digits as a string count as non-zero",
			ds:   dsWith(budgets(iostr("2"), ios("1"))),
			want: []string{
				`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "2": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
				`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero`,
			},
		},
		{
			name: "unknown strategy",
			ds:   dsWith(func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.Type = "Canary" }),
			want: []string{`spec.updateStrategy: Unsupported value: {"Type":"Canary","RollingUpdate":{"MaxUnavailable":1,"MaxSurge":0}}: supported values: "RollingUpdate", "OnDelete"`},
		},
		{
			name: "selector misses the template",
			ds:   dsWith(func(ds *appsv1.DaemonSet) { ds.Spec.Selector.MatchLabels = map[string]string{"app": "y"} }),
			want: []string{"spec.template.metadata.labels: Invalid value: {\"app\":\"x\"}: `selector` does not match template `labels`"},
		},
		{
			name: "nil selector",
			ds:   dsWith(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = nil }),
			want: []string{"spec.template.metadata.labels: Invalid value: {\"app\":\"x\"}: `selector` does not match template `labels`"},
		},
		{
			name: "empty selector",
			ds:   dsWith(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} }),
			want: []string{`spec.selector: Invalid value: {}: empty selector is invalid for daemonset`},
		},
		{
			name: "selector operator",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Near", Values: []string{"a"}}}
			}),
			want: []string{`spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator`},
		},
		{
			name: "template labels invalid",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Labels["bad key"] = "ok"
				ds.Spec.Template.Labels["tier"] = "-bad-"
			}),
			want: []string{
				`spec.template.labels: Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
				`spec.template.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			},
		},
		{
			name: "restart policy",
			ds:   dsWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure }),
			want: []string{`spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`},
		},
		{
			name: "restart policy unknown",
			ds:   dsWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.RestartPolicy = "Sometimes" }),
			want: []string{
				`spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`,
				`spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always"`,
			},
		},
		{
			name: "active deadline",
			ds:   dsWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.ActiveDeadlineSeconds = &deadline }),
			want: []string{`spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported`},
		},
		{
			name: "negative minReadySeconds and revisionHistoryLimit",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.MinReadySeconds = -5
				ds.Spec.RevisionHistoryLimit = &negative
			}),
			want: []string{
				`spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0`,
				`spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0`,
			},
		},
		{
			name: "template generation annotation not a number",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "bad"}
				ds.Spec.MinReadySeconds = -1
			}),
			want: []string{`metadata.annotations[deprecated.daemonset.template.generation]: Invalid value: "bad": strconv.ParseInt: parsing "bad": invalid syntax`},
		},
		{
			name: "template generation annotation negative",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "-3"}
				ds.Spec.MinReadySeconds = -1
			}),
			want: []string{
				`spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0`,
				`spec.templateGeneration: Invalid value: -3: must be greater than or equal to 0`,
			},
		},
		{
			name: "template generation annotation valid",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "4"}
			}),
		},
		{
			name: "matchFields key",
			ds:   dsWith(nodeAffinity(fieldTerm(corev1.NodeSelectorRequirement{Key: "metadata.uid", Operator: corev1.NodeSelectorOpIn, Values: []string{"u"}}))),
			want: []string{`spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key`},
		},
		{
			name: "matchFields two values and Exists",
			ds: dsWith(nodeAffinity(fieldTerm(
				corev1.NodeSelectorRequirement{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}},
				corev1.NodeSelectorRequirement{Key: "metadata.name", Operator: corev1.NodeSelectorOpExists},
			))),
			want: []string{
				"spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
				`spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[1].operator: Invalid value: "Exists": not a valid selector operator`,
			},
		},
		{
			name: "matchFields bad node name",
			ds:   dsWith(nodeAffinity(fieldTerm(corev1.NodeSelectorRequirement{Key: "metadata.name", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"Node_1"}}))),
			want: []string{
				`spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0]: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			},
		},
		{
			name: "no node selector terms",
			ds:   dsWith(nodeAffinity()),
			want: []string{`spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term`},
		},
		{
			name: "matchExpressions shapes",
			ds: dsWith(nodeAffinity(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "zone", Operator: corev1.NodeSelectorOpIn},
				{Key: "gpu", Operator: corev1.NodeSelectorOpExists, Values: []string{"x"}},
				{Key: "cores", Operator: corev1.NodeSelectorOpGt, Values: []string{"1", "2"}},
				{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"bad value"}},
			}})),
			want: []string{
				"spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
				"spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
				"spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[2].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
				`spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[3].values[0]: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
			},
		},
		{
			name: "preferred weight, any label value",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
					PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
						Weight: 0,
						Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
							{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"bad value"}},
						}},
					}},
				}}
			}),
			want: []string{`spec.template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100`},
		},
		{
			name: "node selector label",
			ds:   dsWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "s s d"} }),
			want: []string{
				`spec.template.spec.nodeSelector: Invalid value: "s s d": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
			},
		},
		{
			name: "tolerations",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{
					{Operator: corev1.TolerationOpEqual, Value: "v"},
					{Key: "k", Operator: corev1.TolerationOpExists, Value: "v"},
					{Key: "k", Operator: corev1.TolerationOpGt, Value: "3"},
					{Key: "k", Operator: "Like"},
					{Key: "k", Effect: "NoRun"},
					{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: &seconds},
				}
			}),
			want: []string{
				"spec.template.spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
				"spec.template.spec.tolerations[1].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
				`spec.template.spec.tolerations[2].operator: Unsupported value: "Gt": supported values: "Equal", "Exists", "Lt", "Gt"`,
				`spec.template.spec.tolerations[3].operator: Unsupported value: "Like": supported values: "Equal", "Exists"`,
				`spec.template.spec.tolerations[4].effect: Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
				"spec.template.spec.tolerations[5].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
			},
		},
		{
			name: "container without an image",
			ds:   dsWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "" }),
			want: []string{`spec.template.spec.containers[0].image: Required value`},
		},
		{
			name: "no containers",
			ds:   dsWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers = nil }),
			want: []string{`spec.template.spec.containers: Required value`},
		},
		{
			name: "container names: empty, not a DNS label, duplicate, an init container's",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				c := ds.Spec.Template.Spec.Containers[0]
				bad, empty, dup := c, c, c
				bad.Name, empty.Name = "Bad_Name", ""
				ds.Spec.Template.Spec.Containers = append(ds.Spec.Template.Spec.Containers, dup, bad, empty)
				ds.Spec.Template.Spec.InitContainers = []corev1.Container{c}
			}),
			want: []string{
				`spec.template.spec.containers[1].name: Duplicate value: "x"`,
				`spec.template.spec.containers[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				`spec.template.spec.containers[3].name: Required value`,
				`spec.template.spec.initContainers[0].name: Duplicate value: "x"`,
			},
		},
		{
			name: "ports",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{
					{Name: "metrics", ContainerPort: 9100, HostPort: 9100},
					{Name: "metrics", ContainerPort: 0},
					{ContainerPort: 70000, HostPort: -1, Protocol: "TCPX"},
					{ContainerPort: 9101, HostPort: 9100},
				}
			}),
			want: []string{
				`spec.template.spec.containers[0].ports[1].name: Duplicate value: "metrics"`,
				`spec.template.spec.containers[0].ports[1].containerPort: Required value`,
				`spec.template.spec.containers[0].ports[2].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
				`spec.template.spec.containers[0].ports[2].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive`,
				`spec.template.spec.containers[0].ports[2].protocol: Unsupported value: "TCPX": supported values: "SCTP", "TCP", "UDP"`,
				`spec.template.spec.containers[0].ports[3].hostPort: Duplicate value: "TCP//9100"`,
			},
		},
		{
			name: "host network: a hostPort other than the containerPort",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.HostNetwork = true
				ds.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 9100, HostPort: 9101}, {ContainerPort: 9102}}
			}),
			want: []string{"spec.template.spec.containers[0].ports[0].hostPort: Invalid value: 9101: must match `containerPort` when `hostNetwork` is true"},
		},
		{
			name: "resources, env, policies",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				c := &ds.Spec.Template.Spec.Containers[0]
				c.Resources = corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("-1Mi")},
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
				}
				c.Env = []corev1.EnvVar{{Value: "v"}}
				c.ImagePullPolicy = "Sometimes"
				c.TerminationMessagePolicy = "Stdout"
			}),
			want: []string{
				`spec.template.spec.containers[0].terminationMessagePolicy: Unsupported value: "Stdout": supported values: "File", "FallbackToLogsOnError"`,
				`spec.template.spec.containers[0].env[0].name: Required value`,
				`spec.template.spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`,
				`spec.template.spec.containers[0].resources.limits[memory]: Invalid value: "-1Mi": must be greater than or equal to 0`,
				`spec.template.spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`,
			},
		},
		{
			name: "volumes and mounts",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				src := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
				ds.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: src}, {Name: "data", VolumeSource: src}, {Name: "", VolumeSource: src}}
				ds.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{
					{Name: "data", MountPath: "/data"}, {Name: "logs", MountPath: "/data"}, {Name: "data"},
				}
			}),
			want: []string{
				`spec.template.spec.volumes[1].name: Duplicate value: "data"`,
				`spec.template.spec.volumes[2].name: Required value`,
				`spec.template.spec.containers[0].volumeMounts[1].name: Not found: "logs"`,
				`spec.template.spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique`,
				`spec.template.spec.containers[0].volumeMounts[2].mountPath: Required value`,
			},
		},
		{
			name: "metadata name and namespace",
			ds: dsWith(func(ds *appsv1.DaemonSet) {
				ds.Name = "Bad_Name"
				ds.Namespace = ""
			}),
			want: []string{
				`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`metadata.namespace: Required value`,
			},
		},
	}
}

// TestValidate pins each rule against the API server's exact text.
func TestValidate(t *testing.T) {
	for _, tt := range validateCases() {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.ds.DeepCopy()
			var got []string
			for _, e := range validation.Validate(tt.ds) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.ds); diff != "" {
				t.Errorf("Validate modified its input (-before,+after):\n%s", diff)
			}
		})
	}
}

// TestValidateNil pins the one error for a nil DaemonSet.
func TestValidateNil(t *testing.T) {
	var got []string
	for _, e := range validation.Validate(nil) {
		got = append(got, e.Error())
	}
	want := []string{"daemonSet: Required value: a DaemonSet is required"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Validate(nil) (-want,+got):\n%s", diff)
	}
}

// TestValidateCasesFile writes the cases of TestValidate, with their wanted
// errors, to the file named by DAEMONPLAN_VALIDATE_CASES, for
// daemon/validation/oracle to check against the API server's own
// validation. Without the variable it does nothing.
func TestValidateCasesFile(t *testing.T) {
	path := os.Getenv("DAEMONPLAN_VALIDATE_CASES")
	if path == "" {
		t.Skip("DAEMONPLAN_VALIDATE_CASES is not set")
	}
	type fileCase struct {
		Name      string            `json:"name"`
		DaemonSet *appsv1.DaemonSet `json:"daemonSet"`
		Want      []string          `json:"want"`
	}
	var cases []fileCase
	for _, c := range validateCases() {
		cases = append(cases, fileCase{c.name, c.ds, c.want})
	}
	data, err := json.MarshalIndent(cases, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestValidateImpossibleIntOrString covers a budget no JSON decodes to (a
// type that is neither Int nor String), built in code: the API server's
// catch-all message, its doubled percent sign included.
func TestValidateImpossibleIntOrString(t *testing.T) {
	odd := intstr.IntOrString{Type: 7, IntVal: 2}
	ds := dsWith(budgets(&odd, ios("0")))
	var got []string
	for _, e := range validation.Validate(ds) {
		got = append(got, e.Error())
	}
	want := []string{
		`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:7, IntVal:2, StrVal:""}: must be an integer or percentage (e.g '5%%')`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Validate (-want,+got):\n%s", diff)
	}
}
