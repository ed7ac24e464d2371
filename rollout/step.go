package rollout

import (
	corev1 "k8s.io/api/core/v1"
)

// Node is what the rolling-update step knows of one node.
type Node struct {
	Name string
	// Missing is true for a node name that pods target but that is not in
	// the node list.
	Missing bool
	// ShouldRun is the placement verdict for a new daemon pod on the node.
	ShouldRun bool
	// Pods are the DaemonSet's pods targeting the node (terminal pods that
	// are being deleted excluded).
	Pods []*corev1.Pod
}

// Step is one rolling-update step.
type Step struct {
	MaxSurge, MaxUnavailable, Desired int
}
