package apply_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/daemon/apply"
)

// awsNodeJSON is the aws-node manifest's JSON changed by f, as a file
// would hold it.
func awsNodeJSON(t *testing.T, f func(obj map[string]any)) []byte {
	t.Helper()
	_, js := awsNode(t)
	var obj map[string]any
	if err := json.Unmarshal([]byte(js), &obj); err != nil {
		t.Fatal(err)
	}
	f(obj)
	out, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// container0 is the first container of obj's template.
func container0(obj map[string]any) map[string]any {
	spec := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	return spec["containers"].([]any)[0].(map[string]any)
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name string
		edit func(obj map[string]any)
		// image is the merged first container's image; err a substring
		// of the error, when one is wanted.
		image, err string
	}{
		{name: "the manifest over its own capture", edit: func(map[string]any) {}, image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.19.2"},
		{name: "a new image", edit: func(o map[string]any) { container0(o)["image"] = "cni:v2" }, image: "cni:v2"},
		// The finding of #37: a typed manifest loses the empty string,
		// and the stored image stayed.
		{name: "an explicit empty image is sent", edit: func(o map[string]any) { container0(o)["image"] = "" }, image: ""},
		{name: "a null deletes the image", edit: func(o map[string]any) { container0(o)["image"] = nil }, image: ""},
		{name: "an unknown field", edit: func(o map[string]any) { container0(o)["imagePolicy"] = "Always" },
			err: `strict decoding error: unknown field "spec.template.spec.containers[0].imagePolicy"`},
		{name: "field names are case-sensitive", edit: func(o map[string]any) { container0(o)["Image"] = "x" },
			err: `unknown field "spec.template.spec.containers[0].Image"`},
		{name: "a wrong type", edit: func(o map[string]any) { o["spec"].(map[string]any)["minReadySeconds"] = "ten" },
			err: "DaemonSetSpec.spec.minReadySeconds of type int32"},
		{name: "another apiVersion", edit: func(o map[string]any) { o["apiVersion"] = "apps/v1beta2" },
			err: `apiVersion: Invalid value: "apps/v1beta2 DaemonSet": not an apps/v1 DaemonSet`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live := liveAWSNode(t)
			before := live.DeepCopy()
			got, err := apply.Merge(live, awsNodeJSON(t, tt.edit))
			if diff := cmp.Diff(before, live); diff != "" {
				t.Errorf("Merge modified the stored object (-before +after):\n%s", diff)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v: want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c := got.Spec.Template.Spec.Containers[0]; c.Image != tt.image {
				t.Errorf("image %q, want %q", c.Image, tt.image)
			}
			// What another writer set is kept, as Apply keeps it.
			if got.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] == "" {
				t.Error("restartedAt dropped: the merge must keep what the manifest does not own")
			}
			last := got.Annotations["kubectl.kubernetes.io/last-applied-configuration"]
			if want := string(awsNodeJSON(t, tt.edit)); !jsonEqual(t, last, want) {
				t.Errorf("last-applied annotation %s, want the manifest %s", last, want)
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	return cmp.Equal(x, y)
}

func TestDecodeManifest(t *testing.T) {
	tests := []struct {
		name, yaml, err string
	}{
		{name: "no apiVersion and kind: read as a DaemonSet", yaml: "metadata: {name: x}\n"},
		{name: "a Deployment", yaml: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n", err: `not an apps/v1 DaemonSet`},
		{name: "a duplicate field", yaml: `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"x","name":"y"}}`, err: `duplicate field "metadata.name"`},
		{name: "a bad quantity", yaml: "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: x}\nspec: {template: {spec: {containers: [{name: c, resources: {limits: {cpu: abc}}}]}}}\n",
			err: "quantities must match the regular expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			js := []byte(tt.yaml)
			if !strings.HasPrefix(tt.yaml, "{") {
				// YAML would keep one of two duplicate keys.
				var err error
				if js, err = yaml.YAMLToJSON(js); err != nil {
					t.Fatal(err)
				}
			}
			ds, err := apply.DecodeManifest(js)
			switch {
			case tt.err == "" && err != nil:
				t.Fatal(err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v: want one containing %q", err, tt.err)
			case tt.err == "" && (ds.APIVersion != "apps/v1" || ds.Kind != "DaemonSet" || ds.Name != "x"):
				t.Errorf("decoded %s %s %q", ds.APIVersion, ds.Kind, ds.Name)
			}
		})
	}
}
