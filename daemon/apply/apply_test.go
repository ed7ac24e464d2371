package apply_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon/apply"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// manifest is a DaemonSet as people write it: no identity, no defaults.
func manifest(image string) *appsv1.DaemonSet {
	labels := map[string]string{"app": "agent"}
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "agent", Image: image,
					Ports:          []corev1.ContainerPort{{ContainerPort: 9100}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(9100)}}},
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("0.5Gi"),
					}},
				}}},
			},
		},
	}
}

var created = time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)

// stored is manifest(image) as the API server stored it, with a status.
func stored(t *testing.T, image string) *appsv1.DaemonSet {
	t.Helper()
	ds, err := apply.Create(manifest(image), "uid-agent", created)
	if err != nil {
		t.Fatal(err)
	}
	ds.ResourceVersion = "4711"
	ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, NumberReady: 3}
	return ds
}

func TestDefaults(t *testing.T) {
	got := apply.Defaults(manifest("quay.io/prometheus/node-exporter:v1.9.1"))
	one, zero, limit := intstr.FromInt32(1), intstr.FromInt32(0), int32(10)
	grace := int64(30)
	want := manifest("quay.io/prometheus/node-exporter:v1.9.1")
	want.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one, MaxSurge: &zero}}
	want.Spec.RevisionHistoryLimit = &limit
	ps := &want.Spec.Template.Spec
	ps.DNSPolicy, ps.RestartPolicy, ps.SchedulerName = corev1.DNSClusterFirst, corev1.RestartPolicyAlways, corev1.DefaultSchedulerName
	ps.SecurityContext, ps.TerminationGracePeriodSeconds = &corev1.PodSecurityContext{}, &grace
	c := &ps.Containers[0]
	c.ImagePullPolicy, c.TerminationMessagePath, c.TerminationMessagePolicy = corev1.PullIfNotPresent, "/dev/termination-log", corev1.TerminationMessageReadFile
	c.Ports[0].Protocol = corev1.ProtocolTCP
	c.ReadinessProbe.TimeoutSeconds, c.ReadinessProbe.PeriodSeconds, c.ReadinessProbe.SuccessThreshold, c.ReadinessProbe.FailureThreshold = 1, 10, 1, 3
	c.ReadinessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Scheme = "/", corev1.URISchemeHTTP
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Defaults() mismatch (-want +got):\n%s", diff)
	}
	if apply.Defaults(nil) != nil {
		t.Error("Defaults(nil) is not nil")
	}
}

func TestDefaultsVolumes(t *testing.T) {
	ds := manifest("agent:v1")
	ds.Spec.Template.Spec.Volumes = []corev1.Volume{
		{Name: "scratch"},
		{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log"}}},
		{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
		{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}},
	}
	got := apply.Defaults(ds).Spec.Template.Spec.Volumes
	mode, hour, unset := int32(0o644), int64(3600), corev1.HostPathUnset
	want := []corev1.Volume{
		{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log", Type: &unset}}},
		{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{DefaultMode: &mode}}},
		{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{DefaultMode: &mode, Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &hour}}}}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Defaults() volumes mismatch (-want +got):\n%s", diff)
	}
}

func TestPullPolicy(t *testing.T) {
	always, ifNotPresent := corev1.PullAlways, corev1.PullIfNotPresent
	tests := []struct {
		image string
		want  corev1.PullPolicy
	}{
		{"nginx", always},
		{"nginx:latest", always},
		{"nginx:1.27", ifNotPresent},
		{"registry.k8s.io/kube-proxy:v1.36.3", ifNotPresent},
		{"localhost:5000/agent", always},
		{"localhost/agent:latest", always},
		{"quay.io/prometheus/node-exporter@sha256:" + hex(64), ifNotPresent},
		{"quay.io/prometheus/node-exporter:latest@sha256:" + hex(64), always},
		{"[::1]:5000/agent:v1", ifNotPresent},
		// Not references: upstream's parse fails and no tag is read.
		{"", ifNotPresent},
		{"Agent", ifNotPresent},                // uppercase repository
		{"agent@sha256:abc", ifNotPresent},     // short digest
		{"agent@md5:" + hex(32), ifNotPresent}, // unknown algorithm
		{hex(64), ifNotPresent},                // an image ID
		{"agent:", ifNotPresent},               // empty tag
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			ds := manifest(tt.image)
			if got := apply.Defaults(ds).Spec.Template.Spec.Containers[0].ImagePullPolicy; got != tt.want {
				t.Errorf("image %q: imagePullPolicy %s, want %s", tt.image, got, tt.want)
			}
		})
	}
}

func hex(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "0123456789abcdef"[i%16]
	}
	return string(b)
}

func TestCreate(t *testing.T) {
	m := manifest("agent:v1")
	m.Annotations = map[string]string{"note": "x"}
	m.Generation, m.Status.NumberReady = 7, 5
	before := m.DeepCopy()
	got, err := apply.Create(m, "uid-1", created.Add(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, m); diff != "" {
		t.Errorf("Create modified its argument:\n%s", diff)
	}
	want := struct {
		UID        string
		Created    time.Time
		Generation int64
		Annotation string
		Status     appsv1.DaemonSetStatus
	}{"uid-1", created, 1, "1", appsv1.DaemonSetStatus{}}
	gotS := want
	gotS.UID, gotS.Created, gotS.Generation = string(got.UID), got.CreationTimestamp.Time.UTC(), got.Generation
	gotS.Annotation, gotS.Status = got.Annotations[appsv1.DeprecatedTemplateGeneration], got.Status
	if diff := cmp.Diff(want, gotS); diff != "" {
		t.Errorf("Create() mismatch (-want +got):\n%s", diff)
	}
	// The quantity reads as a stored object's: canonical.
	if q := got.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]; q.String() != "512Mi" {
		t.Errorf("memory request %s, want 512Mi", q.String())
	}
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name     string
		change   func(m *appsv1.DaemonSet)
		wantGen  int64
		wantTmpl string // the template-generation annotation
		want     apply.Change
		wantErr  string
	}{
		{name: "the same manifest changes nothing", change: func(*appsv1.DaemonSet) {}, wantGen: 1, wantTmpl: "1"},
		{name: "a new image is a template change", change: func(m *appsv1.DaemonSet) { m.Spec.Template.Spec.Containers[0].Image = "agent:v2" },
			wantGen: 2, wantTmpl: "2", want: apply.Change{Template: true, Spec: true}},
		{name: "a new budget changes the generation only", change: func(m *appsv1.DaemonSet) {
			v := intstr.FromString("10%")
			m.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &v}}
		}, wantGen: 2, wantTmpl: "1", want: apply.Change{Spec: true}},
		{name: "written-out defaults are no change", change: func(m *appsv1.DaemonSet) {
			m.Spec.Template.Spec.DNSPolicy = corev1.DNSClusterFirst
			m.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("512Mi")
		}, wantGen: 1, wantTmpl: "1"},
		{name: "the manifest's template generation is ignored", change: func(m *appsv1.DaemonSet) {
			m.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "9"}
		}, wantGen: 1, wantTmpl: "1"},
		{name: "a new selector is refused", change: func(m *appsv1.DaemonSet) {
			m.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent", "tier": "node"}}
			m.Spec.Template.Labels = m.Spec.Selector.MatchLabels
		}, wantErr: "spec.selector: Invalid value: "},
		{name: "an unparsable annotation is refused", change: func(m *appsv1.DaemonSet) {
			m.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "two"}
		}, wantErr: `metadata.annotations[deprecated.daemonset.template.generation]: Invalid value: "two"`},
		{name: "another name is refused", change: func(m *appsv1.DaemonSet) { m.Name = "other" }, wantErr: `metadata.name: Invalid value: "other"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := stored(t, "agent:v1")
			m := manifest("agent:v1")
			tt.change(m)
			before, sBefore := m.DeepCopy(), s.DeepCopy()
			got, ch, err := apply.Update(s, m)
			if diff := cmp.Diff(before, m); diff != "" {
				t.Errorf("Update modified the manifest:\n%s", diff)
			}
			if diff := cmp.Diff(sBefore, s); diff != "" {
				t.Errorf("Update modified the stored object:\n%s", diff)
			}
			if tt.wantErr != "" {
				if err == nil || len(err.Error()) < len(tt.wantErr) || err.Error()[:len(tt.wantErr)] != tt.wantErr {
					t.Fatalf("Update() error = %v, want one starting %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, ch); diff != "" {
				t.Errorf("Change mismatch (-want +got):\n%s", diff)
			}
			if got.Generation != tt.wantGen || got.Annotations[appsv1.DeprecatedTemplateGeneration] != tt.wantTmpl {
				t.Errorf("generation %d, template generation %q; want %d, %q", got.Generation, got.Annotations[appsv1.DeprecatedTemplateGeneration], tt.wantGen, tt.wantTmpl)
			}
			if got.UID != s.UID || got.ResourceVersion != s.ResourceVersion || !got.CreationTimestamp.Equal(&s.CreationTimestamp) {
				t.Errorf("identity %q %q %v, want the stored object's %q %q %v", got.UID, got.ResourceVersion, got.CreationTimestamp, s.UID, s.ResourceVersion, s.CreationTimestamp)
			}
			if diff := cmp.Diff(s.Status, got.Status); diff != "" {
				t.Errorf("status not kept (-stored +got):\n%s", diff)
			}
			if !ch.Template && dt.Hash(got) != dt.Hash(s) {
				t.Errorf("the template did not change but its hash did: %s -> %s", dt.Hash(s), dt.Hash(got))
			}
		})
	}
}

func TestUpdateDropped(t *testing.T) {
	s := stored(t, "agent:v1")
	s.Spec.Template.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2025-06-01T09:00:00Z"}
	s.Labels = map[string]string{"team": "infra"}
	_, ch, err := apply.Update(s, manifest("agent:v1"))
	if err != nil {
		t.Fatal(err)
	}
	want := apply.Change{Template: true, Spec: true, Dropped: []string{
		"metadata.labels[team]", "spec.template.metadata.annotations[kubectl.kubernetes.io/restartedAt]"}}
	if diff := cmp.Diff(want, ch); diff != "" {
		t.Errorf("Change mismatch (-want +got):\n%s", diff)
	}
}

// FuzzUpdateIdempotent: writing a stored object over itself changes
// nothing, and Defaults is idempotent.
func FuzzUpdateIdempotent(f *testing.F) {
	f.Add("agent:v1", "10%", int32(5), true)
	f.Add("nginx", "1", int32(0), false)
	f.Fuzz(func(t *testing.T, image, budget string, minReady int32, hostNetwork bool) {
		m := manifest(image)
		v := intstr.Parse(budget)
		m.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &v}
		m.Spec.MinReadySeconds = minReady
		m.Spec.Template.Spec.HostNetwork = hostNetwork
		once := apply.Defaults(m)
		if diff := cmp.Diff(once, apply.Defaults(once)); diff != "" {
			t.Fatalf("Defaults is not idempotent:\n%s", diff)
		}
		s, err := apply.Create(m, "uid", created)
		if err != nil {
			t.Fatal(err)
		}
		got, ch, err := apply.Update(s, s)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Template || ch.Spec || len(ch.Dropped) > 0 {
			t.Fatalf("Update(s, s) = %+v, want no change", ch)
		}
		if diff := cmp.Diff(s, got); diff != "" {
			t.Fatalf("Update(s, s) is not s:\n%s", diff)
		}
	})
}

// TestUpdateServiceAccountAlias: the API server stores serviceAccount as
// an alias of serviceAccountName, so a manifest that names only one is no
// change over the object it stored.
func TestUpdateServiceAccountAlias(t *testing.T) {
	m := manifest("agent:v1")
	m.Spec.Template.Spec.ServiceAccountName = "agent"
	s, err := apply.Create(m, "uid", created)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Spec.Template.Spec.DeprecatedServiceAccount; got != "agent" {
		t.Errorf("stored serviceAccount %q, want agent", got)
	}
	_, ch, err := apply.Update(s, m)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Template || ch.Spec {
		t.Errorf("Update() = %+v, want no change", ch)
	}
}
