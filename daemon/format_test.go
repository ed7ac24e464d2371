package daemon_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/rollout"
)

var update = flag.Bool("update", false, "rewrite the golden files of daemon's tests")

// formatCase is a plan and the options Format prints it with.
type formatCase struct {
	name string
	plan daemon.Plan
	opts daemon.FormatOptions
}

// computed returns the plan of one sync and the options that show its
// placement table; a Compute error is kept in the plan it came with.
func computed(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts daemon.Options) (daemon.Plan, daemon.FormatOptions) {
	plan, _ := daemon.Compute(ds, nodes, pods, opts)
	return plan, daemon.FormatOptions{DaemonSet: ds, Nodes: nodes, Now: opts.Now}
}

func formatCases() []formatCase {
	var cases []formatCase
	add := func(name string, plan daemon.Plan, opts daemon.FormatOptions) {
		cases = append(cases, formatCase{name, plan, opts})
	}

	{
		ds := dt.DaemonSet("fluentd")
		nodes := []*corev1.Node{
			dt.Node("worker-b"), dt.Node("worker-a"),
			dt.Node("control-plane", dt.WithTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule)),
			dt.Node("cordoned", dt.Unschedulable()),
		}
		plan, opts := computed(ds, nodes, nil, daemon.Options{Now: dt.Epoch, BurstReplicas: 1})
		add("fresh_burst", plan, opts)
	}
	{
		ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"), dt.WithMaxUnavailable("0"), dt.WithMaxSurge("1"))
		old := dt.DaemonSet("agent")
		nodes := []*corev1.Node{dt.Node("a"), dt.Node("b"), dt.Node("c")}
		pods := []*corev1.Pod{
			dt.Pod(ds, "agent-a", "a", dt.WithHash(dt.Hash(old))),
			dt.Pod(ds, "agent-b", "b", dt.WithHash(dt.Hash(old)), dt.NotReadyPod()),
			dt.Pod(ds, "agent-c", "c", dt.WithHash(dt.Hash(old))),
		}
		plan, opts := computed(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Revisions: []*appsv1.ControllerRevision{dt.Revision(old, 1)}})
		add("surge", plan, opts)
	}
	{
		ds := dt.DaemonSet("agent", dt.WithMinReadySeconds(60))
		nodes := []*corev1.Node{dt.Node("a"), dt.Node("b")}
		orphan := dt.Pod(ds, "agent-a", "a", dt.Orphan(), dt.ReadySince(dt.Epoch.Add(-10*time.Second)))
		stray := dt.Pod(ds, "agent-x", "b")
		stray.Labels = map[string]string{"app": "other"}
		failed := dt.Pod(ds, "agent-b", "b", dt.WithPhase(corev1.PodFailed))
		plan, opts := computed(ds, nodes, []*corev1.Pod{orphan, stray, failed},
			daemon.Options{Now: dt.Epoch, Revisions: []*appsv1.ControllerRevision{dt.Revision(ds, 1)}})
		add("adopt_release_failed", plan, opts)
	}
	{
		ds := dt.DaemonSet("agent")
		rev := dt.Revision(ds, 1)
		rev.Data.Raw = []byte(`{"spec":{}}`)
		plan, opts := computed(ds, []*corev1.Node{dt.Node("a")}, nil, daemon.Options{Now: dt.Epoch, Revisions: []*appsv1.ControllerRevision{rev}})
		add("collision", plan, opts)
	}
	{
		ds := dt.DaemonSet("agent")
		ds.Spec.Selector = &metav1.LabelSelector{}
		plan, opts := computed(ds, []*corev1.Node{dt.Node("a")}, nil, daemon.Options{Now: dt.Epoch})
		add("skip_selects_all", plan, opts)
	}
	{
		ds := dt.DaemonSet("agent")
		nodes := []*corev1.Node{dt.Node("a")}
		pods := []*corev1.Pod{dt.Pod(ds, "agent-a", "a")}
		plan, opts := computed(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Revisions: []*appsv1.ControllerRevision{dt.Revision(ds, 1)}})
		add("steady", plan, opts)
	}
	{
		ds := dt.DaemonSet("agent")
		ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}},
				{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"pinned"}}}},
				{},
			}},
		}}
		nodes := []*corev1.Node{
			dt.Node("pinned"),
			dt.Node("zone-a", dt.WithLabel("zone", "a"),
				dt.WithTaint("dedicated", "db", corev1.TaintEffectNoSchedule),
				dt.WithTaint("maintenance", "", corev1.TaintEffectNoExecute)),
			dt.Node("zone-b", dt.WithLabel("zone", "b")),
		}
		plan, opts := computed(ds, nodes, nil, daemon.Options{Now: dt.Epoch})
		add("why_not", plan, opts)
	}
	{
		ds := dt.DaemonSet("agent")
		ds.Spec.Template.Spec.NodeName = "only-here"
		plan, opts := computed(ds, []*corev1.Node{dt.Node("elsewhere"), dt.Node("only-here")}, nil, daemon.Options{Now: dt.Epoch})
		add("why_not_node_name", plan, opts)
	}
	add("zero_plan", daemon.Plan{}, daemon.FormatOptions{})
	count := int32(3)
	add("nil_objects", daemon.Plan{
		Creates:  []daemon.Create{{NodeName: "a"}},
		Deletes:  []daemon.Delete{{NodeName: "b"}},
		Adopt:    []*corev1.Pod{nil},
		Unplaced: []*corev1.Pod{nil},
		History: rollout.HistoryPlan{
			Update: []*appsv1.ControllerRevision{nil}, Delete: []*appsv1.ControllerRevision{nil},
			Relabel: []*corev1.Pod{nil}, CollisionCount: &count,
		},
		Rolling:      &daemon.RollingStep{MaxSurge: 2},
		RequeueAfter: time.Minute,
	}, daemon.FormatOptions{DaemonSet: dt.DaemonSet("x"), Nodes: []*corev1.Node{nil, dt.Node("n")}})
	return cases
}

// TestFormat compares Format's text with daemon/testdata/format/<case>.golden;
// go test ./daemon -run TestFormat -update rewrites them.
func TestFormat(t *testing.T) {
	for _, tc := range formatCases() {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := tc.plan.Format(&out, tc.opts); err != nil {
				t.Fatalf("Format: %v", err)
			}
			golden := filepath.Join("testdata", "format", tc.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), out.String()); diff != "" {
				t.Errorf("Format (-want,+got):\n%s", diff)
			}
			// The node order of the options does not matter.
			if n := len(tc.opts.Nodes); n > 1 {
				rev := tc.opts
				rev.Nodes = make([]*corev1.Node, n)
				for i, node := range tc.opts.Nodes {
					rev.Nodes[n-1-i] = node
				}
				var again bytes.Buffer
				if err := tc.plan.Format(&again, rev); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(out.String(), again.String()); diff != "" {
					t.Errorf("Format depends on node order (-given,+reversed):\n%s", diff)
				}
			}
		})
	}
}

// failingWriter fails every write.
type failingWriter struct{}

var errWrite = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

// TestFormatWriteError pins that the first write error is returned.
func TestFormatWriteError(t *testing.T) {
	for _, tc := range formatCases() {
		if err := tc.plan.Format(failingWriter{}, tc.opts); !errors.Is(err, errWrite) {
			t.Errorf("%s: Format error = %v, want %v", tc.name, err, errWrite)
		}
	}
}
