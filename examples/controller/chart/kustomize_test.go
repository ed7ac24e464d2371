package chart_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// kustomized builds the kustomization in dir with kustomize's own library
// (what kubectl apply -k runs) and returns its objects by kind/namespace/name.
func kustomized(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	res, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	out := map[string]map[string]any{}
	for _, r := range res.Resources() {
		m, err := r.Map()
		if err != nil {
			t.Fatalf("kustomize build %s: %s: %v", dir, r.CurId(), err)
		}
		out[key(m)] = normal(t, m)
	}
	return out
}

// normal returns m as encoding/json decodes it (numbers as float64), so
// that kustomize's and sigs.k8s.io/yaml's decodings compare.
func normal(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// key names a decoded object as kind/namespace/name.
func key(m map[string]any) string {
	meta, _ := m["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	kind, _ := m["kind"].(string)
	return kind + "/" + ns + "/" + name
}

// plainObjects decodes the plain manifests (as plainManifests renders them)
// of the given files, later files replacing earlier objects of the same key.
func plainObjects(t *testing.T, files ...string) map[string]map[string]any {
	t.Helper()
	plain := plainManifests(t)
	out := map[string]map[string]any{}
	for _, f := range files {
		for _, o := range (rendered{files: map[string]string{f: plain[f]}}).objects(t) {
			var m map[string]any
			if err := yaml.Unmarshal(o.doc, &m); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out[key(m)] = normal(t, m)
		}
	}
	return out
}

// TestKustomize builds deploy/ and deploy/replace/ with kustomize and
// checks each gives the objects kubectl apply -f gives for the same
// directory. One source, the chart, for Helm, kubectl apply -f and kubectl
// apply -k.
func TestKustomize(t *testing.T) {
	base := []string{"00-namespace.yaml", "01-serviceaccount.yaml", "02-clusterrole.yaml", "03-leader-election.yaml",
		"04-deployment.yaml", "05-poddisruptionbudget.yaml", "06-metrics-service.yaml"}
	for _, tc := range []struct {
		dir   string
		files []string
	}{
		{dir: deployDir, files: base},
		{dir: deployDir + "/replace", files: []string{"replace/clusterrole.yaml", "replace/deployment.yaml"}},
		{dir: deployDir + "/monitoring", files: []string{"monitoring/prometheusrule.yaml", "monitoring/servicemonitor.yaml"}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			want := plainObjects(t, tc.files...)
			got := kustomized(t, tc.dir)
			if diff := cmp.Diff(slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(got))); diff != "" {
				t.Fatalf("kustomize build %s: objects (-kubectl apply -f +kustomize):\n%s", tc.dir, diff)
			}
			for k := range want {
				if diff := cmp.Diff(want[k], got[k]); diff != "" {
					t.Errorf("kustomize build %s: %s (-kubectl apply -f +kustomize):\n%s", tc.dir, k, diff)
				}
			}
		})
	}
}
