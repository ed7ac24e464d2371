package e2e

import (
	"strconv"
	"strings"
	"time"
)

// Pod labels that make kwok play a failing node agent (kwokFaultStages). A
// scenario puts one in the new revision's pod template only, so that the
// new revision fails and the old one runs as ever.
const (
	// crashLabel: the pod becomes Ready as any other, then, crashAfter
	// later, its containers crash: restarted once, waiting in
	// CrashLoopBackOff, the last termination exit code 1, and the pod no
	// longer Ready (as a kubelet reports an agent that dies after its
	// start).
	crashLabel = "e2e.daemonplan.io/crash"
	// imagePullLabel: the pod never starts: its containers wait in
	// ErrImagePull, then in ImagePullBackOff, and it never becomes Ready.
	imagePullLabel = "e2e.daemonplan.io/image-pull"
)

// crashAfter is how long a crashLabel pod stays Ready before it crashes.
const crashAfter = 2 * time.Second

// withSelectorRequirement returns a kwok stage with one more requirement
// (YAML lines at the indentation of the list items of
// spec.selector.matchExpressions) first in its selector. The stage is
// returned as it is when its selector is not where kwok v0.8.0 has it; the
// scenarios that rely on the requirement then fail, saying what they saw.
func withSelectorRequirement(stage, requirement string) string {
	const anchor = "  selector:\n    matchExpressions:\n"
	i := strings.Index(stage, anchor)
	if i < 0 {
		return stage
	}
	i += len(anchor)
	return stage[:i] + requirement + stage[i:]
}

// labelAbsent is a selector requirement that the pod has no label key.
func labelAbsent(key string) string {
	return "    - key: '.metadata.labels[\"" + key + "\"]'\n      operator: 'DoesNotExist'\n"
}

// podCrashStage makes a Ready pod with crashLabel crash crashAfter later
// (see crashLabel). The pod's phase stays Running, as a kubelet keeps it
// while it restarts the container, so kwok's pod-ready stage, which takes
// Pending pods only, does not make it Ready again, and neither
// kube-controller-manager (which replaces Failed pods) nor this stage
// (which takes Ready pods only) acts on it again.
var podCrashStage = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: e2e-pod-crash-after-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.labels["` + crashLabel + `"]'
      operator: 'In'
      values:
      - 'true'
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Running'
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'In'
      values:
      - 'True'
  delay:
    durationMilliseconds: ` + strconv.FormatInt(crashAfter.Milliseconds(), 10) + `
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $pod := .metadata.name }}
      {{ $started := or .status.startTime $now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: ContainersNotReady
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: ContainersNotReady
        type: ContainersReady
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 1
        state:
          waiting:
            reason: CrashLoopBackOff
            message: {{ printf "back-off 10s restarting failed container=%s pod=%s" .name $pod | Quote }}
        lastState:
          terminated:
            exitCode: 1
            reason: Error
            startedAt: {{ $started | Quote }}
            finishedAt: {{ $now | Quote }}
      {{ end }}
      phase: Running
`

// podImagePullStage makes a scheduled pod with imagePullLabel wait in
// ErrImagePull (see imagePullLabel); podImagePullBackOffStage moves it on
// to ImagePullBackOff a second later. kwok's pod-ready stage spares these
// pods (kwokStages).
var podImagePullStage = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: e2e-pod-image-pull-error
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.labels["` + imagePullLabel + `"]'
      operator: 'In'
      values:
      - 'true'
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Pending'
    - key: '.status.containerStatuses'
      operator: 'DoesNotExist'
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: ContainersNotReady
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: ContainersNotReady
        type: ContainersReady
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          waiting:
            reason: ErrImagePull
            message: {{ printf "failed to pull image %q: not found" .image | Quote }}
      {{ end }}
      phase: Pending
      startTime: {{ $now | Quote }}
`

var podImagePullBackOffStage = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: e2e-pod-image-pull-backoff
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.labels["` + imagePullLabel + `"]'
      operator: 'In'
      values:
      - 'true'
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.containerStatuses.[].state.waiting.reason'
      operator: 'In'
      values:
      - 'ErrImagePull'
  delay:
    durationMilliseconds: 1000
  next:
    statusTemplate: |
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          waiting:
            reason: ImagePullBackOff
            message: {{ printf "Back-off pulling image %q" .image | Quote }}
      {{ end }}
`
