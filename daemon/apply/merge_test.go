package apply_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/daemon/apply"
)

// awsNode reads testdata/aws-node.yaml: the manifest and its JSON, as
// kubectl apply keeps it in the last-applied annotation.
func awsNode(t *testing.T) (*appsv1.DaemonSet, string) {
	t.Helper()
	data, err := os.ReadFile("testdata/aws-node.yaml")
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	ds := &appsv1.DaemonSet{}
	if err := yaml.Unmarshal(data, ds); err != nil {
		t.Fatal(err)
	}
	return ds, string(js)
}

// liveAWSNode is the aws-node manifest as a cluster created before
// Kubernetes 1.28 stores it: kubectl apply's annotation, and the hostPort
// the API server then defaulted into the template of a host-network pod.
func liveAWSNode(t *testing.T) *appsv1.DaemonSet {
	t.Helper()
	m, js := awsNode(t)
	m.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": js}
	live, err := apply.Create(m, "uid-aws-node", time.Date(2023, 3, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for i := range live.Spec.Template.Spec.Containers {
		c := &live.Spec.Template.Spec.Containers[i]
		for j := range c.Ports {
			c.Ports[j].HostPort = c.Ports[j].ContainerPort
		}
	}
	live.Spec.Template.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2024-05-01T10:00:00Z"}
	return live
}

func TestApplyKeepsServerSetFields(t *testing.T) {
	live := liveAWSNode(t)
	m, _ := awsNode(t)

	// The replace (Update) drops the hostPort and restartedAt: a rollout.
	if _, ch, err := apply.Update(live, m); err != nil || !ch.Template {
		t.Fatalf("Update: template changed %v, error %v; want a change (the replace this fixes)", ch.Template, err)
	}

	got, ch, err := apply.Apply(live, m)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(apply.Change{}, ch); diff != "" {
		t.Errorf("Apply of the manifest over its own capture (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(live.Spec.Template, got.Spec.Template); diff != "" {
		t.Errorf("template (-want +got):\n%s", diff)
	}
}

func TestApplyChangesWhatTheManifestOwns(t *testing.T) {
	live := liveAWSNode(t)
	m, _ := awsNode(t)
	m.Spec.Template.Spec.Containers[0].Image = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.19.3"
	m.Spec.Template.Spec.InitContainers[0].Env = nil // set last time, left out now: deleted

	got, ch, err := apply.Apply(live, m)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Template || !ch.Spec {
		t.Errorf("Change %+v: want a template change", ch)
	}
	c := got.Spec.Template.Spec.Containers[0]
	for _, x := range []struct{ what, want, got string }{
		{"image", m.Spec.Template.Spec.Containers[0].Image, c.Image},
		{"restartedAt", "2024-05-01T10:00:00Z", got.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"]},
		{"template generation", "2", got.Annotations[appsv1.DeprecatedTemplateGeneration]},
	} {
		if x.want != x.got {
			t.Errorf("%s: want %q, got %q", x.what, x.want, x.got)
		}
	}
	if c.Ports[0].HostPort != 61678 {
		t.Errorf("hostPort %d: want 61678 kept", c.Ports[0].HostPort)
	}
	if env := got.Spec.Template.Spec.InitContainers[0].Env; len(env) != 0 {
		t.Errorf("init container env %v: want it deleted (the last manifest set it)", env)
	}
}

func TestApplyWithoutLastAppliedDeletesNothing(t *testing.T) {
	live := liveAWSNode(t)
	delete(live.Annotations, "kubectl.kubernetes.io/last-applied-configuration")
	m, _ := awsNode(t)
	m.Spec.Template.Spec.InitContainers[0].Env = nil
	got, _, err := apply.Apply(live, m)
	if err != nil {
		t.Fatal(err)
	}
	if env := got.Spec.Template.Spec.InitContainers[0].Env; len(env) != 1 {
		t.Errorf("init container env %v: want it kept (nothing says the manifest set it)", env)
	}
}

func TestApplyBadLastApplied(t *testing.T) {
	live := liveAWSNode(t)
	live.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = "{not json"
	m, _ := awsNode(t)
	_, _, err := apply.Apply(live, m)
	want := `metadata.annotations[kubectl.kubernetes.io/last-applied-configuration]`
	if err == nil || !contains(err.Error(), want) {
		t.Errorf("error %v: want one naming %s", err, want)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
