package livecmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestKubectlPlugin builds cmd/kubectl-dsplan as go install would and runs
// it the way kubectl runs a plugin (an executable named kubectl-dsplan on
// the PATH, given the words after "kubectl dsplan"): its help names it
// "kubectl dsplan", lists the live mode's dump, and version and completion
// answer.
func TestKubectlPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubectl-dsplan")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, "../../cmd/kubectl-dsplan")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"help"}, []string{"kubectl dsplan [command]", "dump", "rollout", "Exit codes:"}},
		{[]string{"version"}, []string{"kubectl dsplan ", runtime.Version()}},
		{[]string{"--version"}, []string{"kubectl dsplan ", runtime.Version()}},
		{[]string{"completion", "bash"}, []string{"kubectl-dsplan", "__complete"}},
		{[]string{"__complete", "plan", "--cont"}, []string{"--context"}},
		{[]string{"explain", "-h"}, []string{"kubectl dsplan explain NODE [flags]", "--kubeconfig", "-n, --namespace"}},
		{[]string{"plan", "-f", "../../testdata/inputs/kubectl-capture.yaml"}, []string{"DaemonSet kube-system/kube-proxy"}},
		{[]string{"rollout", "approve", "-h"}, []string{"kubectl dsplan rollout approve NAMESPACE/NAME [flags]", "kubectl dsplan rollout approve kube-system/agent --wave b"}},
		{[]string{"rollout", "resume", "-h"}, []string{"kubectl dsplan rollout undo rolls it back instead"}},
	} {
		cmd := exec.Command(bin, tt.args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "none"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("kubectl-dsplan %s: %v\n%s", strings.Join(tt.args, " "), err, out)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("kubectl-dsplan %s: output lacks %q:\n%s", strings.Join(tt.args, " "), w, out)
			}
		}
	}
}

func TestProgramName(t *testing.T) {
	for argv0, want := range map[string]string{
		"/usr/local/bin/kubectl-dsplan": "kubectl dsplan", "kubectl-dsplan.exe": "kubectl dsplan",
		"/tmp/go-build/live": "dsplan", "dsplan": "dsplan",
	} {
		if got := programName(argv0); got != want {
			t.Errorf("programName(%q) = %q, want %q", argv0, got, want)
		}
	}
}
