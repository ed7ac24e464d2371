package apply

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Apply returns the DaemonSet the API server stores when manifest is
// applied over stored with client-side kubectl apply, and what changed.
//
// kubectl apply (client-side, its default) computes a strategic-merge
// patch from three objects: the manifest applied last time (stored's
// kubectl.kubernetes.io/last-applied-configuration annotation), the new
// manifest, and the live object. The patch sets what the manifest sets
// and deletes only what the last manifest set and this one leaves out;
// a field another writer set (a hostPort the API server defaulted into
// the template before Kubernetes 1.28, kubectl rollout restart's
// restartedAt annotation) is kept. Lists merge by their Kubernetes merge
// keys (containers by name, ports by containerPort). Without the
// annotation nothing is deleted, as kubectl does with an object it did
// not create. The patched object is then written as Update writes a
// manifest (defaults, generations, status), and its last-applied
// annotation is the manifest, as kubectl writes it.
//
// It returns Update's errors, and an error naming the annotation when
// stored's last-applied configuration is not a JSON object. It modifies
// nothing.
func Apply(stored, manifest *appsv1.DaemonSet) (*appsv1.DaemonSet, Change, error) {
	switch {
	case stored == nil:
		return nil, Change{}, field.Required(field.NewPath("stored"), "a stored DaemonSet is required")
	case manifest == nil:
		return nil, Change{}, field.Required(field.NewPath("daemonSet"), "a DaemonSet is required")
	}
	merged, err := merge(stored, manifest)
	if err != nil {
		return nil, Change{}, err
	}
	return Update(stored, merged)
}

// merge is kubectl apply's three-way strategic merge of manifest over
// stored, with the new last-applied annotation.
func merge(stored, manifest *appsv1.DaemonSet) (*appsv1.DaemonSet, error) {
	m := manifest.DeepCopy()
	delete(m.Annotations, lastApplied)
	m.Status = appsv1.DaemonSetStatus{}
	modified, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding the manifest: %w", err)
	}
	data, err := applyPatch(stored, modified)
	if err != nil {
		return nil, err
	}
	out := &appsv1.DaemonSet{}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("decoding the applied object: %w", err)
	}
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[lastApplied] = string(modified)
	return out, nil
}

// shorten cuts v to 64 bytes for an error message.
func shorten(v string) string {
	if len(v) > 64 {
		return v[:64] + "…"
	}
	return v
}

// applyPatch is kubectl apply's client-side patch of stored by modified
// (the manifest as kubectl sends it): the three-way strategic merge patch
// from the last-applied annotation ({} without it), applied to stored. It
// returns the merged object's JSON; a last-applied annotation that is not
// a JSON object is a *field.Error naming it.
func applyPatch(stored *appsv1.DaemonSet, modified []byte) ([]byte, error) {
	original := []byte("{}")
	if v, ok := stored.Annotations[lastApplied]; ok && v != "" {
		var obj map[string]any
		if err := json.Unmarshal([]byte(v), &obj); err != nil {
			return nil, field.Invalid(field.NewPath("metadata", "annotations").Key(lastApplied), shorten(v), "not a JSON object: "+err.Error())
		}
		original = []byte(v)
	}
	current, err := json.Marshal(stored)
	if err != nil {
		return nil, fmt.Errorf("encoding the stored object: %w", err)
	}
	schema, err := strategicpatch.NewPatchMetaFromStruct(appsv1.DaemonSet{})
	if err != nil {
		return nil, err
	}
	patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, schema, true)
	if err != nil {
		return nil, fmt.Errorf("computing the apply patch: %w", err)
	}
	data, err := strategicpatch.StrategicMergePatchUsingLookupPatchMeta(current, patch, schema)
	if err != nil {
		return nil, fmt.Errorf("applying the apply patch: %w", err)
	}
	return data, nil
}
