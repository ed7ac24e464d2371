package livecmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
)

func fakeCluster() *fake.Clientset {
	labels := map[string]string{"app": "agent"}
	return fake.NewClientset(
		&appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system", UID: "ds-uid"},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:v1"}}},
				},
			},
		},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent-x", Namespace: "kube-system"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}},
		&appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "agent-1", Namespace: "kube-system"}},
	)
}

// onlyLists fails the test for any action on cs other than a list.
func onlyLists(t *testing.T, cs *fake.Clientset) {
	t.Helper()
	if len(cs.Actions()) == 0 {
		t.Error("no action on the cluster; want four lists")
	}
	for _, a := range cs.Actions() {
		if v := a.GetVerb(); v != "list" {
			t.Errorf("action %s %s: want only list", v, a.GetResource().Resource)
		}
		if l, ok := a.(clienttesting.ListActionImpl); ok && l.ListOptions.Limit != chunkSize {
			t.Errorf("list %s: limit %d, want pages of %d (kubectl's chunk size)", a.GetResource().Resource, l.ListOptions.Limit, chunkSize)
		}
	}
}

// TestList lists a fake cluster and checks that the printed List decodes
// back into the same objects, and that nothing was written.
func TestList(t *testing.T) {
	cs := fakeCluster()
	s, err := list(context.Background(), cs, "kube-system")
	if err != nil {
		t.Fatal(err)
	}
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := snapshot.Decode("live", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.DaemonSets) != 1 || len(got.Nodes) != 1 || len(got.Pods) != 1 || len(got.Revisions) != 1 {
		t.Errorf("decoded %d DaemonSets, %d nodes, %d pods, %d revisions; want 1 each (pods of kube-system only):\n%s",
			len(got.DaemonSets), len(got.Nodes), len(got.Pods), len(got.Revisions), data)
	}
	onlyLists(t, cs)
}

// TestRun runs dsplan's commands and dump on a fake cluster: exit codes,
// what the output names, and only list calls.
func TestRun(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		// want is a substring of stdout+stderr.
		want string
		// lists is whether the cluster is listed.
		lists bool
		// gets is whether the command only gets (rollout status's first
		// read).
		gets bool
		// reads is whether the command gets and lists, and writes nothing.
		reads bool
	}{
		{name: "plan", args: []string{"plan", "--context", "prod", "-n", "kube-system", "--now", "2026-01-01T00:00:00Z"},
			want: "input: context prod, namespace kube-system: 1 DaemonSets, 1 nodes, 1 pods, 1 revisions", lists: true},
		{name: "every namespace", args: []string{"plan"}, want: "input: context prod: 1 DaemonSets, 1 nodes, 2 pods, 1 revisions", lists: true},
		{name: "-A", args: []string{"plan", "-A"}, want: "input: context prod: 1 DaemonSets, 1 nodes, 2 pods, 1 revisions", lists: true},
		{name: "-n and -A", args: []string{"plan", "-A", "-n", "kube-system"}, code: 2, want: "-n/--namespace and -A/--all-namespaces: give one"},
		{name: "no arguments: the help", args: nil, want: "Available Commands:"},
		{name: "a capture is read offline", args: []string{"plan", "-f", "../../testdata/inputs/kubectl-capture.yaml"},
			want: "input: ../../testdata/inputs/kubectl-capture.yaml: 1 DaemonSets, 3 nodes, 3 pods, 1 revisions"},
		{name: "explain", args: []string{"explain", "node-a", "--namespace", "kube-system"}, want: "node-a", lists: true},
		{name: "simulate", args: []string{"simulate", "--daemonset", "kube-system/agent", "--image", "agent:v2"}, want: "kube-system/agent", lists: true},
		{name: "json", args: []string{"plan", "-o", "json"}, want: `"daemonSet": "kube-system/agent"`, lists: true},
		{name: "a manifest applied over the cluster", args: []string{"plan", "-f", "../testdata/agent-v2.yaml", "--daemonset", "kube-system/agent"},
			want: "applied: ../testdata/agent-v2.yaml: DaemonSet kube-system/agent over the captured one (uid ds-uid, generation 0 -> 1, template generation - -> 1): the template changes: a rollout starts", lists: true},
		{name: "help lists dump", args: []string{"help"}, want: "dump        print the cluster's listing"},
		{name: "kubectl's flags", args: []string{"plan", "-h"}, want: "--as string"},
		{name: "unknown flag", args: []string{"plan", "--kubecontext", "x"}, code: 2, want: "unknown flag: --kubecontext"},
		{name: "missing daemonset", args: []string{"plan", "--daemonset", "kube-system/nope"}, code: 1, want: "nope", lists: true},
		{name: "bad now", args: []string{"plan", "--now", "yesterday"}, code: 2, want: "--now \"yesterday\""},
		{name: "bad daemonset", args: []string{"plan", "--daemonset", "agent"}, code: 2, want: "want NAMESPACE/NAME"},
		{name: "dump", args: []string{"dump", "-n", "kube-system"}, want: "kind: DaemonSet", lists: true},
		{name: "dump argument", args: []string{"dump", "unexpected"}, code: 2, want: `unknown command "unexpected"`},
		// rollout status follows a real cluster (examples/controller/e2e
		// runs it on one); here only what it refuses before connecting.
		{name: "help lists rollout status", args: []string{"help"}, want: "rollout status|approve|undo|resume NS/NAME"},
		{name: "rollout without a subcommand", args: []string{"rollout"}, code: 2, want: "want a subcommand: dsplan rollout status|approve|undo|resume NAMESPACE/NAME"},
		{name: "rollout unknown subcommand", args: []string{"rollout", "history"}, code: 2, want: `unknown command "history"`},
		{name: "rollout status without a name", args: []string{"rollout", "status"}, code: 2, want: "want one NAMESPACE/NAME, got 0"},
		{name: "rollout status bad name", args: []string{"rollout", "status", "agent"}, code: 2, want: `"agent": want NAMESPACE/NAME`},
		{name: "rollout status help", args: []string{"rollout", "status", "-h"}, want: "4  the progress deadline passed"},
		{name: "rollout status help names the approval exit code", args: []string{"rollout", "status", "-h"}, want: "6  waiting for approval after a wave"},
		{name: "rollout status help names the program", args: []string{"rollout", "status", "-h"}, want: "(exit 6 at once, naming the\n    wave and the command that approves: dsplan rollout approve"},
		{name: "rollout approve help", args: []string{"rollout", "approve", "-h"}, want: "--wave WAVE"},
		{name: "rollout undo help says the order", args: []string{"rollout", "undo", "-h"}, want: "The waves go in the policy's order, not\nreversed"},
		{name: "rollout undo help says the GitOps fight", args: []string{"rollout", "undo", "-h"}, want: "Pause its sync of the DaemonSet first, or roll back in git"},
		{name: "rollout resume help", args: []string{"rollout", "resume", "-h"}, want: `"false" is removed`},
		{name: "rollout approve without a name", args: []string{"rollout", "approve"}, code: 2, want: "want one NAMESPACE/NAME, got 0"},
		{name: "rollout undo bad name", args: []string{"rollout", "undo", "agent"}, code: 2, want: `"agent": want NAMESPACE/NAME`},
		{name: "rollout resume of a DaemonSet not found", args: []string{"rollout", "resume", "kube-system/nope"}, code: 1,
			want: "daemonset kube-system/nope not found (context prod)", gets: true},
		{name: "rollout approve of a DaemonSet not found", args: []string{"rollout", "approve", "kube-system/nope"}, code: 1,
			want: "daemonset kube-system/nope not found (context prod)", gets: true},
		{name: "rollout approve of a DaemonSet without annotations", args: []string{"rollout", "approve", "kube-system/agent"}, code: 1,
			want: "nothing to approve: daemonset kube-system/agent does not wait for approval: ", reads: true},
		{name: "rollout status of a DaemonSet not found", args: []string{"rollout", "status", "kube-system/nope"}, code: 1,
			want: `daemonset kube-system/nope not found (context prod)`, gets: true},
		{name: "rollout status bad flag", args: []string{"rollout", "status", "kube-system/agent", "--timeout", "soon"}, code: 2, want: "invalid argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := fakeCluster()
			conn := func(f *liveFlags) (kubernetes.Interface, string, error) {
				name := *f.config.Context
				if name == "" {
					name = "prod"
				}
				return cs, name, nil
			}
			var out bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &out, &out, "dsplan", conn)
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s", code, tt.code, out.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output does not contain %q:\n%s", tt.want, out.String())
			}
			switch {
			case tt.reads:
				for _, a := range cs.Actions() {
					if v := a.GetVerb(); v != "get" && v != "list" {
						t.Errorf("action %s %s: want only get and list", v, a.GetResource().Resource)
					}
				}
			case tt.gets:
				for _, a := range cs.Actions() {
					if a.GetVerb() != "get" {
						t.Errorf("action %s %s: want only get", a.GetVerb(), a.GetResource().Resource)
					}
				}
			case tt.lists:
				onlyLists(t, cs)
			default:
				if n := len(cs.Actions()); n != 0 {
					t.Errorf("%d actions on the cluster, want none", n)
				}
			}
		})
	}
}

// TestErrorsNameTheProgramOnce: as a kubectl plugin, every error starts
// with the command's path, the program named once (the finding 7:
// "kubectl dsplan kubectl dsplan plan: unknown flag").
func TestErrorsNameTheProgramOnce(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "an unknown flag", args: []string{"plan", "--kubecontext", "x"},
			want: "kubectl dsplan plan: unknown flag: --kubecontext\nSee 'kubectl dsplan plan --help' for usage.\n"},
		{name: "a rollout subcommand's usage error", args: []string{"rollout", "status", "agent"},
			want: "kubectl dsplan rollout status: \"agent\": want NAMESPACE/NAME"},
		{name: "the root's unknown command", args: []string{"nope"}, want: "kubectl dsplan: unknown command \"nope\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := func(*liveFlags) (kubernetes.Interface, string, error) { return fakeCluster(), "prod", nil }
			var out bytes.Buffer
			if code := run(tt.args, strings.NewReader(""), &out, &out, "kubectl dsplan", conn); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.HasPrefix(out.String(), tt.want) {
				t.Errorf("output %q, want it to start %q", out.String(), tt.want)
			}
			if strings.Count(out.String(), "kubectl dsplan kubectl") > 0 {
				t.Errorf("output names the program twice: %q", out.String())
			}
		})
	}
}

// TestRunManifestUnreachable: a manifest without a capture is applied over
// the cluster; when the cluster cannot be read, the error says so, and a
// file that names nothing to plan never gets that far.
func TestRunManifestUnreachable(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "manifest", args: []string{"plan", "-f", "../testdata/agent-v2.yaml"},
			want: "../testdata/agent-v2.yaml holds no capture, so its manifests are applied over the cluster, which could not be read: connection refused"},
		{name: "empty file", args: []string{"plan", "-f", "../testdata/empty.yaml"},
			want: "../testdata/empty.yaml: no DaemonSet to plan: the file holds no Kubernetes object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			connected := false
			conn := func(*liveFlags) (kubernetes.Interface, string, error) {
				connected = true
				return nil, "", errors.New("connection refused")
			}
			var out bytes.Buffer
			if code := run(tt.args, strings.NewReader(""), &out, &out, "dsplan", conn); code != 1 {
				t.Errorf("exit %d, want 1:\n%s", code, out.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output does not contain %q:\n%s", tt.want, out.String())
			}
			if tt.name == "empty file" && connected {
				t.Error("connected to the cluster for a file that names nothing to plan")
			}
		})
	}
}
