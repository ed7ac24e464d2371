package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
)

func TestGateOn(t *testing.T) {
	opens := time.Date(2026, 10, 26, 7, 0, 0, 0, time.UTC)
	crash := progressive.PodSignal{Pod: "agent-a", Node: "a-1", Signal: progressive.SignalCrashLoop, Container: "agent", Detail: "back-off 40s"}
	pull := progressive.PodSignal{Pod: "agent-b", Node: "b-1", Signal: progressive.SignalImagePull, Container: "agent"}
	tests := []struct {
		name string
		hold progressive.Hold
		node string
		want *explainGateJSON
	}{
		{name: "nothing holds", node: "a-1"},
		{name: "the node's own new pod fails", hold: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{crash, pull}}, node: "a-1",
			want: &explainGateJSON{Cause: "HealthGateFailed", Signal: &explainSignalJSON{Pod: "agent-a", Signal: "CrashLoopBackOff", Container: "agent", Detail: "back-off 40s"},
				Message: "health gate failed here: CrashLoopBackOff on pod agent-a (node a-1, container agent: back-off 40s); and 1 more elsewhere"}},
		{name: "the new revision fails elsewhere", hold: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{crash, pull}}, node: "c-1",
			want: &explainGateJSON{Cause: "HealthGateFailed",
				Message: "health gate failed: CrashLoopBackOff on pod agent-a (node a-1, container agent: back-off 40s), ImagePullError on pod agent-b (node b-1, container agent)"}},
		{name: "an approval point", hold: progressive.Hold{Cause: progressive.HoldApproval, Wave: "zone=a"}, node: "b-1",
			want: &explainGateJSON{Cause: "WaitingForApproval", Wave: "zone=a", Message: "waiting for approval after wave zone=a (kubectl dsplan rollout approve kube-system/agent)"}},
		{name: "the windows are closed", hold: progressive.Hold{Cause: progressive.HoldWindow, Until: opens.In(time.FixedZone("CET", 3600))}, node: "b-1",
			want: &explainGateJSON{Cause: "OutsideWindow", Until: &opens, Message: "outside the maintenance windows until 2026-10-26T07:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, gateOn(tt.hold, tt.node, "kubectl dsplan", "kube-system/agent")); diff != "" {
				t.Errorf("gateOn (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExplainGate runs explain on a capture whose rollout waits for
// approval after wave zone=a, on a node of zone b: the gate is named, in
// text and JSON, and the rolling delete is said to wait for it.
func TestExplainGate(t *testing.T) {
	ds := daemontest.DaemonSet("agent", daemontest.OnDelete(), daemontest.WithImage("agent:v2"))
	ds.Annotations = map[string]string{progressive.AnnotationOrderBy: "zone", progressive.AnnotationPauseAfter: "a"}
	s := &snapshot.Snapshot{
		DaemonSets: []*appsv1.DaemonSet{ds},
		Nodes: []*corev1.Node{
			daemontest.Node("a-1", daemontest.WithLabel("zone", "a")),
			daemontest.Node("b-1", daemontest.WithLabel("zone", "b")),
		},
		Pods: []*corev1.Pod{
			daemontest.Pod(ds, "agent-a-1", "a-1"),
			daemontest.Pod(ds, "agent-b-1", "b-1", daemontest.WithHash("old")),
		},
		Revisions: []*appsv1.ControllerRevision{daemontest.Revision(ds, 2)},
	}
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "capture.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	now := daemontest.Epoch.Format(time.RFC3339)
	var out bytes.Buffer
	if code := Run([]string{"explain", "b-1", "-f", file, "--now", now}, nil, &out, &out, Options{}); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	for _, want := range []string{
		"held by a gate: waiting for approval after wave zone=a (dsplan rollout approve default/agent)",
		"next sync here: delete agent-b-1 (RollingUpdate), not while the gate holds the rollout\n",
		"its rollout: replacing 1 pod on b-1; this node: wave zone=b\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("explain does not say %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := Run([]string{"explain", "b-1", "-f", file, "--now", now, "-o", "json"}, nil, &out, &out, Options{}); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	var doc explainJSON
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	// The document with a gate is valid under its schema (the golden
	// cases have no gate).
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	f, err := os.Open("schema/explanation.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("explanation.schema.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("explanation.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("explain -o json with a gate is not valid under schema/explanation.schema.json: %v", err)
	}
	if len(doc.DaemonSets) != 1 || doc.DaemonSets[0].Standing == nil {
		t.Fatalf("no standing:\n%s", out.String())
	}
	want := &explainGateJSON{Cause: "WaitingForApproval", Wave: "zone=a", Message: "waiting for approval after wave zone=a (dsplan rollout approve default/agent)"}
	if diff := cmp.Diff(want, doc.DaemonSets[0].Standing.Gate); diff != "" {
		t.Errorf("standing.gate (-want +got):\n%s", diff)
	}
}
