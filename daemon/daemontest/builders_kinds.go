package daemontest

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// PodsByKind returns one pod of ds on each of the nodes n1, n2, … in
// order, shaped by kinds[i]: "old" (hash v1), "new" (the template's hash,
// ready since readyAt), either with the suffix "-unready" for a pod that is
// not ready, or "" for no pod on that node. Pods are named
// <ds>-n<i>-<kind>; the result follows the order of kinds.
func PodsByKind(ds *appsv1.DaemonSet, readyAt time.Time, kinds ...string) []*corev1.Pod {
	var pods []*corev1.Pod
	for i, k := range kinds {
		if k == "" {
			continue
		}
		node := fmt.Sprintf("n%d", i+1)
		var opts []PodOption
		if strings.HasPrefix(k, "old") {
			opts = append(opts, WithHash("v1"))
		} else {
			opts = append(opts, ReadySince(readyAt))
		}
		if strings.HasSuffix(k, "unready") {
			opts = append(opts, NotReadyPod())
		}
		pods = append(pods, Pod(ds, ds.Name+"-"+node+"-"+k, node, opts...))
	}
	return pods
}
