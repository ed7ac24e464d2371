package rollout_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/rollout"
)

// TestPatchConformance checks Patch and Match against the revisions
// upstream found current. In every scenario where upstream's current hash
// names an existing revision <ds>-<hash>, nothing was created and nothing
// failed, that revision's stored data (compacted) must equal Patch(ds), and
// no revision with a name of another hash may match unless upstream updated
// it (a duplicate, or a revision whose hash label was missing).
func TestPatchConformance(t *testing.T) {
	checked := 0
	for _, fx := range loadHistoryFixtures(t) {
		exp := fx.Expected
		if exp.Hash == "" || len(exp.RevisionsCreated) > 0 || exp.Error != "" {
			continue
		}
		ds, revs := decodeHistoryFixture(t, fx)
		var cur *appsv1.ControllerRevision
		for _, r := range revs {
			if r.Name == ds.Name+"-"+exp.Hash && r.Namespace == ds.Namespace {
				cur = r
			}
		}
		if cur == nil {
			continue
		}
		checked++
		t.Run(fx.Scenario, func(t *testing.T) {
			patch, err := rollout.Patch(ds)
			if err != nil {
				t.Fatalf("Patch() error = %v", err)
			}
			if !bytes.Equal(patch, cur.Data.Raw) {
				t.Fatalf("Patch() =\n%s\nwant the data of %s:\n%s", patch, cur.Name, cur.Data.Raw)
			}
			for _, r := range revs {
				ok, err := rollout.Match(ds, r)
				if err != nil {
					t.Fatalf("Match(%s) error = %v", r.Name, err)
				}
				switch {
				case r == cur && !ok:
					t.Errorf("Match(%s) = false for the current revision", r.Name)
				case r != cur && ok && !contains(exp.RevisionsDeleted, r.Name) && !contains(exp.RevisionsDeletedMay, r.Name):
					t.Errorf("Match(%s) = true, but upstream kept %s as current and did not delete it", r.Name, cur.Name)
				}
			}
		})
	}
	if checked < 100 {
		t.Errorf("only %d scenarios checked, want at least 100: fixture selection broken?", checked)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// patchDS is a DaemonSet whose template exercises the encoding: nested
// objects, integers, a quantity-free probe with an IntOrString port, and
// HTML-sensitive characters.
func patchDS() *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent", UID: "uid-agent"},
		Spec: appsv1.DaemonSetSpec{
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent", "z": "<&>"}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:  "agent",
						Image: "registry.example/agent:v1",
						ReadinessProbe: &corev1.Probe{
							ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
							InitialDelaySeconds: 5,
						},
					}},
				},
			},
		},
	}
}

func TestPatch(t *testing.T) {
	const wantPatch = `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"agent","z":"\u003c\u0026\u003e"}},` +
		`"spec":{"containers":[{"image":"registry.example/agent:v1","name":"agent",` +
		`"readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"initialDelaySeconds":5},"resources":{}}]}}}}`
	badPort := patchDS()
	badPort.Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Port = intstr.IntOrString{Type: 9}
	badStrategy := patchDS()
	badStrategy.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: &intstr.IntOrString{Type: 9}}
	tests := []struct {
		name    string
		ds      *appsv1.DaemonSet
		want    string
		wantErr bool
	}{
		{name: "keys are sorted, HTML escaped and the replace directive added", ds: patchDS(), want: wantPatch},
		{
			name: "fields outside the template do not matter",
			ds: func() *appsv1.DaemonSet {
				ds := patchDS()
				ds.Annotations = map[string]string{"x": "y"}
				ds.Spec.MinReadySeconds = 30
				ds.Status.NumberReady = 3
				return ds
			}(),
			want: wantPatch,
		},
		{name: "the zero template still has metadata and a containers null", ds: &appsv1.DaemonSet{}, want: `{"spec":{"template":{"$patch":"replace","metadata":{},"spec":{"containers":null}}}}`},
		{name: "a template field that cannot be encoded is an error", ds: badPort, wantErr: true},
		{name: "a field outside the template that cannot be encoded is an error, as upstream", ds: badStrategy, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rollout.Patch(tt.ds)
			if tt.wantErr {
				// The error names what failed to encode, not the DaemonSet,
				// which is the caller's.
				if err == nil || !strings.HasPrefix(err.Error(), "encoding for the revision data: ") {
					t.Fatalf("Patch() error = %v, want an encoding error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Patch() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Patch() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPatchNil(t *testing.T) {
	if _, err := rollout.Patch(nil); !errors.Is(err, rollout.ErrNilDaemonSet) {
		t.Errorf("Patch(nil) error = %v, want ErrNilDaemonSet", err)
	}
	if ok, err := rollout.Match(nil, &appsv1.ControllerRevision{}); ok || !errors.Is(err, rollout.ErrNilDaemonSet) {
		t.Errorf("Match(nil, rev) = %v, %v; want false, ErrNilDaemonSet", ok, err)
	}
}

func TestMatch(t *testing.T) {
	ds := patchDS()
	patch, err := rollout.Patch(ds)
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, patch, "", "  "); err != nil {
		t.Fatal(err)
	}
	other := patchDS()
	other.Spec.Template.Spec.Containers[0].Image = "registry.example/agent:v2"
	otherPatch, _ := rollout.Patch(other)
	tests := []struct {
		name string
		rev  *appsv1.ControllerRevision
		want bool
	}{
		{name: "a nil revision matches nothing", rev: nil},
		{name: "a revision without data does not match", rev: &appsv1.ControllerRevision{}},
		{name: "the compact patch matches", rev: &appsv1.ControllerRevision{Data: runtimeRaw(patch)}, want: true},
		{name: "the same data pretty-printed does not match, as upstream", rev: &appsv1.ControllerRevision{Data: runtimeRaw(pretty.Bytes())}},
		{name: "another template's data does not match", rev: &appsv1.ControllerRevision{Data: runtimeRaw(otherPatch)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rollout.Match(ds, tt.rev)
			if err != nil {
				t.Fatalf("Match() error = %v", err)
			}
			if got != tt.want {
				t.Errorf("Match() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPatchMatchDoNotModifyInput(t *testing.T) {
	ds := patchDS()
	patch, _ := rollout.Patch(ds)
	rev := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Data: runtimeRaw(patch)}
	dsBefore, revBefore := ds.DeepCopy(), rev.DeepCopy()
	_, _ = rollout.Patch(ds)
	_, _ = rollout.Match(ds, rev)
	if diff := cmp.Diff(dsBefore, ds); diff != "" {
		t.Errorf("Patch/Match modified the DaemonSet (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(revBefore, rev); diff != "" {
		t.Errorf("Match modified the revision (-before +after):\n%s", diff)
	}
}

func BenchmarkPatch(b *testing.B) {
	ds := patchDS()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = rollout.Patch(ds)
	}
}

func runtimeRaw(b []byte) runtime.RawExtension { return runtime.RawExtension{Raw: b} }
