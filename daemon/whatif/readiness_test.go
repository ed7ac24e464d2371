package whatif_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// The taints of kubernetes-sigs/node-readiness-controller: a node registers
// with one per NodeReadinessRule (kubelet --register-with-taints), and the
// controller removes each once the rule's node conditions hold. Which
// DaemonSets tolerate them decides what runs first on a new node.
var (
	networkNotReady = corev1.Taint{Key: "readiness.k8s.io/NetworkReady", Value: "pending", Effect: corev1.TaintEffectNoSchedule}
	storageNotReady = corev1.Taint{Key: "readiness.k8s.io/StorageReady", Value: "pending", Effect: corev1.TaintEffectNoSchedule}
	// A rule in continuous enforcement may evict too.
	gpuNotReady = corev1.Taint{Key: "readiness.k8s.io/GPUReady", Value: "false", Effect: corev1.TaintEffectNoExecute}
)

// readinessDaemonSets are a CNI agent that tolerates every taint, a CSI
// node plugin that tolerates the storage taint only (it reports storage
// readiness, but needs the network), a GPU agent that tolerates the GPU
// taint only, and a log shipper that tolerates none.
func readinessDaemonSets() []*appsv1.DaemonSet {
	return []*appsv1.DaemonSet{
		dt.DaemonSet("cilium", func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		}),
		dt.DaemonSet("ebs-csi-node", dt.WithToleration(storageNotReady.Key, corev1.TaintEffectNoSchedule)),
		dt.DaemonSet("gpu-agent", dt.WithToleration(gpuNotReady.Key, corev1.TaintEffectNoExecute)),
		dt.DaemonSet("fluent-bit"),
	}
}

// ignoreReadiness drops every readiness.k8s.io taint: the node once every
// rule holds, what an autoscaler sizes for.
func ignoreReadiness(t corev1.Taint) bool { return strings.HasPrefix(t.Key, "readiness.k8s.io/") }

// TestReadinessTaints walks a new node through its readiness taints: each
// step runs only the DaemonSets that tolerate the taints still on it.
func TestReadinessTaints(t *testing.T) {
	tests := []struct {
		name   string
		taints []corev1.Taint
		opts   whatif.Options
		want   []string // the DaemonSets whose pod PodsForNode gives
	}{
		{name: "registered with network and storage taints: only the CNI agent", taints: []corev1.Taint{networkNotReady, storageNotReady}, want: []string{"cilium"}},
		{name: "network ready: the CSI plugin that tolerates the storage taint", taints: []corev1.Taint{storageNotReady}, want: []string{"cilium", "ebs-csi-node"}},
		{name: "every rule holds", want: []string{"cilium", "ebs-csi-node", "fluent-bit", "gpu-agent"}},
		{
			name:   "a NoExecute readiness taint is not among the daemon tolerations the controller adds",
			taints: []corev1.Taint{gpuNotReady},
			want:   []string{"cilium", "gpu-agent"},
		},
		{
			name:   "the readiness taints ignored by key, as an autoscaler sizes a node",
			taints: []corev1.Taint{networkNotReady, storageNotReady, gpuNotReady},
			opts:   whatif.Options{IgnoreTaints: []corev1.Taint{{Key: networkNotReady.Key}, {Key: storageNotReady.Key}, {Key: gpuNotReady.Key}}},
			want:   []string{"cilium", "ebs-csi-node", "fluent-bit", "gpu-agent"},
		},
		{
			name:   "the readiness taints ignored by prefix",
			taints: []corev1.Taint{networkNotReady, storageNotReady, gpuNotReady},
			opts:   whatif.Options{IgnoreTaint: ignoreReadiness},
			want:   []string{"cilium", "ebs-csi-node", "fluent-bit", "gpu-agent"},
		},
		{
			name:   "ignoring one readiness taint keeps the others",
			taints: []corev1.Taint{networkNotReady, storageNotReady},
			opts:   whatif.Options{IgnoreTaints: []corev1.Taint{{Key: networkNotReady.Key, Effect: corev1.TaintEffectNoSchedule}}},
			want:   []string{"cilium", "ebs-csi-node"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := dt.Node("new-node")
			node.Spec.Taints = tt.taints
			pods, err := whatif.PodsForNode(node, readinessDaemonSets(), tt.opts)
			if err != nil {
				t.Fatalf("PodsForNode() error = %v", err)
			}
			var got []string
			for _, p := range pods {
				got = append(got, p.OwnerReferences[0].Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PodsForNode() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.taints, node.Spec.Taints); diff != "" {
				t.Errorf("PodsForNode() modified the node's taints (-before +after):\n%s", diff)
			}
		})
	}
}

// TestReadinessTaintVerdicts: on a node group that registers with readiness
// taints, each DaemonSet's verdict names the readiness taint that keeps it
// off, NoExecute first.
func TestReadinessTaintVerdicts(t *testing.T) {
	group := whatif.NodeTemplate{
		Labels: map[string]string{"kubernetes.io/os": "linux"},
		Taints: []corev1.Taint{networkNotReady, storageNotReady, gpuNotReady},
	}
	tests := []struct {
		name string
		opts whatif.Options
		want map[string]string
	}{
		{
			name: "at registration",
			want: map[string]string{
				"cilium":       "Yes",
				"ebs-csi-node": "No: UntoleratedNoExecuteTaint (readiness.k8s.io/GPUReady=false:NoExecute)",
				"gpu-agent":    "No: UntoleratedTaint (readiness.k8s.io/NetworkReady=pending:NoSchedule)",
				"fluent-bit":   "No: UntoleratedNoExecuteTaint (readiness.k8s.io/GPUReady=false:NoExecute)",
			},
		},
		{
			name: "once ready",
			opts: whatif.Options{IgnoreTaint: ignoreReadiness},
			want: map[string]string{"cilium": "Yes", "ebs-csi-node": "Yes", "gpu-agent": "Yes", "fluent-bit": "Yes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct, err := whatif.CompileTemplate(group)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, ds := range readinessDaemonSets() {
				tpl := group
				if tt.opts.IgnoreTaint != nil {
					tpl.Taints = nil
				}
				v, err := whatif.PlacementFor(tpl, ds, false)
				if err != nil {
					t.Fatal(err)
				}
				got[ds.Name] = v.String()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PlacementFor() (-want +got):\n%s", diff)
			}
			// PodsForTemplate gives a pod exactly to the Yes DaemonSets.
			pods, err := whatif.PodsForTemplate(ct, readinessDaemonSets(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			fromPods := map[string]string{}
			for _, p := range pods {
				fromPods[p.Pod.OwnerReferences[0].Name] = p.Placement.String()
			}
			for name, v := range tt.want {
				if v != "Yes" {
					continue
				}
				if fromPods[name] != "Yes" {
					t.Errorf("PodsForTemplate(): %s is %q, want Yes", name, fromPods[name])
				}
				delete(fromPods, name)
			}
			if len(fromPods) > 0 {
				t.Errorf("PodsForTemplate() gives pods to DaemonSets that are not Yes: %v", fromPods)
			}
		})
	}
}
