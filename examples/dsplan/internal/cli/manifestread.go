package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/daemonplan/daemonplan/daemon/apply"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
)

// What kubectl apply would send: the snapshot decoder reads a manifest
// into the typed DaemonSet, which cannot tell image: "" from no image, a
// null from a field left out, or spec.foo from nothing at all. The files
// that hold manifests are read a second time, document by document, for
// each manifest's own JSON, which the merge sends (apply.Merge) and the
// strict decoding judges (apply.DecodeManifest). The same reading finds
// DaemonSets of an old apiVersion that are manifests (no uid): kubectl
// apply would refuse them, so they are an error, where a captured one is
// read past with a note. A file that gives nothing to plan (an empty file,
// only kinds or versions a plan does not read) is an error naming the file
// and what it holds: it never leaves the input to another source.

// rawObject is one object of a file, as its JSON.
type rawObject struct {
	apiVersion, kind, namespace, name, uid string
	js                                     []byte
}

// rawObjects returns the objects of data (YAML or JSON documents; the
// items of a List), each as the JSON of its document.
func rawObjects(data []byte) ([]rawObject, error) {
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []rawObject
	for {
		var doc json.RawMessage
		err := d.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		objs, err := rawDoc(doc)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
}

// rawDoc reads one document: an object, a List's items, or nothing.
func rawDoc(doc json.RawMessage) ([]rawObject, error) {
	doc = bytes.TrimSpace(doc)
	if len(doc) == 0 || string(doc) == "null" || doc[0] != '{' {
		return nil, nil
	}
	var head struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
		Metadata   struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
			UID       string `json:"uid"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		// The snapshot decoder, which read the file first, names what
		// is wrong; here a document that does not read is left out.
		return nil, nil
	}
	if strings.HasSuffix(head.Kind, "List") && head.Items != nil {
		var out []rawObject
		for _, it := range head.Items {
			objs, err := rawDoc(it)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
		return out, nil
	}
	ns := head.Metadata.Namespace
	if ns == "" {
		ns = "default"
	}
	return []rawObject{{apiVersion: head.APIVersion, kind: head.Kind, namespace: ns, name: head.Metadata.Name, uid: head.Metadata.UID, js: doc}}, nil
}

// fileData returns the bytes of the file named by f, or data when the
// file was read whole already (stdin, a pipe).
func fileData(f string, data []byte) ([]byte, error) {
	if data != nil {
		return data, nil
	}
	return os.ReadFile(f)
}

// needsRawRead reports whether the file whose snapshot is s must be read
// again: it holds manifests, or DaemonSets of an old apiVersion.
func needsRawRead(s *snapshot.Snapshot, manifests []manifest) bool {
	if len(manifests) > 0 {
		return true
	}
	for _, n := range s.Notes {
		if n.Reason == snapshot.NoteOtherVersion && strings.HasSuffix(n.What, " DaemonSet") {
			return true
		}
	}
	return false
}

// attachRaw gives each manifest of one file its own JSON, and refuses a
// manifest of an old apiVersion, as kubectl apply would.
func attachRaw(name string, data []byte, manifests []manifest) error {
	objs, err := rawObjects(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	byName := map[string][]byte{}
	for _, o := range objs {
		if o.kind != "DaemonSet" || o.uid != "" {
			continue
		}
		if o.apiVersion != "apps/v1" {
			return fmt.Errorf("%s: DaemonSet %s/%s: kubectl apply would reject it: apiVersion: Unsupported value: %q: no matches for kind \"DaemonSet\" in version %q "+
				"(served as apps/v1 only since Kubernetes 1.16: write apiVersion: apps/v1)", name, o.namespace, o.name, o.apiVersion, o.apiVersion)
		}
		byName[o.namespace+"/"+o.name] = o.js
	}
	for i := range manifests {
		m := &manifests[i]
		m.raw = byName[m.ds.Namespace+"/"+m.ds.Name]
	}
	return nil
}

// emptyFileError says that a file gives nothing to plan, and what it
// holds, from its snapshot's notes.
func emptyFileError(name string, s *snapshot.Snapshot) error {
	if len(s.Notes) == 0 {
		return fmt.Errorf("%s: no DaemonSet to plan: the file holds no Kubernetes object", name)
	}
	var held []string
	for _, n := range s.Notes {
		held = append(held, n.String())
	}
	return fmt.Errorf("%s: no DaemonSet to plan: the file holds nothing a plan reads (%s)", name, strings.Join(held, "; "))
}

// noCaptureError says that manifests were given without a capture to
// apply them over (offline, where no cluster is read instead).
func noCaptureError(ms []manifest) error {
	var names []string
	for _, m := range ms {
		names = append(names, m.ds.Namespace+"/"+m.ds.Name)
	}
	return fmt.Errorf("%s: no DaemonSet to plan: the input holds DaemonSet manifests (%s, without a uid: to be applied over a capture) and no capture; "+
		"add one with another -f (kubectl get daemonsets,nodes,pods,controllerrevisions -A -o yaml), or run kubectl dsplan, which applies them over the cluster of the current context",
		manifestFiles(ms), strings.Join(names, ", "))
}

// manifestFiles names the files the manifests came from, in order, each
// once.
func manifestFiles(ms []manifest) string {
	var files []string
	for _, m := range ms {
		if len(files) == 0 || files[len(files)-1] != m.file {
			files = append(files, m.file)
		}
	}
	return strings.Join(files, ", ")
}

// manifestDecodeError is err, the snapshot decoder's error reading the
// file, or, when the file holds a manifest that does not decode as the API
// server decodes it (a value of the wrong type, a quantity that does not
// parse), that manifest's error, as the API server would answer.
func manifestDecodeError(name, path string, data []byte, err error) error {
	var de *snapshot.DecodeError
	if !errors.As(err, &de) {
		return err
	}
	data, rerr := fileData(path, data)
	if rerr != nil {
		return err
	}
	objs, rerr := rawObjects(data)
	if rerr != nil {
		return err
	}
	for _, o := range objs {
		if o.kind != "DaemonSet" || o.apiVersion != "apps/v1" || o.uid != "" {
			continue
		}
		if _, derr := apply.DecodeManifest(o.js); derr != nil {
			return fmt.Errorf("%s: daemonset %q: the API server would reject it: %w", name, o.namespace+"/"+o.name, derr)
		}
	}
	return err
}
