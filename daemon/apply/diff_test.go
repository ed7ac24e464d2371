package apply_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/apply"
)

func TestTemplateDiff(t *testing.T) {
	before := twoContainers()
	after, err := apply.SetImages(before, "kube-rbac-proxy=quay.io/brancz/kube-rbac-proxy:v0.15.0")
	if err != nil {
		t.Fatal(err)
	}
	after.Spec.Template.Labels["app.kubernetes.io/version"] = "1.10"
	after.Spec.Template.Spec.Containers[0].Ports = nil
	got, err := apply.TemplateDiff(before, after)
	if err != nil {
		t.Fatal(err)
	}
	want := []apply.FieldDiff{
		{Path: "spec.template.metadata.labels[app.kubernetes.io/version]", New: `"1.10"`},
		{Path: "spec.template.spec.containers[kube-rbac-proxy].image", Old: `"quay.io/brancz/kube-rbac-proxy:v0.14.0"`, New: `"quay.io/brancz/kube-rbac-proxy:v0.15.0"`},
		{Path: "spec.template.spec.containers[node-exporter].ports", Old: `[{"containerPort":9100,"protocol":"TCP"}]`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if s, w := got[1].String(), `spec.template.spec.containers[kube-rbac-proxy].image: "quay.io/brancz/kube-rbac-proxy:v0.14.0" → "quay.io/brancz/kube-rbac-proxy:v0.15.0"`; s != w {
		t.Errorf("String() = %s, want %s", s, w)
	}
	if got, _ := apply.TemplateDiff(before, before); len(got) != 0 {
		t.Errorf("TemplateDiff of one object: %v, want none", got)
	}
}
