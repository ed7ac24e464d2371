package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	kwokconfig "sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/utils/gotpl"
	"sigs.k8s.io/kwok/pkg/utils/lifecycle"
)

// TestKwokStages plays the pod stages of kwokStages on pods, as kwok's pod
// controller does (match, then patch the status strategically), without a
// cluster: an ordinary pod only becomes Ready (the fault stages leave it
// alone), a crashLabel pod becomes Ready and then crash-loops, an
// imagePullLabel pod never becomes Ready and ends in ImagePullBackOff, and
// every pod being deleted goes.
func TestKwokStages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stages.yaml")
	if err := os.WriteFile(path, []byte(kwokStages()), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	objs, err := kwokconfig.Load(ctx, path)
	if err != nil {
		t.Fatalf("kwok cannot load the stages: %v", err)
	}
	var podStages []*internalversion.Stage
	for _, s := range kwokconfig.FilterWithType[*internalversion.Stage](objs) {
		if s.Spec.ResourceRef.Kind == "Pod" {
			podStages = append(podStages, s)
		}
	}
	lc, err := lifecycle.NewLifecycle(podStages)
	if err != nil {
		t.Fatal(err)
	}
	ips := func(...any) []string { return []string{"10.0.0.1"} }
	renderer := gotpl.NewRenderer(gotpl.FuncMap{"NodeIPsWith": ips, "PodIPsWith": ips,
		"NodeIPWith": func(...any) string { return "10.0.0.1" }, "PodIPWith": func(...any) string { return "10.0.0.1" }})

	// play applies the stages that match pod until none does, at most
	// ten, and returns their names and the pod as they left it.
	play := func(pod *corev1.Pod) ([]string, *corev1.Pod) {
		var played []string
		for range 10 {
			stage, err := lc.Match(ctx, &lifecycle.Event{Labels: pod.Labels, Annotations: pod.Annotations, Data: pod})
			if err != nil {
				t.Fatalf("matching %s: %v", pod.Name, err)
			}
			if stage == nil {
				break
			}
			played = append(played, stage.Name())
			deleted := false
			_, err = stage.DoSteps(0, nil, pod, renderer,
				func(*internalversion.StageEvent) error { return nil },
				func() error { deleted = true; return nil },
				func(p *lifecycle.Patch) error {
					orig, err := json.Marshal(pod)
					if err != nil {
						return err
					}
					patched, err := strategicpatch.StrategicMergePatch(orig, p.Data, corev1.Pod{})
					if err != nil {
						return err
					}
					next := &corev1.Pod{}
					if err := json.Unmarshal(patched, next); err != nil {
						return err
					}
					pod = next
					return nil
				},
				func(*lifecycle.Apply) error { return nil })
			if err != nil {
				t.Fatalf("stage %s on %s: %v", stage.Name(), pod.Name, err)
			}
			if deleted {
				break
			}
		}
		return played, pod
	}
	newPod := func(name string, labels map[string]string) *corev1.Pod {
		labels["app"] = "agent"
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace, Labels: labels},
			Spec:       corev1.PodSpec{NodeName: "zone-a-000", Containers: []corev1.Container{{Name: "agent", Image: "example.invalid/agent:v2"}}},
			Status:     corev1.PodStatus{Phase: corev1.PodPending},
		}
	}
	type end struct {
		Phase    corev1.PodPhase
		Ready    bool
		Waiting  string
		Restarts int32
		ExitCode int32
	}
	endOf := func(p *corev1.Pod) end {
		e := end{Phase: p.Status.Phase, Ready: podReady(p)}
		for _, c := range p.Status.ContainerStatuses {
			if c.State.Waiting != nil {
				e.Waiting = c.State.Waiting.Reason
			}
			e.Restarts += c.RestartCount
			if c.LastTerminationState.Terminated != nil {
				e.ExitCode = c.LastTerminationState.Terminated.ExitCode
			}
		}
		return e
	}
	deleting := newPod("deleting", map[string]string{crashLabel: "true"})
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	for _, tc := range []struct {
		pod        *corev1.Pod
		wantPlayed []string
		want       end
	}{
		{pod: newPod("ordinary", map[string]string{}), wantPlayed: []string{"pod-ready"},
			want: end{Phase: corev1.PodRunning, Ready: true}},
		{pod: newPod("crash", map[string]string{crashLabel: "true"}), wantPlayed: []string{"pod-ready", "e2e-pod-crash-after-ready"},
			want: end{Phase: corev1.PodRunning, Waiting: "CrashLoopBackOff", Restarts: 1, ExitCode: 1}},
		{pod: newPod("image-pull", map[string]string{imagePullLabel: "true"}), wantPlayed: []string{"e2e-pod-image-pull-error", "e2e-pod-image-pull-backoff"},
			want: end{Phase: corev1.PodPending, Waiting: "ImagePullBackOff"}},
		{pod: deleting, wantPlayed: []string{"pod-delete"}, want: end{Phase: corev1.PodPending}},
	} {
		played, got := play(tc.pod)
		if diff := cmp.Diff(tc.wantPlayed, played); diff != "" {
			t.Errorf("%s: stages played (-want +got):\n%s", tc.pod.Name, diff)
		}
		if diff := cmp.Diff(tc.want, endOf(got)); diff != "" {
			t.Errorf("%s: the pod at the end (-want +got):\n%s", tc.pod.Name, diff)
		}
	}
	if !strings.Contains(kwokStages(), labelAbsent(imagePullLabel)) {
		t.Error("kwok's pod-ready stage does not spare the pods whose image cannot be pulled")
	}
}
