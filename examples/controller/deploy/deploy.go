// Package deploy holds the plain manifests that run the example controller
// in a cluster — a Namespace, a ServiceAccount, the ClusterRole of
// companion mode and its binding, the Role of the leader-election Lease and
// its binding, a Deployment of two replicas, its PodDisruptionBudget and
// its metrics Service — plus what replace mode adds (replace/), the
// prometheus-operator objects (monitoring/) and an Argo CD health check
// (argocd/). Apply them with
//
//	kubectl apply -f examples/controller/deploy/
//
// or with kustomize, from the generated Kustomization files (named so that
// kubectl apply -f reads only the .yaml files), kubectl apply -k
// examples/controller/deploy/.
//
// The .yaml files of this directory, replace/ and monitoring/ are the Helm
// chart's renders (examples/controller/chart/daemonplan-controller), written
// by that module's TestPlainManifests, which fails when they drift; after
// changing the chart, rewrite them with `go generate ./deploy` from
// examples/controller. argocd/ is written by hand.
//
// The package embeds the same files so that the tests, the end-to-end suite
// among them, use exactly what people apply.
package deploy

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

//go:generate sh -c "cd ../chart && go test -count=1 -run TestPlainManifests -update ."

//go:embed *.yaml replace/*.yaml monitoring/*.yaml argocd/*
var files embed.FS

// Companion returns the objects of the manifests in this directory (what
// `kubectl apply -f deploy/` applies), in file order, then document order.
// The files are numbered so that kubectl, which applies them in name
// order, creates the Namespace first.
func Companion() ([]runtime.Object, error) { return objects(".") }

// Replace returns the objects of replace/: what replace mode adds (its
// ClusterRole and binding) and the Deployment it runs (--mode=replace),
// which replaces the one of Companion when applied after it.
func Replace() ([]runtime.Object, error) { return objects("replace") }

// File returns the content of one of the embedded files, by its path in
// this directory ("argocd/health.lua").
func File(name string) ([]byte, error) { return files.ReadFile(name) }

// objects decodes every .yaml file of dir.
func objects(dir string) ([]runtime.Object, error) {
	entries, err := fs.ReadDir(files, dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && path.Ext(e.Name()) == ".yaml" {
			names = append(names, path.Join(dir, e.Name()))
		}
	}
	slices.Sort(names)
	decode := scheme.Codecs.UniversalDeserializer()
	var out []runtime.Object
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		r := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for i := 0; ; i++ {
			doc, err := r.Read()
			if err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("%s: document %d: %w", name, i, err)
			}
			if len(bytes.TrimSpace(stripComments(doc))) == 0 {
				continue
			}
			obj, _, err := decode.Decode(doc, nil, nil)
			if err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", name, i, err)
			}
			out = append(out, obj)
		}
	}
	return out, nil
}

// stripComments drops the comment lines of a YAML document.
func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(append(out, line...), '\n')
		}
	}
	return out
}
