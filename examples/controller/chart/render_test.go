package chart_test

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"
)

// chartDir is the chart, relative to this package.
const chartDir = "daemonplan-controller"

// The release the plain manifests are rendered as, and the tests' default:
// its name holds the chart's, so the objects are named
// daemonplan-controller, daemonplan-controller-companion, ….
const (
	releaseName      = "daemonplan-controller"
	releaseNamespace = "daemonplan-system"
)

// rendered is one render of the chart: each template's output by its path
// under the chart ("templates/deployment.yaml"), the partials and empty
// outputs left out.
type rendered struct {
	files map[string]string
	// notes is templates/NOTES.txt, what helm install prints.
	notes string
}

// loadChart loads the chart from its directory, as helm install does.
func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("load %s: %v", chartDir, err)
	}
	return ch
}

// render renders the chart with values (the chart's values.yaml under
// them) as release name in namespace, through the values' schema; service
// is .Release.Service ("Helm" for helm install).
func render(ch *chart.Chart, values map[string]any, name, namespace, service string) (rendered, error) {
	vals, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: name, Namespace: namespace, IsInstall: true, Revision: 1}, nil)
	if err != nil {
		return rendered{}, err
	}
	vals["Release"].(map[string]any)["Service"] = service
	out, err := engine.Render(ch, vals)
	if err != nil {
		return rendered{}, err
	}
	r := rendered{files: map[string]string{}}
	prefix := ch.Name() + "/"
	for k, v := range out {
		k = strings.TrimPrefix(k, prefix)
		if k == "templates/NOTES.txt" {
			r.notes = v
			continue
		}
		if strings.HasPrefix(path.Base(k), "_") || path.Ext(k) != ".yaml" || strings.TrimSpace(stripComments(v)) == "" {
			continue
		}
		r.files[k] = v
	}
	return r, nil
}

// testImage is the image the tests install: the chart has no default
// image until a release publishes one.
var testImage = map[string]any{"repository": "registry.example.com/you/controller", "tag": "dev"}

// withImage returns a deep copy of values (Helm's coalescing writes the
// chart's defaults into the values it is given) with testImage's
// repository, and its tag unless values set a tag or a digest, where
// values set none.
func withImage(values map[string]any) map[string]any {
	out, _ := deepCopy(values).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	img, _ := out["image"].(map[string]any)
	if img == nil {
		img = map[string]any{}
	}
	if _, ok := img["repository"]; !ok {
		img["repository"] = testImage["repository"]
	}
	_, tag := img["tag"]
	if _, digest := img["digest"]; !tag && !digest {
		img["tag"] = testImage["tag"]
	}
	out["image"] = img
	return out
}

// deepCopy copies the maps and slices of a values tree.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// mustRender renders as the tests' release through Helm, with testImage
// unless values name an image.
func mustRender(t *testing.T, values map[string]any) rendered {
	t.Helper()
	values = withImage(values)
	r, err := render(loadChart(t), values, releaseName, releaseNamespace, "Helm")
	if err != nil {
		t.Fatalf("render with %v: %v", values, err)
	}
	return r
}

// object is one rendered document: its kind, name and namespace, and the
// document itself.
type object struct {
	file                  string
	kind, name, namespace string
	doc                   []byte
}

func (o object) String() string {
	if o.namespace == "" {
		return o.kind + "/" + o.name
	}
	return o.kind + "/" + o.namespace + "/" + o.name
}

// objects splits the render into its documents, in template order
// (sorted by path), then document order.
func (r rendered) objects(t *testing.T) []object {
	t.Helper()
	var out []object
	for _, file := range slices.Sorted(maps.Keys(r.files)) {
		for i, doc := range strings.Split(r.files[file], "\n---\n") {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			var meta struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				t.Fatalf("%s: document %d: %v\n%s", file, i, err, doc)
			}
			if meta.Kind == "" || meta.Metadata.Name == "" {
				t.Fatalf("%s: document %d has no kind or name:\n%s", file, i, doc)
			}
			out = append(out, object{file: file, kind: meta.Kind, name: meta.Metadata.Name, namespace: meta.Metadata.Namespace, doc: []byte(doc)})
		}
	}
	return out
}

// decode reads o into v, refusing a field v does not have (a typo in a
// template).
func (o object) decode(t *testing.T, v any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(o.doc, v); err != nil {
		t.Fatalf("%s (%s): %v", o, o.file, err)
	}
}

// only returns the one object of kind named name.
func only(t *testing.T, objs []object, kind, name string) object {
	t.Helper()
	var found []object
	for _, o := range objs {
		if o.kind == kind && (name == "" || o.name == name) {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s objects named %q, want 1: %v", len(found), kind, name, found)
	}
	return found[0]
}

// stripComments drops the comment lines of a YAML document.
func stripComments(doc string) string {
	var b strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			fmt.Fprintln(&b, line)
		}
	}
	return b.String()
}

// set builds values from dotted keys ("serviceMonitor.enabled": true).
func set(kv map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range kv {
		m := out
		parts := strings.Split(k, ".")
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[parts[len(parts)-1]] = v
	}
	return out
}
