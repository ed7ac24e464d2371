package apply

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon/internal/nearest"
)

// SetImages returns a copy of ds with container images set as kubectl set
// image sets them: each spec is NAME=IMAGE, NAME a container or an init
// container of the pod template, or "*" for every one of them; several
// specs are applied in order. A spec without "=" is an IMAGE for the
// only container of a template that has one (init containers aside).
//
// It returns an error, naming the spec (the caller names the DaemonSet), for a spec with an empty name or
// image, an image that is not an image reference, a name no container
// has (with the nearest name: "did you mean"), a name given twice, and a
// bare IMAGE when the template has several containers. A nil ds is an
// error. It modifies nothing.
func SetImages(ds *appsv1.DaemonSet, specs ...string) (*appsv1.DaemonSet, error) {
	if ds == nil {
		return nil, field.Required(field.NewPath("daemonSet"), "a DaemonSet is required")
	}
	out := ds.DeepCopy()
	pod := &out.Spec.Template.Spec
	var names []string
	for _, c := range pod.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Containers {
		names = append(names, c.Name)
	}
	seen := map[string]bool{}
	for _, spec := range specs {
		name, image, err := parseImageSpec(spec, pod)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, fmt.Errorf("image %q: container %q is named twice", spec, name)
		}
		seen[name] = true
		inInit := setImage(pod.InitContainers, name, image)
		if inMain := setImage(pod.Containers, name, image); !inInit && !inMain {
			msg := fmt.Sprintf("image %q: the pod template has no container %q (it has %s)", spec, name, strings.Join(names, ", "))
			if near, ok := nearest.Closest(name, names, max(2, len(name)/3)); ok {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
			return nil, fmt.Errorf("%s", msg)
		}
	}
	return out, nil
}

// parseImageSpec splits one spec of SetImages.
func parseImageSpec(spec string, pod *corev1.PodSpec) (name, image string, err error) {
	name, image, found := strings.Cut(spec, "=")
	if !found {
		if len(pod.Containers) != 1 {
			return "", "", fmt.Errorf("image %q: the template has %d containers: write NAME=IMAGE (or *=IMAGE for all)", spec, len(pod.Containers))
		}
		name, image = pod.Containers[0].Name, spec
	}
	switch {
	case name == "":
		return "", "", fmt.Errorf("image %q: the container name is empty: write NAME=IMAGE", spec)
	case image == "":
		return "", "", fmt.Errorf("image %q: the image is empty: write NAME=IMAGE", spec)
	}
	if _, _, ok := parseImage(image); !ok {
		return "", "", fmt.Errorf("image %q: %q is not an image reference ([registry/]path[:tag][@digest], lowercase path)", spec, image)
	}
	return name, image, nil
}

// setImage sets the image of the containers named name ("*": all) and
// reports whether there was one.
func setImage(cs []corev1.Container, name, image string) bool {
	found := false
	for i := range cs {
		if name == "*" || cs[i].Name == name {
			cs[i].Image, found = image, true
		}
	}
	return found
}
