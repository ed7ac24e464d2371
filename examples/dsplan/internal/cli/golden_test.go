package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGolden runs each command line in process and compares its exit code,
// stdout and stderr with testdata/golden/NAME.txt (-update rewrites them).
// Files an invocation writes (--svg) are compared with
// testdata/golden/NAME.svg.
func TestGolden(t *testing.T) {
	const in = "testdata/inputs/"
	tests := []struct {
		name  string
		args  []string
		stdin string
		svg   bool
	}{
		// The embedded cluster: three DaemonSets in two namespaces.
		{name: "plan", args: []string{"plan"}},
		{name: "no-args", args: nil},
		{name: "plan-wide", args: []string{"plan", "-o", "wide"}},
		{name: "plan-json", args: []string{"plan", "-o", "json"}},
		{name: "plan-yaml", args: []string{"plan", "-o", "yaml"}},
		{name: "plan-one-burst", args: []string{"plan", "--daemonset", "kube-system/nvidia-device-plugin", "--burst", "1", "--now", "2025-06-01T12:30:00Z"}},
		{name: "explain-notready", args: []string{"explain", "worker-09"}},
		{name: "explain-gpu", args: []string{"explain", "--daemonset", "kube-system/fluent-bit", "gpu-1"}},
		{name: "simulate", args: []string{"simulate", "--daemonset", "kube-system/fluent-bit", "--image", "cr.fluentbit.io/fluent/fluent-bit:3.2.5", "--svg", "OUT.svg"}, svg: true},
		{name: "simulate-stalled", args: []string{"simulate", "--daemonset", "monitoring/node-exporter"}},
		{name: "simulate-stalled-json", args: []string{"simulate", "--daemonset", "monitoring/node-exporter", "-o", "json"}},
		{name: "simulate-fleet", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "--image", "quay.io/prometheus/node-exporter:v1.9.1", "--fail-rate", "0.05", "--seed", "7"}},
		// Rollout controls (daemon.RolloutPolicy): a canary kept at a
		// partition, a scope with an order and a strict budget, a paused plan.
		{name: "simulate-partition", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "--image", "quay.io/prometheus/node-exporter:v1.9.1", "--partition", "90%"}},
		{name: "simulate-scope-order", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "--image", "quay.io/prometheus/node-exporter:v1.9.1", "--scope", "kubernetes.io/hostname notin (worker-000,worker-001)", "--order-label", "kubernetes.io/hostname", "--order-values", "worker-099,worker-098", "--strict"}},
		{name: "simulate-image-unknown", args: []string{"simulate", "--daemonset", "kube-system/fluent-bit", "--image", "fluentbit=cr.fluentbit.io/fluent/fluent-bit:3.2.5"}},
		{name: "simulate-order-warning-json", args: []string{"simulate", "-o", "json", "--daemonset", "kube-system/fluent-bit", "--order-label", "topology.kubernetes.io/zone", "--order-values", "eu-west-1z"}},
		{name: "plan-order-warning", args: []string{"plan", "--daemonset", "kube-system/fluent-bit", "--order-label", "topology.kubernetes.io/zone", "--order-values", "eu-west-1z"}},
		{name: "plan-paused", args: []string{"plan", "--daemonset", "monitoring/node-exporter", "--paused"}},
		// kubectl captures, with managedFields, as YAML and as JSON
		// (whose revision data kubectl indents).
		{name: "capture-yaml", args: []string{"plan", "-f", in + "kubectl-capture.yaml"}},
		{name: "capture-json", args: []string{"plan", "-o", "json", "-f", in + "kubectl-capture.json"}},
		{name: "capture-stdin", args: []string{"explain", "w-1", "-f", "-"}, stdin: "kubectl-capture.yaml"},
		{name: "two-namespaces", args: []string{"plan", "-f", in + "two-namespaces.yaml"}},
		{name: "two-namespaces-explain", args: []string{"explain", "hdd-1", "-f", in + "two-namespaces.yaml"}},
		// Issue 22 §1: a template change starts a rollout on pods that
		// carry pod-template-generation; pods still starting become Ready,
		// failing ones stay down and say why; a paused rollout says it is.
		{name: "simulate-capture-gen3", args: []string{"simulate", "-f", in + "kubectl-capture-gen3.yaml", "--image", "registry.k8s.io/kube-proxy:v1.36.4"}},
		{name: "simulate-starting", args: []string{"simulate", "-f", in + "starting.yaml"}},
		// Issue 31 §2: trouble of the cluster is Blocked (exit 3), named as
		// data, and can be assumed away to see the rollout that follows.
		{name: "simulate-starting-json", args: []string{"simulate", "-f", in + "starting.yaml", "--daemonset", "kube-system/cilium", "-o", "json"}},
		{name: "simulate-assume-ready", args: []string{"simulate", "-f", in + "starting.yaml", "--daemonset", "kube-system/cilium", "--assume-ready", "node-3"}},
		{name: "simulate-exclude-not-ready", args: []string{"simulate", "--daemonset", "monitoring/node-exporter", "--exclude-not-ready"}},
		{name: "simulate-exclude-not-ready-json", args: []string{"simulate", "--daemonset", "monitoring/node-exporter", "--exclude-not-ready", "-o", "json"}},
		{name: "simulate-deadline", args: []string{"simulate", "-f", "internal/cli/testdata/cluster.yaml", "-f", in + "node-exporter-deadline.yaml", "--daemonset", "monitoring/node-exporter"}},
		{name: "simulate-deadline-json", args: []string{"simulate", "-f", "internal/cli/testdata/cluster.yaml", "-f", in + "node-exporter-deadline.yaml", "--daemonset", "monitoring/node-exporter", "-o", "json"}},
		{name: "usage-assume-ready-unknown", args: []string{"simulate", "--assume-ready", "worker-99"}},
		{name: "simulate-paused", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "--image", "quay.io/prometheus/node-exporter:v1.9.1", "--paused"}},
		{name: "explain-crashloop", args: []string{"explain", "node-3", "-f", in + "starting.yaml"}},
		// §2: what if I apply this manifest over the capture?
		{name: "apply-new-image", args: []string{"plan", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-v1.36.4.yaml"}},
		{name: "apply-rollback", args: []string{"plan", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-v1.35.2.yaml"}},
		{name: "apply-unchanged", args: []string{"plan", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-v1.36.3.yaml"}},
		{name: "apply-created", args: []string{"plan", "-f", in + "kubectl-capture.yaml", "-f", in + "nvidia-device-plugin.yaml", "--daemonset", "kube-system/nvidia-device-plugin-daemonset"}},
		{name: "apply-rejected", args: []string{"plan", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-bad-budget.yaml"}},
		{name: "apply-json", args: []string{"plan", "-o", "json", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-v1.36.4.yaml"}},
		{name: "apply-simulate", args: []string{"simulate", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-v1.36.4.yaml"}},
		{name: "apply-simulate-json", args: []string{"simulate", "-o", "json", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-v1.36.4.yaml"}},
		// The template's field diff and the rollback as data: plan and
		// simulate documents carry applied.templateChanges and
		// applied.rollbackTo.
		{name: "apply-rollback-json", args: []string{"plan", "-o", "json", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-v1.35.2.yaml"}},
		{name: "apply-rollback-simulate-json", args: []string{"simulate", "-o", "json", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-v1.35.2.yaml"}},
		// §3: the estimate and the waves, by zone, as text and JSON.
		{name: "simulate-zones", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "--image", "quay.io/prometheus/node-exporter:v1.9.1",
			"--order-label", "topology.kubernetes.io/zone", "--order-values", "us-east-1c,us-east-1a"}},
		{name: "simulate-wave-barrier", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "--image", "quay.io/prometheus/node-exporter:v1.9.1",
			"--order-label", "topology.kubernetes.io/zone", "--order-values", "us-east-1c,us-east-1a", "--wave-bake", "30s"}},
		{name: "usage-wave-bake", args: []string{"simulate", "--wave-bake", "30s"}},
		// Where it blocks: a host port under maxSurge, which the
		// simulation does not model.
		{name: "simulate-hostport-surge", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-hostport-surge.yaml"}},
		{name: "simulate-json", args: []string{"simulate", "-o", "json", "--daemonset", "kube-system/fluent-bit", "--image", "cr.fluentbit.io/fluent/fluent-bit:3.2.5"}},
		{name: "simulate-ready-delay", args: []string{"simulate", "--daemonset", "kube-system/fluent-bit", "--image", "cr.fluentbit.io/fluent/fluent-bit:3.2.5", "--ready-delay", "30s"}},
		// Issue 32 §5: the gates seen before the rollout: the canary wave,
		// the approval points, a maintenance window's wait counted in the
		// expected duration (before the start, and from Friday 17:00 with
		// two waves to go); and a health gate stopping the rollout at a
		// crash-looping pod of the new revision (exit 3).
		{name: "simulate-gates", args: []string{"simulate", "-f", in + "gates.yaml", "--now", "2025-06-01T15:50:00Z", "--daemonset", "kube-system/node-agent", "--image", "registry.example/node-agent:v2"}},
		{name: "simulate-gates-json", args: []string{"simulate", "-o", "json", "-f", in + "gates.yaml", "--now", "2025-06-01T15:50:00Z", "--daemonset", "kube-system/node-agent", "--image", "registry.example/node-agent:v2"}},
		{name: "simulate-gates-window-closes", args: []string{"simulate", "-f", in + "gates.yaml", "--now", "2025-06-06T14:59:30Z", "--daemonset", "kube-system/node-agent", "--image", "registry.example/node-agent:v2"}},
		{name: "simulate-health-gate", args: []string{"simulate", "-f", in + "gates.yaml", "--now", "2025-06-01T15:50:00Z", "--daemonset", "kube-system/log-agent"}},
		{name: "simulate-health-gate-json", args: []string{"simulate", "-o", "json", "-f", in + "gates.yaml", "--now", "2025-06-01T15:50:00Z", "--daemonset", "kube-system/log-agent"}},
		// Issue 23 §2, §5: the rollout annotations of an OnDelete DaemonSet
		// (companion mode) read as the controller reads them; flags
		// override them; invalid ones name each key.
		{name: "annotated-plan", args: []string{"plan", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-annotated.yaml", "-l", "kubernetes.io/hostname in (worker-000,worker-037)"}},
		{name: "annotated-plan-json", args: []string{"plan", "-o", "json", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-annotated.yaml"}},
		{name: "annotated-misspelt", args: []string{"plan", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-misspelt.yaml", "-l", "kubernetes.io/hostname in (worker-000)"}},
		{name: "annotated-simulate", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-annotated.yaml"}},
		{name: "annotated-simulate-flags", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-annotated.yaml", "--wave-bake", "0s", "--domain-max-unavailable", "3", "--order-values", "us-east-1a"}},
		{name: "annotated-explain", args: []string{"explain", "worker-002", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-annotated.yaml"}},
		{name: "annotated-explain-json", args: []string{"explain", "-o", "json", "worker-002", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-annotated.yaml"}},
		{name: "annotated-bad", args: []string{"plan", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-bad-annotations.yaml"}},
		{name: "annotated-bad-simulate", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-bad-annotations.yaml"}},
		// Issue 37 §5: annotations on a RollingUpdate DaemonSet are inert
		// beside kube-controller-manager, and every preview says so first;
		// every key is a flag.
		{name: "inert-plan", args: []string{"plan", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-rollingupdate-annotated.yaml", "-l", "kubernetes.io/hostname in (worker-000)"}},
		{name: "inert-simulate", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-rollingupdate-annotated.yaml"}},
		{name: "inert-explain", args: []string{"explain", "worker-002", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-rollingupdate-annotated.yaml"}},
		{name: "simulate-gate-flags", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "--image", "quay.io/prometheus/node-exporter:v1.9.1", "--canary", "3", "--pause-after", "canary", "--max-restarts", "0", "--on-failure", "rollback", "--window", "Sun 11:00-13:00 UTC"}},
		{name: "usage-pause-after-flag", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-annotated.yaml", "--pause-after", "canary"}},
		{name: "usage-canary-flag", args: []string{"simulate", "--canary", "0%"}},
		// Issue 37 §1: a pause-after naming no wave holds at once, named
		// with the waves there are (before: "gates: pause after
		// us-east-1z", exit 0, a rollout through every node).
		{name: "annotated-pause-after-typo-simulate", args: []string{"simulate", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-pause-after-typo.yaml"}},
		{name: "annotated-pause-after-typo-explain", args: []string{"explain", "worker-002", "-f", "testdata/fleet-100.yaml", "-f", in + "node-exporter-pause-after-typo.yaml"}},
		{name: "usage-annotated-order-values", args: []string{"plan", "-f", "testdata/fleet-100.yaml", "--order-values", "us-east-1c"}},
		// §6: the command people expect.
		{name: "help", args: []string{"help"}},
		{name: "help-explain", args: []string{"explain", "-h"}},
		{name: "explain-json", args: []string{"explain", "worker-09", "-o", "json"}},
		{name: "plan-node", args: []string{"plan", "--daemonset", "monitoring/node-exporter", "--node", "worker-01", "--node", "worker-09"}},
		{name: "plan-selector", args: []string{"plan", "--daemonset", "kube-system/nvidia-device-plugin", "-l", "accelerator=nvidia"}},
		{name: "usage-completion", args: []string{"completion", "tcsh"}},
		// Bad input: exit 1.
		{name: "bad-not-kubernetes", args: []string{"plan", "-f", in + "not-kubernetes.txt"}},
		{name: "bad-no-kind", args: []string{"plan", "-f", in + "no-kind.yaml"}},
		{name: "bad-yaml", args: []string{"plan", "-f", in + "bad-yaml.yaml"}},
		{name: "bad-missing-file", args: []string{"plan", "-f", in + "nope.yaml"}},
		{name: "bad-daemonset", args: []string{"plan", "--daemonset", "kube-system/node-exporter"}},
		{name: "bad-node", args: []string{"explain", "worker-10"}},
		{name: "bad-no-daemonset", args: []string{"plan", "-f", "-"}, stdin: "nodes-only.yaml"},
		// What kubectl apply would send, and the input a file names (#37).
		{name: "apply-empty-image", args: []string{"plan", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-empty-image.yaml"}},
		{name: "apply-empty-image-simulate", args: []string{"simulate", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-empty-image.yaml"}},
		{name: "apply-unknown-field", args: []string{"plan", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-unknown-field.yaml"}},
		{name: "apply-old-apiversion", args: []string{"simulate", "-f", in + "kubectl-capture.yaml", "-f", in + "kube-proxy-extensions-v1beta1.yaml"}},
		{name: "bad-empty-file", args: []string{"plan", "-f", in + "empty.yaml"}},
		{name: "bad-deployment", args: []string{"plan", "-f", in + "kubectl-capture.yaml", "-f", in + "deployment.yaml"}},
		{name: "bad-manifest-no-capture", args: []string{"plan", "-f", in + "kube-proxy-v1.36.4.yaml"}},
		{name: "bad-compute", args: []string{"plan", "-f", in + "bad-budget.yaml"}},
		{name: "bad-compute-json", args: []string{"plan", "-o", "json", "-f", in + "bad-budget.yaml"}},
		// Template skew: exit 8. A capture of a cluster newer than this
		// build, whose newest revision of kube-proxy holds a template
		// field this build does not know; the capture without it plans
		// (capture-yaml).
		{name: "skew-plan", args: []string{"plan", "-f", in + "kubectl-capture-skew.yaml"}},
		{name: "skew-plan-json", args: []string{"plan", "-o", "json", "-f", in + "kubectl-capture-skew.yaml"}},
		{name: "skew-explain", args: []string{"explain", "w-1", "-f", in + "kubectl-capture-skew.yaml"}},
		{name: "skew-simulate", args: []string{"simulate", "-f", in + "kubectl-capture-skew.yaml"}},
		// Usage: exit 2.
		{name: "usage-command", args: []string{"apply"}},
		{name: "usage-flag", args: []string{"plan", "--kubeconfig", "x"}},
		{name: "usage-now", args: []string{"plan", "--now", "yesterday"}},
		{name: "usage-output", args: []string{"plan", "-o", "table"}},
		{name: "usage-explain", args: []string{"explain"}},
		{name: "usage-daemonset", args: []string{"plan", "--daemonset", "fluent-bit"}},
		{name: "usage-partition", args: []string{"simulate", "--partition", "150%"}},
		{name: "usage-domain", args: []string{"plan", "--domain-max-unavailable", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string(nil), tt.args...)
			svgPath := filepath.Join(t.TempDir(), "out.svg")
			for i, a := range args {
				if a == "OUT.svg" {
					args[i] = svgPath
				}
			}
			var stdin bytes.Reader
			if tt.stdin != "" {
				data, err := os.ReadFile(in + tt.stdin)
				if err != nil {
					t.Fatal(err)
				}
				stdin.Reset(data)
			}
			var stdout, stderr bytes.Buffer
			code := Run(args, &stdin, &stdout, &stderr, Options{})
			got := fmt.Sprintf("$ dsplan %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(tt.args, " "), code, stdout.String(), stderr.String())
			got = strings.ReplaceAll(got, svgPath, "OUT.svg")
			golden(t, "testdata/golden/"+tt.name+".txt", got)
			if tt.svg {
				data, err := os.ReadFile(svgPath)
				if err != nil {
					t.Fatal(err)
				}
				golden(t, "testdata/golden/"+tt.name+".svg", string(data))
			}
		})
	}
}

// golden compares got with the file, or rewrites it with -update.
func golden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; -update rewrites it):\n%s", file, diff)
	}
}
