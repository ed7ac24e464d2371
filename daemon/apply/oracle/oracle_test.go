package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"

	"github.com/daemonplan/daemonplan/daemon/apply"
)

var now = time.Date(2026, 3, 2, 9, 14, 27, 0, time.UTC)

// upstreamCreate is what kube-apiserver stores for a create of m: the
// scheme's defaults, the internal type, the create strategy, and back.
func upstreamCreate(t *testing.T, m *appsv1.DaemonSet) *appsv1.DaemonSet {
	t.Helper()
	ds := m.DeepCopy()
	legacyscheme.Scheme.Default(ds)
	var internal apps.DaemonSet
	if err := legacyscheme.Scheme.Convert(ds, &internal, nil); err != nil {
		t.Fatalf("converting to internal: %v", err)
	}
	daemonset.Strategy.PrepareForCreate(context.Background(), &internal)
	internal.UID, internal.CreationTimestamp = "uid-1", metav1.NewTime(now)
	return toV1(t, &internal)
}

// upstreamUpdate is what kube-apiserver stores for an update of stored
// with m.
func upstreamUpdate(t *testing.T, stored, m *appsv1.DaemonSet) *appsv1.DaemonSet {
	t.Helper()
	ds := m.DeepCopy()
	legacyscheme.Scheme.Default(ds)
	var oldInternal, internal apps.DaemonSet
	if err := legacyscheme.Scheme.Convert(stored.DeepCopy(), &oldInternal, nil); err != nil {
		t.Fatalf("converting the stored object: %v", err)
	}
	if err := legacyscheme.Scheme.Convert(ds, &internal, nil); err != nil {
		t.Fatalf("converting to internal: %v", err)
	}
	// As the registry's BeforeUpdate: a request cannot set the generation.
	internal.Generation = oldInternal.Generation
	daemonset.Strategy.PrepareForUpdate(context.Background(), &internal, &oldInternal)
	// The registry keeps the stored object's identity.
	internal.UID, internal.CreationTimestamp, internal.ResourceVersion = oldInternal.UID, oldInternal.CreationTimestamp, oldInternal.ResourceVersion
	return toV1(t, &internal)
}

func toV1(t *testing.T, internal *apps.DaemonSet) *appsv1.DaemonSet {
	t.Helper()
	var out appsv1.DaemonSet
	if err := legacyscheme.Scheme.Convert(internal, &out, nil); err != nil {
		t.Fatalf("converting to v1: %v", err)
	}
	out.TypeMeta = metav1.TypeMeta{}
	return roundTrip(t, &out)
}

func roundTrip(t *testing.T, ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	t.Helper()
	data, err := json.Marshal(ds)
	if err != nil {
		t.Fatal(err)
	}
	var out appsv1.DaemonSet
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// same compares two stored objects by their JSON, which is what the
// controller reads and hashes.
func same(t *testing.T, what string, want, got *appsv1.DaemonSet) {
	t.Helper()
	w, g := want.DeepCopy(), got.DeepCopy()
	w.TypeMeta, g.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
	wj, _ := json.MarshalIndent(w, "", " ")
	gj, _ := json.MarshalIndent(g, "", " ")
	if diff := cmp.Diff(string(wj), string(gj)); diff != "" {
		t.Errorf("%s: apply differs from kube-apiserver (-apiserver +apply):\n%s", what, diff)
	}
}

// TestCreateMatchesAPIServer: apply.Create stores what kube-apiserver
// stores, for the manifests below and 3,000 generated ones.
func TestCreateMatchesAPIServer(t *testing.T) {
	cases := manifests()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		cases = append(cases, generated(r, fmt.Sprintf("gen-%d", i)))
	}
	for _, m := range cases {
		t.Run(m.Name, func(t *testing.T) {
			got, err := apply.Create(m, "uid-1", now)
			if err != nil {
				t.Fatal(err)
			}
			same(t, "create", upstreamCreate(t, m), got)
		})
	}
}

// TestUpdateMatchesAPIServer: apply.Update stores what kube-apiserver
// stores when a manifest is written over a stored object: the same
// manifest, a new image, a new budget, and a generated other manifest.
func TestUpdateMatchesAPIServer(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 1000 {
		m := generated(r, "agent")
		stored := upstreamCreate(t, m)
		stored.ResourceVersion = "42"
		stored.Status = appsv1.DaemonSetStatus{ObservedGeneration: 1, NumberReady: 3}
		next := []*appsv1.DaemonSet{m, m.DeepCopy(), m.DeepCopy(), generated(r, "agent")}
		next[1].Spec.Template.Spec.Containers[0].Image = "registry.example/agent:v2"
		next[2].Spec.MinReadySeconds = 7
		next[3].Spec.Selector = m.Spec.Selector
		next[3].Spec.Template.Labels = m.Spec.Template.Labels
		for j, n := range next {
			t.Run(fmt.Sprintf("%d/%d", i, j), func(t *testing.T) {
				got, _, err := apply.Update(stored, n)
				if err != nil {
					t.Fatal(err)
				}
				same(t, "update", upstreamUpdate(t, stored, n), got)
			})
		}
	}
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

// manifests are node agents as their projects publish them (trimmed to
// what the defaults touch).
func manifests() []*appsv1.DaemonSet {
	labels := func(app string) map[string]string { return map[string]string{"app": app} }
	ds := func(name string, spec corev1.PodSpec) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system", Labels: labels(name)},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels(name)},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels(name)}, Spec: spec},
			},
		}
	}
	hostPathDir := corev1.HostPathDirectoryOrCreate
	nodeExporter := ds("node-exporter", corev1.PodSpec{
		HostNetwork: true, HostPID: true, ServiceAccountName: "node-exporter",
		Containers: []corev1.Container{{Name: "node-exporter", Image: "quay.io/prometheus/node-exporter:v1.9.1",
			Args:           []string{"--path.rootfs=/host"},
			Ports:          []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9100}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromString("metrics")}}},
			LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(9100), Path: "/"}}, TimeoutSeconds: 3},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: q("0.1"), corev1.ResourceMemory: q("0.03Gi")},
				Limits: corev1.ResourceList{corev1.ResourceMemory: q("180Mi")}},
			VolumeMounts: []corev1.VolumeMount{{Name: "root", MountPath: "/host", ReadOnly: true}},
		}},
		Volumes:     []corev1.Volume{{Name: "root", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}},
		Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
	})
	nodeExporter.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptrIOS(intstr.FromString("10%"))}}
	fluentBit := ds("fluent-bit", corev1.PodSpec{
		DeprecatedServiceAccount: "fluent-bit", DNSPolicy: corev1.DNSClusterFirstWithHostNet,
		Containers: []corev1.Container{{Name: "fluent-bit", Image: "cr.fluentbit.io/fluent/fluent-bit",
			Env: []corev1.EnvVar{{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
		}},
		Volumes: []corev1.Volume{
			{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "fluent-bit"}}}},
			{Name: "varlog", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log", Type: &hostPathDir}}},
			{Name: "buffer"},
		},
	})
	nvidia := ds("nvidia-device-plugin", corev1.PodSpec{
		PriorityClassName: "system-node-critical",
		InitContainers:    []corev1.Container{{Name: "config", Image: "nvcr.io/nvidia/k8s-device-plugin:v0.17.2", Command: []string{"config-manager"}}},
		Containers: []corev1.Container{{Name: "plugin", Image: "nvcr.io/nvidia/k8s-device-plugin:v0.17.2",
			SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptrBool(false)},
			StartupProbe:    &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 8080}}},
		}},
		Volumes: []corev1.Volume{
			{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "ns", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}},
			}}}},
			{Name: "secret", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "x"}}},
		},
	})
	nvidia.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	kubeProxy := ds("kube-proxy", corev1.PodSpec{
		HostNetwork: true, ServiceAccountName: "kube-proxy", PriorityClassName: "system-node-critical",
		Containers: []corev1.Container{{Name: "kube-proxy", Image: "registry.k8s.io/kube-proxy:v1.36.3",
			Command:         []string{"/usr/local/bin/kube-proxy", "--config=/var/lib/kube-proxy/config.conf"},
			SecurityContext: &corev1.SecurityContext{Privileged: ptrBool(true)},
			Lifecycle:       &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(10256)}}},
		}},
		NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
	})
	kubeProxy.Spec.Template.Annotations = map[string]string{"pod.beta.kubernetes.io/init-containers": "[]"}
	return []*appsv1.DaemonSet{nodeExporter, fluentBit, nvidia, kubeProxy}
}

func ptrBool(b bool) *bool                            { return &b }
func ptrIOS(v intstr.IntOrString) *intstr.IntOrString { return &v }
func pick[T any](r *rand.Rand, options ...T) T        { return options[r.IntN(len(options))] }
func maybe[T any](r *rand.Rand, v T) *T               { return pick(r, nil, &v) }
func chance(r *rand.Rand) bool                        { return r.IntN(2) == 0 }
func quantities(r *rand.Rand) corev1.ResourceList     { return randomList(r) }
func randomList(r *rand.Rand) corev1.ResourceList {
	if chance(r) {
		return nil
	}
	l := corev1.ResourceList{}
	for range r.IntN(3) + 1 {
		l[pick(r, corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage)] =
			q(pick(r, "100m", "0.5", "1.0001", "500Mi", "0.5Gi", "1e3", "12345u", "2", "1000m", "0.25"))
	}
	return l
}

// generated is a random manifest over the fields the defaults touch.
func generated(r *rand.Rand, name string) *appsv1.DaemonSet {
	labels := map[string]string{"app": name}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec: appsv1.DaemonSetSpec{
			Selector:             &metav1.LabelSelector{MatchLabels: labels},
			Template:             corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}},
			RevisionHistoryLimit: maybe[int32](r, 3),
			MinReadySeconds:      pick[int32](r, 0, 5),
		},
	}
	if chance(r) {
		ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: pick(r, "0", "2", "7")}
	}
	switch r.IntN(4) {
	case 1:
		ds.Spec.UpdateStrategy.Type = appsv1.RollingUpdateDaemonSetStrategyType
	case 2:
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateDaemonSet{
			MaxUnavailable: maybe(r, intstr.FromString("25%")), MaxSurge: maybe(r, intstr.FromInt32(0))}}
	case 3:
		ds.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
	}
	ps := &ds.Spec.Template.Spec
	ps.HostNetwork = chance(r)
	ps.DNSPolicy = pick(r, corev1.DNSPolicy(""), corev1.DNSDefault)
	ps.RestartPolicy = pick(r, corev1.RestartPolicy(""), corev1.RestartPolicyAlways)
	ps.ServiceAccountName = pick(r, "", "sa")
	ps.DeprecatedServiceAccount = pick(r, "", "sa", "other")
	ps.TerminationGracePeriodSeconds = maybe[int64](r, 5)
	if chance(r) {
		ps.SecurityContext = &corev1.PodSecurityContext{}
	}
	ps.Overhead = randomList(r)
	if r.IntN(4) == 0 {
		ps.Resources = &corev1.ResourceRequirements{Limits: randomList(r), Requests: randomList(r)}
	}
	if r.IntN(4) == 0 {
		ds.Spec.Template.Annotations = map[string]string{pick(r, "pod.alpha.kubernetes.io/init-containers", "note"): "x"}
	}
	for range r.IntN(2) {
		ps.InitContainers = append(ps.InitContainers, container(r, "init"))
	}
	for i := range r.IntN(3) + 1 {
		ps.Containers = append(ps.Containers, container(r, fmt.Sprintf("c%d", i)))
	}
	for i := range r.IntN(5) {
		ps.Volumes = append(ps.Volumes, volume(r, fmt.Sprintf("v%d", i)))
	}
	return ds
}

var images = []string{
	"agent", "agent:latest", "agent:v1", "registry.k8s.io/kube-proxy:v1.36.3", "localhost:5000/agent", "localhost/agent:latest",
	"docker.io/agent", "index.docker.io/library/agent:latest", "quay.io/org/agent@sha256:" + hex64, "quay.io/org/agent:latest@sha256:" + hex64,
	"Agent:v1", "agent@sha256:abc", "agent@md5:0123456789abcdef0123456789abcdef", hex64, "", "[::1]:5000/agent", "a/b/c/d:tag", "agent:",
	"Registry.Example/agent:v1", "registry.example:5000/agent", "agent:" + string(make([]byte, 0)) + "1.0-rc_1",
}

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func probe(r *rand.Rand) *corev1.Probe {
	if chance(r) {
		return nil
	}
	p := &corev1.Probe{TimeoutSeconds: pick[int32](r, 0, 2), FailureThreshold: pick[int32](r, 0, 5)}
	switch r.IntN(4) {
	case 0:
		p.HTTPGet = &corev1.HTTPGetAction{Port: intstr.FromInt32(80), Path: pick(r, "", "/healthz"), Scheme: pick(r, corev1.URIScheme(""), corev1.URISchemeHTTPS)}
	case 1:
		p.GRPC = &corev1.GRPCAction{Port: 9000, Service: maybe(r, "svc")}
	case 2:
		p.TCPSocket = &corev1.TCPSocketAction{Port: intstr.FromInt32(80)}
	default:
		p.Exec = &corev1.ExecAction{Command: []string{"true"}}
	}
	return p
}

func container(r *rand.Rand, name string) corev1.Container {
	c := corev1.Container{Name: name, Image: pick(r, images...), ImagePullPolicy: pick(r, corev1.PullPolicy(""), corev1.PullNever),
		TerminationMessagePath: pick(r, "", "/tmp/x"), LivenessProbe: probe(r), ReadinessProbe: probe(r), StartupProbe: probe(r),
		Resources: corev1.ResourceRequirements{Limits: randomList(r), Requests: quantities(r)}}
	for i := range r.IntN(3) {
		c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: int32(8000 + i), Protocol: pick(r, corev1.Protocol(""), corev1.ProtocolUDP)})
	}
	if chance(r) {
		c.Env = append(c.Env, corev1.EnvVar{Name: "N", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			FieldPath: "spec.nodeName", APIVersion: pick(r, "", "v1")}}})
	}
	if chance(r) {
		c.Env = append(c.Env, corev1.EnvVar{Name: "F", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{
			VolumeName: "v0", Path: "p", Key: "k", Optional: maybe(r, true)}}})
	}
	if chance(r) {
		c.Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(1)}}}
	}
	return c
}

func volume(r *rand.Rand, name string) corev1.Volume {
	v := corev1.Volume{Name: name}
	s := &v.VolumeSource
	switch r.IntN(13) {
	case 0:
		s.HostPath = &corev1.HostPathVolumeSource{Path: "/x", Type: maybe(r, corev1.HostPathFile)}
	case 1:
		s.Secret = &corev1.SecretVolumeSource{SecretName: "s", DefaultMode: maybe[int32](r, 0o400)}
	case 2:
		s.ConfigMap = &corev1.ConfigMapVolumeSource{DefaultMode: maybe[int32](r, 0o400)}
	case 3:
		s.DownwardAPI = &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{{Path: "p",
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name", APIVersion: pick(r, "", "v1")}}}}
	case 4:
		s.Projected = &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t", ExpirationSeconds: maybe[int64](r, 600)}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "p", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}},
		}}
	case 5:
		s.AzureDisk = &corev1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "u", FSType: maybe(r, "xfs")}
	case 6:
		s.RBD = &corev1.RBDVolumeSource{CephMonitors: []string{"m"}, RBDImage: "i", RadosUser: pick(r, "", "me")}
	case 7:
		s.ISCSI = &corev1.ISCSIVolumeSource{TargetPortal: "t", IQN: "i", ISCSIInterface: pick(r, "", "eth")}
	case 8:
		s.ScaleIO = &corev1.ScaleIOVolumeSource{Gateway: "g", System: "s", FSType: pick(r, "", "ext4")}
	case 9:
		s.Ephemeral = &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
			Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: randomList(r)}}}}
	case 10:
		s.Image = &corev1.ImageVolumeSource{Reference: pick(r, images...), PullPolicy: pick(r, corev1.PullPolicy(""), corev1.PullAlways)}
	case 11:
		s.EmptyDir = &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}
	}
	return v
}
