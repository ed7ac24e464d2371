package snapshot

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// Encode returns s as one YAML document of kind List, as kubectl prints
// it: the DaemonSets, then the nodes, the pods and the revisions, each kind
// in s's order (nil entries left out). Decoding the result gives a snapshot equal to s, except
// for Skipped and Replaced. Times are written to the second, as the API
// server writes them.
func (s *Snapshot) Encode() ([]byte, error) {
	items := make([]any, 0, len(s.DaemonSets)+len(s.Nodes)+len(s.Pods)+len(s.Revisions))
	items = appendTyped(items, s.DaemonSets, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))
	items = appendTyped(items, s.Nodes, corev1.SchemeGroupVersion.WithKind("Node"))
	items = appendTyped(items, s.Pods, corev1.SchemeGroupVersion.WithKind("Pod"))
	items = appendTyped(items, s.Revisions, appsv1.SchemeGroupVersion.WithKind("ControllerRevision"))
	list := struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Items      []any  `json:"items"`
	}{"v1", "List", items}
	out, err := yaml.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("snapshot: encoding: %w", err)
	}
	return out, nil
}

// appendTyped appends to items a copy of each non-nil object of objs with
// its apiVersion and kind set to gvk, leaving objs untouched.
func appendTyped[E any, P interface {
	*E
	runtime.Object
}](items []any, objs []P, gvk schema.GroupVersionKind) []any {
	for _, o := range objs {
		if o == nil {
			continue
		}
		c := o.DeepCopyObject()
		c.GetObjectKind().SetGroupVersionKind(gvk)
		items = append(items, c)
	}
	return items
}
