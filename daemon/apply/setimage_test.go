package apply_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/apply"
)

// twoContainers is node-exporter with kube-rbac-proxy and an init container.
func twoContainers() *appsv1.DaemonSet {
	ds := manifest("quay.io/prometheus/node-exporter:v1.9.1")
	ds.Spec.Template.Spec.Containers[0].Name = "node-exporter"
	ds.Spec.Template.Spec.Containers = append(ds.Spec.Template.Spec.Containers,
		corev1.Container{Name: "kube-rbac-proxy", Image: "quay.io/brancz/kube-rbac-proxy:v0.14.0"})
	ds.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox:1.36"}}
	return ds
}

func images(ds *appsv1.DaemonSet) []string {
	var out []string
	for _, c := range append(ds.Spec.Template.Spec.InitContainers, ds.Spec.Template.Spec.Containers...) {
		out = append(out, c.Name+"="+c.Image)
	}
	return out
}

func TestSetImages(t *testing.T) {
	for _, c := range []struct {
		name  string
		specs []string
		want  []string
	}{
		{"one by name", []string{"kube-rbac-proxy=quay.io/brancz/kube-rbac-proxy:v0.15.0"},
			[]string{"init=busybox:1.36", "node-exporter=quay.io/prometheus/node-exporter:v1.9.1", "kube-rbac-proxy=quay.io/brancz/kube-rbac-proxy:v0.15.0"}},
		{"several, init included", []string{"init=busybox:1.37", "node-exporter=quay.io/prometheus/node-exporter:v1.10.0"},
			[]string{"init=busybox:1.37", "node-exporter=quay.io/prometheus/node-exporter:v1.10.0", "kube-rbac-proxy=quay.io/brancz/kube-rbac-proxy:v0.14.0"}},
		{"all", []string{"*=registry.local/mirror:v1"},
			[]string{"init=registry.local/mirror:v1", "node-exporter=registry.local/mirror:v1", "kube-rbac-proxy=registry.local/mirror:v1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := twoContainers()
			got, err := apply.SetImages(in, c.specs...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, images(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(twoContainers(), in); diff != "" {
				t.Errorf("input modified (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetImagesErrors(t *testing.T) {
	for _, c := range []struct {
		specs []string
		want  string
	}{
		{[]string{"kube-rbac-prxy=quay.io/brancz/kube-rbac-proxy:v0.15.0"}, `no container "kube-rbac-prxy" (it has init, node-exporter, kube-rbac-proxy); did you mean "kube-rbac-proxy"?`},
		{[]string{"sidecar=x:1"}, `no container "sidecar" (it has init, node-exporter, kube-rbac-proxy)`},
		{[]string{"quay.io/prometheus/node-exporter:v1.10.0"}, "the template has 2 containers: write NAME=IMAGE"},
		{[]string{"=x:1"}, "the container name is empty"},
		{[]string{"init="}, "the image is empty"},
		{[]string{"init=Not An Image"}, `"Not An Image" is not an image reference`},
		{[]string{"init=a:1", "init=b:1"}, `container "init" is named twice`},
	} {
		_, err := apply.SetImages(twoContainers(), c.specs...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SetImages(%q): error %v, want one containing %q", c.specs, err, c.want)
		}
	}
}

func TestSetImagesOnlyContainer(t *testing.T) {
	got, err := apply.SetImages(manifest("a:1"), "a:2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"agent=a:2"}, images(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func FuzzSetImages(f *testing.F) {
	f.Add("kube-rbac-proxy=quay.io/brancz/kube-rbac-proxy:v0.15.0")
	f.Add("*=a:1")
	f.Add("x=")
	f.Fuzz(func(t *testing.T, spec string) {
		in := twoContainers()
		got, err := apply.SetImages(in, spec)
		if diff := cmp.Diff(twoContainers(), in); diff != "" {
			t.Fatalf("input modified:\n%s", diff)
		}
		if err != nil {
			if got != nil {
				t.Fatal("a result with an error")
			}
			return
		}
		_, image, _ := strings.Cut(spec, "=")
		if !strings.Contains(strings.Join(images(got), " "), "="+image) {
			t.Fatalf("SetImages(%q): no container has %q: %v", spec, image, images(got))
		}
	})
}
