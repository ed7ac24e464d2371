package snapshot_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
)

// summary is what the tests compare of a snapshot: kinds and names.
type summary struct {
	DaemonSets, Nodes, Pods, Revisions []string
	Notes                              []string
}

func summarize(s *snapshot.Snapshot) summary {
	var out summary
	for _, d := range s.DaemonSets {
		out.DaemonSets = append(out.DaemonSets, d.Namespace+"/"+d.Name)
	}
	for _, n := range s.Nodes {
		out.Nodes = append(out.Nodes, n.Name)
	}
	for _, p := range s.Pods {
		out.Pods = append(out.Pods, p.Namespace+"/"+p.Name)
	}
	for _, r := range s.Revisions {
		out.Revisions = append(out.Revisions, r.Namespace+"/"+r.Name)
	}
	for _, n := range s.Notes {
		out.Notes = append(out.Notes, n.String())
	}
	return out
}

const kubectlList = `apiVersion: v1
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata:
    name: agent
    namespace: kube-system
    managedFields:
    - manager: kubectl
      operation: Update
      time: "2026-01-02T03:04:05Z"
  spec:
    selector:
      matchLabels: {app: agent}
- apiVersion: v1
  kind: Node
  metadata: {name: node-b}
- apiVersion: v1
  kind: Node
  metadata: {name: node-a}
- apiVersion: v1
  kind: Service
  metadata: {name: svc, namespace: kube-system}
- apiVersion: v1
  kind: Pod
  metadata: {name: agent-x, namespace: kube-system, creationTimestamp: "2026-01-02T03:00:00Z"}
- apiVersion: apps/v1
  kind: ControllerRevision
  metadata: {name: agent-123, namespace: kube-system}
  revision: 1
kind: List
metadata:
  resourceVersion: ""
`

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		data string
		want summary
	}{
		{
			name: "kubectl List",
			data: kubectlList,
			want: summary{
				DaemonSets: []string{"kube-system/agent"},
				Nodes:      []string{"node-a", "node-b"},
				Pods:       []string{"kube-system/agent-x"},
				Revisions:  []string{"kube-system/agent-123"},
				Notes:      []string{"skipped 1 v1 Service (kube-system/svc): not a kind a plan reads"},
			},
		},
		{
			name: "multi-document YAML with empty documents and no namespace",
			data: "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\n# nothing\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n",
			want: summary{Nodes: []string{"n1"}, Pods: []string{"default/p"}},
		},
		{
			name: "typed PodList in JSON, items without kind",
			data: `{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"b","namespace":"x"}},{"metadata":{"name":"a","namespace":"x"}}]}`,
			want: summary{Pods: []string{"x/a", "x/b"}},
		},
		{
			name: "JSON stream and array",
			data: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}
[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n2"}}]`,
			want: summary{Nodes: []string{"n1", "n2"}},
		},
		{
			name: "YAML sequence of objects",
			data: "- apiVersion: v1\n  kind: Node\n  metadata: {name: n2}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n",
			want: summary{Nodes: []string{"n1", "n2"}},
		},
		{
			name: "later object replaces an earlier one",
			data: "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n",
			want: summary{Nodes: []string{"n1"}, Notes: []string{"1 v1 Node (n1) appeared more than once: the later object was kept"}},
		},
		{
			name: "old API versions are skipped",
			data: "apiVersion: extensions/v1beta1\nkind: DaemonSet\nmetadata: {name: d}\n",
			want: summary{Notes: []string{"skipped 1 extensions/v1beta1 DaemonSet (d): an old API version; only apps/v1 is read, as the controller reads it (get it again with a current kubectl)"}},
		},
		{
			name: "empty file",
			data: "",
			want: summary{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := snapshot.Decode("in.yaml", []byte(tt.data))
			if err != nil {
				t.Fatalf("Decode() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, summarize(s)); diff != "" {
				t.Errorf("Decode() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    string
		notKube bool
	}{
		{
			name:    "plain text",
			data:    "hello world\n",
			want:    "f.yaml:1: not a Kubernetes object: the document is not a mapping",
			notKube: true,
		},
		{
			name:    "no kind, second document",
			data:    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\nfoo: bar\n",
			want:    "f.yaml:5: not a Kubernetes object: apiVersion and kind are required",
			notKube: true,
		},
		{
			name: "bad YAML",
			data: "apiVersion: v1\nkind: [\n",
			want: "f.yaml:2: invalid YAML: yaml: line 2: ",
		},
		{
			name: "bad YAML in a later document names the file's line",
			data: "apiVersion: v1\nkind: Node\nmetadata: {name: a1}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: b1\n\tlabels: {}\n",
			want: "f.yaml:9: invalid YAML: yaml: line 5: found a tab",
		},
		{
			name: "bad JSON",
			data: "{\"apiVersion\": \"v1\",\n \"kind\": }",
			want: "f.yaml:2: invalid JSON: ",
		},
		{
			name: "missing name in a List item",
			data: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {namespace: x}\n",
			want: "f.yaml:1: items[0]: v1 Pod: metadata.name is required",
		},
		{
			name: "wrong field type",
			data: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: a}}\n- {apiVersion: v1, kind: Node, metadata: {name: 3}}\n",
			want: "f.yaml:1: items[1]: v1 Node: json: cannot unmarshal",
		},
		{
			// YAML 1.1, as kubectl reads it: an unquoted n, y, no, off
			// is a boolean.
			name: "name n is a boolean",
			data: "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
			want: "f.yaml:1: v1 Node: json: cannot unmarshal bool",
		},
		{
			// Keys match field names exactly, as the API server matches
			// them: a miscased key is an unknown field, never kind.
			name:    "miscased kind",
			data:    `{"apiVersion":"v1","Kind":"Node","metadata":{"name":"a"}}`,
			want:    "f.yaml:1: not a Kubernetes object: apiVersion and kind are required",
			notKube: true,
		},
		{
			name: "miscased metadata in a List item",
			data: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  Metadata: {name: a}\n",
			want: "f.yaml:1: items[0]: v1 Node: metadata.name is required",
		},
		{
			name:    "null item",
			data:    `{"apiVersion":"v1","kind":"List","items":[null]}`,
			want:    "f.yaml:1: items[0]: not a Kubernetes object: null item",
			notKube: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := snapshot.Decode("f.yaml", []byte(tt.data))
			if err == nil {
				t.Fatalf("Decode() = nil error, want %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Decode() error = %q, want prefix %q", err, tt.want)
			}
			var de *snapshot.DecodeError
			if !errors.As(err, &de) || de.File != "f.yaml" {
				t.Errorf("Decode() error %T is not a *DecodeError naming f.yaml", err)
			}
			if got := errors.Is(err, snapshot.ErrNotKubernetes); got != tt.notKube {
				t.Errorf("errors.Is(err, ErrNotKubernetes) = %v, want %v", got, tt.notKube)
			}
		})
	}
}

func TestRevisionDataCompacted(t *testing.T) {
	data := `{
  "apiVersion": "v1", "kind": "List",
  "items": [{
    "apiVersion": "apps/v1", "kind": "ControllerRevision",
    "metadata": {"name": "r", "namespace": "x"},
    "data": {
      "spec": {"template": {"$patch": "replace"}}
    },
    "revision": 1
  }]
}`
	s, err := snapshot.Decode("in.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(s.Revisions[0].Data.Raw), `{"spec":{"template":{"$patch":"replace"}}}`; got != want {
		t.Errorf("revision data = %s, want %s", got, want)
	}
}

func TestAddLeavesSnapshotOnError(t *testing.T) {
	s, err := snapshot.Decode("a.yaml", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	before := summarize(s)
	if err := s.Add("b.yaml", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: m1}\n---\nx: 1\n")); err == nil {
		t.Fatal("Add() = nil error, want one")
	}
	if diff := cmp.Diff(before, summarize(s)); diff != "" {
		t.Errorf("Add() changed the snapshot on error (-before +after):\n%s", diff)
	}
}

func TestFor(t *testing.T) {
	data := kubectlList + `---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: default}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: lonely, namespace: default}
`
	s, err := snapshot.Decode("in.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ns, name string
		want     summary
		wantErr  string
	}{
		{ns: "kube-system", name: "agent", want: summary{
			DaemonSets: []string{"kube-system/agent"},
			Nodes:      []string{"node-a", "node-b"},
			Pods:       []string{"kube-system/agent-x"},
			Revisions:  []string{"kube-system/agent-123"},
		}},
		{ns: "default", name: "lonely", want: summary{
			DaemonSets: []string{"default/lonely"},
			Nodes:      []string{"node-a", "node-b"},
			Pods:       []string{"default/other"},
		}},
		{ns: "default", name: "agent", wantErr: `daemonset "default/agent" not found; the input holds default/lonely, kube-system/agent`},
	}
	for _, tt := range tests {
		t.Run(tt.ns+"/"+tt.name, func(t *testing.T) {
			in, err := s.For(tt.ns, tt.name)
			if tt.wantErr != "" {
				var nf *snapshot.NotFoundError
				if err == nil || err.Error() != tt.wantErr || !errors.As(err, &nf) {
					t.Fatalf("For() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := summarize(&snapshot.Snapshot{DaemonSets: nil, Nodes: in.Nodes, Pods: in.Pods, Revisions: in.Revisions})
			got.DaemonSets = []string{in.DaemonSet.Namespace + "/" + in.DaemonSet.Name}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("For() (-want +got):\n%s", diff)
			}
			if tt.want.Revisions == nil && in.Revisions != nil {
				t.Errorf("For() Revisions = %v, want nil (a first sync)", in.Revisions)
			}
		})
	}
}

func TestNewest(t *testing.T) {
	s, err := snapshot.Decode("in.yaml", []byte(kubectlList))
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if got := s.Newest(); !got.Equal(want) {
		t.Errorf("Newest() = %v, want %v (the managedFields time)", got, want)
	}
	if got := (&snapshot.Snapshot{}).Newest(); !got.IsZero() {
		t.Errorf("Newest() of an empty snapshot = %v, want zero", got)
	}
}

// TestDecodeOrder: the snapshot does not depend on the order of the
// documents or of the files.
func TestDecodeOrder(t *testing.T) {
	docs := []string{
		"apiVersion: v1\nkind: Node\nmetadata: {name: node-b}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p2, namespace: b}\n",
		"apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: b}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p3, namespace: a}\n",
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d, namespace: b}\n",
	}
	forward, err := snapshot.Decode("f", []byte(strings.Join(docs, "---\n")))
	if err != nil {
		t.Fatal(err)
	}
	backward := &snapshot.Snapshot{}
	for i := len(docs) - 1; i >= 0; i-- {
		if err := backward.Add("f", []byte(docs[i])); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(summarize(forward), summarize(backward)); diff != "" {
		t.Errorf("the order of the documents matters (-forward +backward):\n%s", diff)
	}
	want := []string{"a/p3", "b/p1", "b/p2"}
	if diff := cmp.Diff(want, summarize(forward).Pods); diff != "" {
		t.Errorf("pods not sorted by namespace and name (-want +got):\n%s", diff)
	}
}

// TestHandBuiltNil: a Snapshot built by hand with nil entries makes no
// method panic.
func TestHandBuiltNil(t *testing.T) {
	s := &snapshot.Snapshot{DaemonSets: []*appsv1.DaemonSet{nil}, Nodes: []*corev1.Node{nil}, Pods: []*corev1.Pod{nil}, Revisions: []*appsv1.ControllerRevision{nil}}
	if got := s.Names(); len(got) != 0 {
		t.Errorf("Names() = %v, want none", got)
	}
	if _, err := s.For("a", "b"); err == nil {
		t.Error("For() = nil error, want not found")
	}
	if got := s.Newest(); !got.IsZero() {
		t.Errorf("Newest() = %v, want zero", got)
	}
	if _, err := s.Encode(); err != nil {
		t.Errorf("Encode() error: %v", err)
	}
}

// TestDecodeInputProblems covers input that used to be dropped or misread
// without a word (issue 22, §5).
func TestDecodeInputProblems(t *testing.T) {
	const rev = `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"r","namespace":"ns"},"revision":1,"data":%s}`
	tests := []struct {
		name    string
		data    string
		wantErr error
		want    summary
		// wantData is the revision's data, when set.
		wantData string
	}{
		{
			name:    "a kubectl List cut before its kind",
			data:    "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: Node\n",
			wantErr: snapshot.ErrTruncated,
		},
		{
			name:    "a JSON List without its kind",
			data:    `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}}]}`,
			wantErr: snapshot.ErrTruncated,
		},
		{
			name:     "revision data re-encoded by jq is escaped as Go writes it",
			data:     fmt.Sprintf(rev, `{"spec":{"template":{"spec":{"containers":[{"args":["run 2>&1 <in"]}]}}}}`),
			want:     summary{Revisions: []string{"ns/r"}, Notes: []string{`re-escaped the data of 1 apps/v1 ControllerRevision (ns/r) as the API server writes it (\u003c, \u003e, \u0026; the input was re-encoded, as by jq)`}},
			wantData: `{"spec":{"template":{"spec":{"containers":[{"args":["run 2\u003e\u00261 \u003cin"]}]}}}}`,
		},
		{
			name:     "revision data as kubectl prints it is kept, compacted",
			data:     fmt.Sprintf(rev, `{"spec": {"template": {"spec": {"containers": [{"args": ["run 2\u003e\u00261"]}]}}}}`),
			want:     summary{Revisions: []string{"ns/r"}},
			wantData: `{"spec":{"template":{"spec":{"containers":[{"args":["run 2\u003e\u00261"]}]}}}}`,
		},
		{
			name: "duplicate pods are counted and named",
			data: "apiVersion: v1\nkind: List\nitems:\n" + strings.Repeat("- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: x}}\n", 3),
			want: summary{Pods: []string{"x/p"}, Notes: []string{"2 v1 Pod (x/p, x/p) appeared more than once: the later object was kept"}},
		},
		{
			name: "DaemonSets of old API versions are counted and named",
			data: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: apps/v1beta2, kind: DaemonSet, metadata: {name: a, namespace: x}}\n- {apiVersion: extensions/v1beta1, kind: DaemonSet, metadata: {name: b, namespace: x}}\n- {apiVersion: apps/v1beta2, kind: DaemonSet, metadata: {name: c, namespace: x}}\n",
			want: summary{Notes: []string{
				"skipped 2 apps/v1beta2 DaemonSet (x/a, x/c): an old API version; only apps/v1 is read, as the controller reads it (get it again with a current kubectl)",
				"skipped 1 extensions/v1beta1 DaemonSet (x/b): an old API version; only apps/v1 is read, as the controller reads it (get it again with a current kubectl)",
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := snapshot.Decode("t.yaml", []byte(tt.data))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Decode() error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, summarize(s)); diff != "" {
				t.Errorf("Decode() (-want +got):\n%s", diff)
			}
			if tt.wantData != "" {
				if got := string(s.Revisions[0].Data.Raw); got != tt.wantData {
					t.Errorf("revision data = %s, want %s", got, tt.wantData)
				}
			}
		})
	}
}

// TestDecodeTruncatedMessage checks the words of the truncation error.
func TestDecodeTruncatedMessage(t *testing.T) {
	_, err := snapshot.Decode("t.yaml", []byte("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n"))
	want := `t.yaml:1: the file looks truncated: it has items but no kind (kubectl writes "kind: List" after the items)`
	if err == nil || err.Error() != want {
		t.Errorf("Decode() error = %v, want %s", err, want)
	}
}

// TestDecodeJSONErrorLine checks that a JSON file cut short says it looks
// truncated, and that JSON errors name one line, the right one.
func TestDecodeJSONErrorLine(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n    {\"kind\": \"Node\"\n",
			"t.json:4: the file looks truncated: the JSON value that starts on line 1 ends with the file"},
		{"{\"kind\": \"Node\"}\n{\n  \"kind\": \"Node\",\n  \"x\": ]\n}\n",
			"t.json:4: invalid JSON: invalid character ']' looking for beginning of value"},
	} {
		_, err := snapshot.Decode("t.json", []byte(c.data))
		if err == nil || err.Error() != c.want {
			t.Errorf("Decode(%q) error = %v, want %s", c.data, err, c.want)
		}
		if strings.HasPrefix(c.want, "t.json:4: the file looks") && !errors.Is(err, snapshot.ErrTruncated) {
			t.Errorf("Decode(%q) error = %v, want ErrTruncated", c.data, err)
		}
	}
}

// TestDecodeDropsFieldsV1 checks that managedFields keep their times (for
// Newest) but not the field sets, in YAML and in JSON.
func TestDecodeDropsFieldsV1(t *testing.T) {
	for _, data := range []string{
		kubectlList,
		`{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent","namespace":"kube-system","managedFields":[{"manager":"kubectl","operation":"Update","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]}}`,
	} {
		s, err := snapshot.Decode("t", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		mf := s.DaemonSets[0].ManagedFields
		if len(mf) != 1 || mf[0].FieldsV1 != nil || mf[0].Time == nil {
			t.Errorf("managedFields = %+v, want one entry with a time and no fieldsV1", mf)
		}
	}
}
