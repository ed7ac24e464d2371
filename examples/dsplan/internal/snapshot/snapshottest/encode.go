package snapshottest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime"
	goyaml "sigs.k8s.io/yaml/goyaml.v2"
)

// items returns the objects of c in the order kubectl prints them for
// `get ds,nodes,pods,controllerrevisions`, each with its apiVersion and kind.
func (c *Capture) items() []runtime.Object {
	out := make([]runtime.Object, 0, len(c.DaemonSets)+len(c.Nodes)+len(c.Pods)+len(c.Revisions))
	for _, d := range c.DaemonSets {
		d.APIVersion, d.Kind = "apps/v1", "DaemonSet"
		out = append(out, d)
	}
	for _, n := range c.Nodes {
		n.APIVersion, n.Kind = "v1", "Node"
		out = append(out, n)
	}
	for _, p := range c.Pods {
		p.APIVersion, p.Kind = "v1", "Pod"
		out = append(out, p)
	}
	for _, r := range c.Revisions {
		r.APIVersion, r.Kind = "apps/v1", "ControllerRevision"
		out = append(out, r)
	}
	return out
}

// YAML returns c as `kubectl get ds,nodes,pods,controllerrevisions -A -o
// yaml` prints it: one List, byte for byte what sigs.k8s.io/yaml.Marshal
// (kubectl's printer) gives for it, built one item at a time. It sets the
// apiVersion and kind of c's objects.
func (c *Capture) YAML() []byte {
	var b bytes.Buffer
	_ = c.WriteYAML(&b) // a bytes.Buffer never fails
	return b.Bytes()
}

// WriteYAML writes YAML() to w, one item at a time, and returns the first
// error of w.
func (c *Capture) WriteYAML(w io.Writer) error {
	b := bufio.NewWriterSize(w, 1<<16)
	b.WriteString("apiVersion: v1\nitems:\n")
	for _, o := range c.items() {
		// One item under "items", so that the emitter indents and folds
		// it exactly as within the whole list.
		y, err := goyaml.Marshal(map[string]any{"items": []any{generic(o)}})
		if err != nil {
			panic(fmt.Sprintf("snapshottest: %v", err))
		}
		b.Write(bytes.TrimPrefix(y, []byte("items:\n")))
	}
	b.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return b.Flush()
}

// JSON returns c as `kubectl get ds,nodes,pods,controllerrevisions -A -o
// json` prints it: one List indented by four spaces, every object's keys
// sorted (kubectl prints what it read as unstructured data). It sets the
// apiVersion and kind of c's objects.
func (c *Capture) JSON() []byte {
	var b bytes.Buffer
	_ = c.WriteJSON(&b) // a bytes.Buffer never fails
	return b.Bytes()
}

// WriteJSON writes JSON() to w, one item at a time, and returns the first
// error of w.
func (c *Capture) WriteJSON(w io.Writer) error {
	b := bufio.NewWriterSize(w, 1<<16)
	b.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": [")
	for i, o := range c.items() {
		out, err := json.MarshalIndent(generic(o), "        ", "    ")
		if err != nil {
			panic(fmt.Sprintf("snapshottest: %v", err))
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n        ")
		b.Write(out)
	}
	b.WriteString("\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	return b.Flush()
}

// generic returns o as the maps, slices and scalars sigs.k8s.io/yaml's
// JSONToYAML reads its JSON into: integers as int, other numbers as
// float64.
func generic(o runtime.Object) any {
	js, err := json.Marshal(o)
	if err != nil {
		panic(fmt.Sprintf("snapshottest: %v", err))
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(fmt.Sprintf("snapshottest: %v", err))
	}
	return numbers(v)
}

// numbers replaces the json.Numbers in v by int or float64.
func numbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = numbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = numbers(x)
		}
	case json.Number:
		if i, err := strconv.Atoi(string(v)); err == nil {
			return i
		}
		f, err := v.Float64()
		if err != nil {
			panic(fmt.Sprintf("snapshottest: %v", err))
		}
		return f
	}
	return v
}
