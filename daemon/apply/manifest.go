package apply

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DecodeManifest decodes the JSON of one apps/v1 DaemonSet as
// kube-apiserver decodes a request body under fieldValidation=Strict,
// which kubectl apply asks for by default (--validate=strict): field
// names match case-sensitively, and an unknown or duplicate field is an
// error ("strict decoding error: unknown field \"spec.foo\""), as is a
// value of the wrong type ("json: cannot unmarshal string into Go struct
// field DaemonSetSpec.spec.minReadySeconds of type int32"), a quantity that
// does not parse, or an apiVersion and kind other than apps/v1 DaemonSet
// (a manifest without them is read as one). It modifies nothing.
func DecodeManifest(js []byte) (*appsv1.DaemonSet, error) {
	scheme := runtime.NewScheme()
	if err := appsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	want := appsv1.SchemeGroupVersion.WithKind("DaemonSet")
	if gvk, err := kjson.DefaultMetaFactory.Interpret(js); err == nil {
		// What the manifest says it is, where it says: the scheme knows
		// apps/v1 only and would name nothing better.
		if v := gvk.GroupVersion().String(); v != "" && v != "apps/v1" || gvk.Kind != "" && gvk.Kind != want.Kind {
			return nil, field.Invalid(field.NewPath("apiVersion"), strings.TrimSpace(v+" "+gvk.Kind), "not an apps/v1 DaemonSet")
		}
	}
	s := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Strict: true})
	obj, _, err := s.Decode(js, &want, &appsv1.DaemonSet{})
	if err != nil {
		return nil, err
	}
	ds, ok := obj.(*appsv1.DaemonSet)
	if !ok {
		return nil, fmt.Errorf("decoded a %T, not a DaemonSet", obj)
	}
	ds.APIVersion, ds.Kind = "apps/v1", "DaemonSet"
	return ds, nil
}

// Merge returns the DaemonSet kube-apiserver decodes when kubectl apply
// (client-side, its default) applies manifest, the JSON of the document
// as the file holds it, over stored, before the API server defaults and
// validates it: what Apply writes with Update, for a caller that validates
// in between (validation.Validate), as the API server does.
//
// Unlike Apply, which takes a decoded manifest, Merge sees what a decoding
// loses and kubectl sends: an explicit empty string, zero or false, and a
// null, which deletes the field (image: "" replaces the stored image with
// nothing, and the API server then answers
// spec.template.spec.containers[0].image: Required value). The patch is
// kubectl's three-way strategic merge: from stored's last-applied
// configuration annotation (nothing is deleted without one, as kubectl
// does with an object it did not create), the manifest with the new
// annotation (the manifest without its status and its own annotation, as
// kubectl writes it), and stored. The manifest and the patched object are
// decoded with DecodeManifest and its errors.
//
// It returns an error naming the annotation when stored's last-applied
// configuration is not a JSON object. It modifies nothing.
func Merge(stored *appsv1.DaemonSet, manifest []byte) (*appsv1.DaemonSet, error) {
	if stored == nil {
		return nil, field.Required(field.NewPath("stored"), "a stored DaemonSet is required")
	}
	if _, err := DecodeManifest(manifest); err != nil {
		return nil, err
	}
	modified, err := modifiedConfiguration(manifest)
	if err != nil {
		return nil, err
	}
	data, err := applyPatch(stored, modified)
	if err != nil {
		return nil, err
	}
	return DecodeManifest(data)
}

// modifiedConfiguration is manifest as kubectl apply sends it: without
// its status, with the last-applied annotation set to the manifest
// without that annotation. Numbers are kept as written.
func modifiedConfiguration(manifest []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(manifest))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil || obj == nil {
		return nil, fmt.Errorf("the manifest is not a JSON object: %v", err)
	}
	delete(obj, "status")
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	ann, _ := meta["annotations"].(map[string]any)
	delete(ann, lastApplied)
	last, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding the manifest: %w", err)
	}
	if ann == nil {
		ann = map[string]any{}
		meta["annotations"] = ann
	}
	ann[lastApplied] = string(last)
	return json.Marshal(obj)
}
