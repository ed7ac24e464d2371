package snapshottest_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/snapshottest"
)

// TestKubectlShape checks that YAML and JSON, built one item at a time,
// are byte for byte what kubectl's printers give for the whole List.
func TestKubectlShape(t *testing.T) {
	c := snapshottest.Generate(rand.New(rand.NewPCG(1, 2)), 12)
	y, js := c.YAML(), c.JSON()

	var generic any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		t.Fatalf("JSON() is not JSON: %v", err)
	}
	whole, err := json.MarshalIndent(generic, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(whole)+"\n", string(js)); diff != "" {
		t.Errorf("JSON() differs from json.MarshalIndent of the List (-want +got):\n%s", diff)
	}
	wantYAML, err := yaml.JSONToYAML(js)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(wantYAML), string(y)); diff != "" {
		t.Errorf("YAML() differs from yaml.JSONToYAML of the List (-want +got):\n%s", diff)
	}
}

// TestGenerate checks the generated cluster through snapshot and daemon:
// six pods per node, every DaemonSet planned without error, the rolling
// one with deletes and the others with no create.
func TestGenerate(t *testing.T) {
	const nodes = 40
	c := snapshottest.Generate(rand.New(rand.NewPCG(1, 2)), nodes)
	again := snapshottest.Generate(rand.New(rand.NewPCG(1, 2)), nodes)
	if !bytes.Equal(c.YAML(), again.YAML()) {
		t.Fatal("Generate is not deterministic")
	}
	sy, err := snapshot.Decode("capture.yaml", c.YAML())
	if err != nil {
		t.Fatal(err)
	}
	sj, err := snapshot.Decode("capture.json", c.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(sy, sj) {
		t.Fatal("the YAML (fast path) and JSON decodings of one capture differ")
	}
	for _, format := range []string{"yaml", "json"} {
		data := c.YAML()
		if format == "json" {
			data = c.JSON()
		}
		s, err := snapshot.Decode("capture."+format, data)
		if err != nil {
			t.Fatalf("%s: Decode() error: %v", format, err)
		}
		if len(s.Nodes) != nodes || len(s.Pods) != 6*nodes || len(s.DaemonSets) != 6 || len(s.Notes) != 0 {
			t.Fatalf("%s: got %d DaemonSets, %d nodes, %d pods, notes %v; want 6, %d, %d, none", format, len(s.DaemonSets), len(s.Nodes), len(s.Pods), s.Notes, nodes, 6*nodes)
		}
		for _, name := range s.Names() {
			ns, n, _ := cutSlash(name)
			in, err := s.For(ns, n)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, daemon.Options{Now: snapshottest.Taken, Revisions: in.Revisions})
			if err != nil {
				t.Fatalf("%s: Compute(%s) error: %v", format, name, err)
			}
			if plan.History.Create != nil {
				t.Errorf("%s: %s: the plan creates revision %s: the generated revisions do not match the template", format, name, plan.History.Create.Name)
			}
			if name == snapshottest.RollingDaemonSet && len(plan.Deletes) == 0 {
				t.Errorf("%s: %s: no delete: the rollout does not progress", format, name)
			}
		}
	}
}

func cutSlash(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// TestDropManagedFields: the capture kubectl prints by default has no
// managedFields and decodes to the same objects but for them.
func TestDropManagedFields(t *testing.T) {
	withFields := snapshottest.Generate(rand.New(rand.NewPCG(1, 2)), 3)
	c := snapshottest.Generate(rand.New(rand.NewPCG(1, 2)), 3).DropManagedFields()
	y := c.YAML()
	if bytes.Contains(y, []byte("managedFields")) || bytes.Contains(c.JSON(), []byte("managedFields")) {
		t.Fatal("managedFields left in the capture")
	}
	full, err := snapshot.Decode("full.yaml", withFields.YAML())
	if err != nil {
		t.Fatal(err)
	}
	dropped, err := snapshot.Decode("dropped.yaml", y)
	if err != nil {
		t.Fatal(err)
	}
	// The decoded objects, their managedFields dropped as the capture's were.
	(&snapshottest.Capture{DaemonSets: full.DaemonSets, Nodes: full.Nodes, Pods: full.Pods, Revisions: full.Revisions}).DropManagedFields()
	if !equality.Semantic.DeepEqual(full, dropped) {
		t.Error("the capture without managedFields decodes to other objects")
	}
}
