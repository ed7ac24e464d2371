package snapshot

import (
	"fmt"

	"sigs.k8s.io/yaml"
)

// Encode returns s as one YAML document of kind List, as kubectl prints
// it: the DaemonSets, then the nodes, the pods and the revisions, each kind
// in s's order (nil entries left out). Decoding the result gives a snapshot equal to s, except
// for Skipped and Replaced. Times are written to the second, as the API
// server writes them.
func (s *Snapshot) Encode() ([]byte, error) {
	items := make([]any, 0, len(s.DaemonSets)+len(s.Nodes)+len(s.Pods)+len(s.Revisions))
	for _, d := range s.DaemonSets {
		if d == nil {
			continue
		}
		c := d.DeepCopy()
		c.APIVersion, c.Kind = "apps/v1", "DaemonSet"
		items = append(items, c)
	}
	for _, n := range s.Nodes {
		if n == nil {
			continue
		}
		c := n.DeepCopy()
		c.APIVersion, c.Kind = "v1", "Node"
		items = append(items, c)
	}
	for _, p := range s.Pods {
		if p == nil {
			continue
		}
		c := p.DeepCopy()
		c.APIVersion, c.Kind = "v1", "Pod"
		items = append(items, c)
	}
	for _, r := range s.Revisions {
		if r == nil {
			continue
		}
		c := r.DeepCopy()
		c.APIVersion, c.Kind = "apps/v1", "ControllerRevision"
		items = append(items, c)
	}
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
