package livecmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// agentAt is the DaemonSet agent with image tag at, at resourceVersion 7.
func agentAt(tag string) *appsv1.DaemonSet {
	ds := daemontest.DaemonSet("agent", daemontest.OnDelete(), daemontest.WithImage("registry.example/agent:"+tag))
	ds.ResourceVersion = "7"
	return ds
}

// history is agent's ControllerRevisions: the tags in revision order,
// numbered from 1.
func history(tags ...string) []*appsv1.ControllerRevision {
	out := make([]*appsv1.ControllerRevision, len(tags))
	for i, tag := range tags {
		out[i] = daemontest.Revision(agentAt(tag), int64(i+1))
	}
	return out
}

func TestChooseRevision(t *testing.T) {
	// Rolled back from v3 to v1 once: kube-controller-manager renumbered
	// v1's revision to 4.
	rolledBack := history("v1", "v2", "v3")
	rolledBack[0].Revision = 4
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		revs []*appsv1.ControllerRevision
		to   int64
		// want is the chosen revision's number; wantCurrent the current
		// one's.
		want, wantCurrent int64
		wantErr           string
	}{
		{name: "the previous revision", ds: agentAt("v3"), revs: history("v1", "v2", "v3"), want: 2, wantCurrent: 3},
		{name: "--to-revision", ds: agentAt("v3"), revs: history("v1", "v2", "v3"), to: 1, want: 1, wantCurrent: 3},
		{name: "--to-revision the current one", ds: agentAt("v3"), revs: history("v1", "v2", "v3"), to: 3, want: 3, wantCurrent: 3},
		{name: "after a rollback, the previous is the one rolled back from", ds: agentAt("v1"), revs: rolledBack, want: 3, wantCurrent: 4},
		{name: "a template not recorded yet: the latest recorded", ds: agentAt("v4"), revs: history("v1", "v2", "v3"), want: 3, wantCurrent: 0},
		{name: "no previous revision", ds: agentAt("v1"), revs: history("v1"), wantCurrent: 1,
			wantErr: "daemonset default/agent has no previous revision to roll back to (it has revisions 1; its template is revision 1)"},
		{name: "no revision at all", ds: agentAt("v1"),
			wantErr: "daemonset default/agent has no previous revision to roll back to (it has no revision; its template matches none)"},
		{name: "an unknown revision: the revisions are named", ds: agentAt("v3"), revs: history("v1", "v2", "v3"), to: 9, wantCurrent: 3,
			wantErr: "--to-revision 9: daemonset default/agent has no such revision (it has revisions 1, 2, 3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rev, current, err := chooseRevision(tt.ds, tt.revs, tt.to)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, gotErr); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			var got int64
			if rev != nil {
				got = rev.Revision
			}
			if diff := cmp.Diff([2]int64{tt.want, tt.wantCurrent}, [2]int64{got, current}); diff != "" {
				t.Errorf("[chosen, current] (-want +got):\n%s", diff)
			}
		})
	}
}

// clusterOf is a fake cluster holding objs and the connector to it.
func clusterOf(objs ...runtime.Object) (*fake.Clientset, connector) {
	cs := fake.NewClientset(objs...)
	return cs, func(*liveFlags) (kubernetes.Interface, string, error) { return cs, "prod", nil }
}

// patches are the patches sent to cs, as "TYPE BODY".
func patches(cs *fake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok {
			out = append(out, string(p.GetPatchType())+" "+string(p.GetPatch()))
		}
	}
	return out
}

// conflictOnPatch makes cs refuse every patch with a conflict, as the API
// server refuses a patch whose resourceVersion is not the object's.
func conflictOnPatch(cs *fake.Clientset) {
	cs.PrependReactor("patch", "daemonsets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, "agent", nil)
	})
}

// TestUndo runs rollout undo on a fake cluster: what it writes (the
// revision's data with the resourceVersion read), what it prints, and what
// it refuses. That the API server honours the resourceVersion is the
// end-to-end suite's to prove, on a real one.
func TestUndo(t *testing.T) {
	revs := history("v1", "v2", "v3")
	tests := []struct {
		name     string
		args     []string
		conflict bool
		code     int
		// want is the output; wantImage the DaemonSet's image after.
		want, wantImage string
		// wantPatch is whether it sends revision 2's data.
		wantPatch bool
	}{
		{name: "the previous revision", args: []string{"rollout", "undo", "default/agent"},
			want: "daemonset default/agent rolled back to revision 2\n", wantImage: "registry.example/agent:v2", wantPatch: true},
		{name: "--to-revision", args: []string{"rollout", "undo", "default/agent", "--to-revision", "1"},
			want: "daemonset default/agent rolled back to revision 1\n", wantImage: "registry.example/agent:v1"},
		{name: "--dry-run: the diff, no write", args: []string{"rollout", "undo", "default/agent", "--dry-run"},
			want: "daemonset default/agent would roll back to revision 2 (dry run): 1 template field changes\n" +
				`  spec.template.spec.containers[agent].image: "registry.example/agent:v3" → "registry.example/agent:v2"` + "\n",
			wantImage: "registry.example/agent:v3"},
		{name: "--dry-run=client, as kubectl spells it", args: []string{"rollout", "undo", "default/agent", "--dry-run=client", "--to-revision", "1"},
			want: "daemonset default/agent would roll back to revision 1 (dry run): 1 template field changes\n", wantImage: "registry.example/agent:v3"},
		{name: "--dry-run=server", args: []string{"rollout", "undo", "default/agent", "--dry-run=server"}, code: 2,
			want: "--dry-run=server: want client or none", wantImage: "registry.example/agent:v3"},
		{name: "--dry-run=none writes", args: []string{"rollout", "undo", "default/agent", "--dry-run=none"},
			want: "daemonset default/agent rolled back to revision 2\n", wantImage: "registry.example/agent:v2", wantPatch: true},
		{name: "the current revision: nothing to do", args: []string{"rollout", "undo", "default/agent", "--to-revision", "3"},
			want: "daemonset default/agent skipped rollback (the current template already matches revision 3)\n", wantImage: "registry.example/agent:v3"},
		{name: "an unknown revision", args: []string{"rollout", "undo", "default/agent", "--to-revision", "7"}, code: 1,
			want: "--to-revision 7: daemonset default/agent has no such revision (it has revisions 1, 2, 3)", wantImage: "registry.example/agent:v3"},
		{name: "a negative revision", args: []string{"rollout", "undo", "default/agent", "--to-revision", "-1"}, code: 2,
			want: "--to-revision -1: want a revision number", wantImage: "registry.example/agent:v3"},
		{name: "not found", args: []string{"rollout", "undo", "default/nope"}, code: 1,
			want: "daemonset default/nope not found (context prod)", wantImage: "registry.example/agent:v3"},
		{name: "changed meanwhile: a conflict, nothing written", args: []string{"rollout", "undo", "default/agent"}, conflict: true, code: 1,
			want:      "daemonset default/agent changed while rolling back (it was at resourceVersion 7); nothing was written: run the command again",
			wantImage: "registry.example/agent:v3", wantPatch: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, conn := clusterOf(agentAt("v3"), revs[0], revs[1], revs[2])
			if tt.conflict {
				conflictOnPatch(cs)
			}
			var out bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &out, &out, "dsplan", conn)
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s", code, tt.code, out.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output does not contain %q:\n%s", tt.want, out.String())
			}
			got, err := cs.AppsV1().DaemonSets("default").Get(t.Context(), "agent", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantImage, got.Spec.Template.Spec.Containers[0].Image); diff != "" {
				t.Errorf("image after (-want +got):\n%s", diff)
			}
			if tt.wantPatch {
				want, err := revisionPatch("7", revs[1], nil)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{"application/strategic-merge-patch+json " + string(want)}, patches(cs)); diff != "" {
					t.Errorf("patches (-want +got):\n%s", diff)
				}
				if !strings.Contains(string(want), `"metadata":{"resourceVersion":"7"}`) {
					t.Errorf("the patch carries no resourceVersion precondition: %s", want)
				}
			}
		})
	}
}

// TestUndoOutcome: rollout undo of a DaemonSet with rollout annotations
// records the rollback (the finding 2: status said nothing of
// what was undone), and of one without none (the annotation would opt it
// in to the companion).
func TestUndoOutcome(t *testing.T) {
	revs := history("v1", "v2", "v3")
	annotated := agentAt("v3")
	annotated.Annotations = map[string]string{progressive.AnnotationMaxUnavailable: "1", progressive.AnnotationPaused: "false"}
	f := "false"
	tests := []struct {
		name    string
		ds      *appsv1.DaemonSet
		current int64
		want    *progressive.Outcome
	}{
		{name: "annotated: from the current revision to the chosen one", ds: annotated, current: 3,
			want: &progressive.Outcome{Reason: progressive.OutcomeRolledBack, Revision: daemontest.Hash(agentAt("v2")), From: daemontest.Hash(agentAt("v3")),
				By: progressive.RolledBackByUndo, Paused: &f}},
		{name: "not annotated: nothing recorded", ds: agentAt("v3"), current: 3},
		{name: "a template no revision records: nothing names what was undone", ds: annotated, current: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := undoOutcome(tt.ds, revs, tt.current, revs[1])
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("undoOutcome (-want +got):\n%s", diff)
			}
		})
	}
}
