package chart_test

import (
	"flag"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the plain manifests in ../deploy from the chart's renders")

// deployDir holds the plain manifests, for kubectl apply -f.
const deployDir = "../deploy"

// plainRender is one render of the chart written out to deployDir: the
// values, and the file each template's output goes to. A template this
// render outputs and files does not name must render as in the default
// render (the plain manifests hold it there).
type plainRender struct {
	name   string
	values map[string]any
	files  map[string]string
	// note opens each file, after the header.
	note string
}

var plainRenders = []plainRender{
	{
		name: "default values",
		files: map[string]string{
			"templates/serviceaccount.yaml":        "01-serviceaccount.yaml",
			"templates/clusterrole-companion.yaml": "02-clusterrole.yaml",
			"templates/leader-election.yaml":       "03-leader-election.yaml",
			"templates/deployment.yaml":            "04-deployment.yaml",
			"templates/poddisruptionbudget.yaml":   "05-poddisruptionbudget.yaml",
			"templates/service.yaml":               "06-metrics-service.yaml",
		},
	},
	{
		name:   "mode=replace",
		values: map[string]any{"mode": "replace"},
		files: map[string]string{
			"templates/clusterrole-replace.yaml": "replace/clusterrole.yaml",
			"templates/deployment.yaml":          "replace/deployment.yaml",
		},
		note: "# Replace mode: apply after ../ (kubectl apply -f deploy/replace/), which\n" +
			"# adds the replace ClusterRole and switches the Deployment to --mode=replace.\n",
	},
	{
		name:   "the ServiceMonitor and PrometheusRule on",
		values: set(map[string]any{"serviceMonitor.enabled": true, "prometheusRule.enabled": true}),
		files: map[string]string{
			"templates/servicemonitor.yaml": "monitoring/servicemonitor.yaml",
			"templates/prometheusrule.yaml": "monitoring/prometheusrule.yaml",
		},
		note: "# Needs prometheus-operator's CRDs: kubectl apply -f deploy/monitoring/.\n",
	},
}

// plainDirs are the directories of deployDir whose .yaml files are all
// generated (argocd/ is written by hand).
var plainDirs = []string{".", "replace", "monitoring"}

// namespaceFile is the plain manifests' Namespace, which Helm takes from
// --namespace instead.
const namespaceFile = `# The namespace of the daemonplan controller and of its leader-election Lease.
# Written by examples/controller/chart's TestPlainManifests: with Helm,
# --namespace ` + releaseNamespace + ` --create-namespace makes it.
apiVersion: v1
kind: Namespace
metadata:
  name: ` + releaseNamespace + `
`

// The plain manifests leave the image empty: no release has published one,
// and the API server refuses a Deployment without an image, so that
// applying them unchanged fails at once instead of pulling an image that
// does not exist. They are rendered with this image, then unsetImage
// empties it.
const (
	plainImageRepository = "image-not-set.invalid/controller"
	plainImageTag        = "unset"
)

// unsetImageNote says, above the empty image, what to set.
const unsetImageNote = `# No release has published the controller's image yet: set this to the image
# you built and pushed (README.md, Install). Until then the API server refuses
# this Deployment: spec.template.spec.containers[0].image: Required value.
`

// unsetImage replaces the render's image line in doc (of template tpl)
// by an empty image under unsetImageNote, indented as the line was.
func unsetImage(t *testing.T, tpl, doc string) string {
	t.Helper()
	line := "image: " + plainImageRepository + ":" + plainImageTag + "\n"
	switch n := strings.Count(doc, plainImageRepository); {
	case n == 0:
		return doc
	case n > 1 || strings.Count(doc, line) != 1:
		t.Fatalf("%s names the image other than in one image line:\n%s", tpl, doc)
	}
	at := strings.Index(doc, line)
	start := strings.LastIndex(doc[:at], "\n") + 1
	indent := doc[start:at]
	if strings.TrimSpace(indent) != "" {
		t.Fatalf("%s: the image line is not a YAML key alone on its line", tpl)
	}
	var note strings.Builder
	for _, l := range strings.SplitAfter(unsetImageNote, "\n") {
		if l != "" {
			note.WriteString(indent + l)
		}
	}
	return doc[:start] + note.String() + indent + "image: \"\"\n" + doc[at+len(line):]
}

// plainManifests renders the chart as the plain manifests hold it, by
// path under deployDir.
func plainManifests(t *testing.T) map[string]string {
	t.Helper()
	ch := loadChart(t)
	out := map[string]string{"00-namespace.yaml": namespaceFile}
	var base rendered
	for i, pr := range plainRenders {
		// The plain manifests are applied by kubectl, not Helm
		// (app.kubernetes.io/managed-by).
		values := maps.Clone(pr.values)
		if values == nil {
			values = map[string]any{}
		}
		values["image"] = map[string]any{"repository": plainImageRepository, "tag": plainImageTag}
		r, err := render(ch, values, releaseName, releaseNamespace, "kubectl")
		if err != nil {
			t.Fatalf("render %s: %v", pr.name, err)
		}
		for tpl, v := range r.files {
			r.files[tpl] = unsetImage(t, tpl, v)
		}
		if i == 0 {
			base = r
		}
		for _, tpl := range slices.Sorted(maps.Keys(r.files)) {
			file, ok := pr.files[tpl]
			if !ok {
				if r.files[tpl] != base.files[tpl] {
					t.Errorf("render %s: %s differs from the default render's and goes to no file of %s", pr.name, tpl, deployDir)
				}
				continue
			}
			out[file] = "# Generated by TestPlainManifests (examples/controller/chart) from the Helm\n" +
				"# chart daemonplan-controller: " + tpl + " rendered with\n" +
				"# " + pr.name + ",\n" +
				"# as release " + releaseName + " in namespace " + releaseNamespace + ".\n" +
				"# Do not edit: change the chart, then run `go generate ./deploy` in\n" +
				"# examples/controller.\n" +
				pr.note + strings.TrimLeft(r.files[tpl], "\n")
		}
		for tpl, file := range pr.files {
			if _, ok := r.files[tpl]; !ok {
				t.Errorf("render %s: %s (for %s) rendered nothing", pr.name, tpl, file)
			}
		}
	}
	addKustomizations(out)
	return out
}

// kustomizationHeader opens each generated Kustomization file. The file
// is named Kustomization, one of the three names kustomize reads, and not
// kustomization.yaml: kubectl apply -f reads every .yaml file of a
// directory and would refuse a Kustomization as an object of no known kind.
const kustomizationHeader = "# Generated by TestPlainManifests (examples/controller/chart): kustomize's\n" +
	"# view of the plain manifests beside it (kubectl apply -k; its name keeps\n# kubectl apply -f from reading it). Do not edit: run\n" +
	"# `go generate ./deploy` in examples/controller.\n" +
	"apiVersion: kustomize.config.k8s.io/v1beta1\n" +
	"kind: Kustomization\n"

// addKustomizations adds to out (the plain manifests by path) a
// Kustomization per directory, so that `kubectl apply -k deploy/`
// applies what `kubectl apply -f deploy/` does, and likewise for replace/
// and monitoring/: each lists its directory's files. replace/ is applied
// after deploy/, as with -f (kustomize refuses an overlay inside its base's
// directory, so it is no overlay of ../).
func addKustomizations(out map[string]string) {
	list := func(dir string) string {
		var b strings.Builder
		for _, file := range slices.Sorted(maps.Keys(out)) {
			if path.Dir(file) == dir {
				b.WriteString("- " + path.Base(file) + "\n")
			}
		}
		return b.String()
	}
	out["Kustomization"] = kustomizationHeader + "resources:\n" + list(".")
	out["monitoring/Kustomization"] = kustomizationHeader + "resources:\n" + list("monitoring")
	out["replace/Kustomization"] = kustomizationHeader + "resources:\n" + list("replace")
}

// TestPlainManifests keeps ../deploy's plain manifests the chart's
// renders: the default values for deploy/ (plus the Namespace), replace
// mode for deploy/replace/, the monitoring objects for deploy/monitoring/.
// With -update it rewrites them instead (and removes stale ones).
func TestPlainManifests(t *testing.T) {
	want := plainManifests(t)
	var stale []string
	for _, dir := range plainDirs {
		matches, err := filepath.Glob(filepath.Join(deployDir, dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			rel, err := filepath.Rel(deployDir, m)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := want[filepath.ToSlash(rel)]; !ok {
				stale = append(stale, rel)
			}
		}
	}
	if *update {
		for _, rel := range stale {
			if err := os.Remove(filepath.Join(deployDir, rel)); err != nil {
				t.Fatal(err)
			}
		}
		for file, content := range want {
			p := filepath.Join(deployDir, filepath.FromSlash(file))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %d files to %s, removed %q", len(want), deployDir, stale)
		return
	}
	for _, rel := range stale {
		t.Errorf("%s: not a render of the chart; run `go test -run TestPlainManifests -update` here to remove it", path.Join(deployDir, rel))
	}
	for _, file := range slices.Sorted(maps.Keys(want)) {
		got, err := os.ReadFile(filepath.Join(deployDir, filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("%v: run `go test -run TestPlainManifests -update` here", err)
			continue
		}
		if diff := cmp.Diff(want[file], string(got)); diff != "" {
			t.Errorf("%s drifted from the chart; run `go test -run TestPlainManifests -update` here (-chart +file):\n%s", path.Join(deployDir, file), diff)
		}
	}
}
