package scenario

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// CompareCreatedPod compares a pod of a plan with the pod upstream created,
// as recorded in Expected.CreatedPods. It returns "" when they agree, else a
// cmp.Diff of the two generic JSON trees (-want +got), or an error when
// want is not a JSON object or got cannot be rendered.
//
// got is rendered with encoding/json and both sides are decoded into
// generic maps. Before comparing, every key whose value is an empty JSON
// object is removed from both trees, at any depth: encoding/json always
// renders non-pointer structs such as a container's resources as {} where
// the recorded objects leave them out, and an empty object carries no value
// either way. Nothing else is ignored. A nil got is rendered as null and so
// never agrees. It modifies nothing.
func CompareCreatedPod(want json.RawMessage, got *corev1.Pod) (string, error) {
	var w any
	if err := json.Unmarshal(want, &w); err != nil {
		return "", fmt.Errorf("recorded pod: %w", err)
	}
	if _, ok := w.(map[string]any); !ok {
		return "", fmt.Errorf("recorded pod: not a JSON object")
	}
	data, err := json.Marshal(got)
	if err != nil {
		return "", fmt.Errorf("plan pod: %w", err)
	}
	var g any
	if err := json.Unmarshal(data, &g); err != nil {
		return "", fmt.Errorf("plan pod: %w", err)
	}
	return cmp.Diff(pruneEmptyObjects(w), pruneEmptyObjects(g)), nil
}

// pruneEmptyObjects returns v without the map entries whose value is, or
// becomes once pruned, an empty object. Entries of arrays are kept (an
// empty object in a list still counts). v is a tree from json.Unmarshal
// into any; it is not modified.
func pruneEmptyObjects(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			x = pruneEmptyObjects(x)
			if m, ok := x.(map[string]any); ok && len(m) == 0 {
				continue
			}
			out[k] = x
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = pruneEmptyObjects(x)
		}
		return out
	default:
		return v
	}
}

// judgeCreatedPods applies rule 5 of Judge, node by node in name order.
func judgeCreatedPods(e *Expected, plan daemon.Plan) []string {
	nodes := make([]string, 0, len(e.CreatedPods))
	for n := range e.CreatedPods {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	var out []string
	for _, node := range nodes {
		var ours []*corev1.Pod
		for _, c := range plan.Creates {
			if c.NodeName == node {
				ours = append(ours, c.Pod)
			}
		}
		recorded := 0
		for _, n := range e.Creates {
			if n == node {
				recorded++
			}
		}
		switch {
		case len(ours) == 0:
			out = append(out, fmt.Sprintf("createdPods[%q]: plan creates no pod on the node", node))
			continue
		case len(ours) > 1 && recorded <= 1:
			out = append(out, fmt.Sprintf("createdPods[%q]: plan creates %d pods on the node, upstream one", node, len(ours)))
			continue
		}
		var firstDiff string
		matched := false
		for _, p := range ours {
			diff, err := CompareCreatedPod(e.CreatedPods[node], p)
			if err != nil {
				out = append(out, fmt.Sprintf("createdPods[%q]: %v", node, err))
				matched = true // reported; do not add a diff as well
				break
			}
			if diff == "" {
				matched = true
				break
			}
			if firstDiff == "" {
				firstDiff = diff
			}
		}
		if !matched {
			out = append(out, fmt.Sprintf("createdPods[%q]: pod mismatch (-want +got):\n%s", node, firstDiff))
		}
	}
	return out
}
