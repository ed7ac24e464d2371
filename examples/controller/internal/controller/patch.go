package controller

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// ownerPatch returns the strategic merge patch that adds (adopt) or removes
// the controller reference to ds on an object with UID uid. The patch
// carries metadata.uid, so the API server refuses it when the name now
// belongs to another object.
func ownerPatch(ds *appsv1.DaemonSet, uid types.UID, adopt bool) ([]byte, error) {
	var ref map[string]any
	if adopt {
		ref = map[string]any{
			"apiVersion":         appsv1.SchemeGroupVersion.String(),
			"kind":               "DaemonSet",
			"name":               ds.Name,
			"uid":                ds.UID,
			"controller":         true,
			"blockOwnerDeletion": true,
		}
	} else {
		ref = map[string]any{"$patch": "delete", "uid": ds.UID}
	}
	return json.Marshal(map[string]any{
		"metadata": map[string]any{
			"ownerReferences": []any{ref},
			"uid":             uid,
		},
	})
}

// hashLabelPatch returns the strategic merge patch that sets the
// controller-revision-hash label to hash on the pod with UID uid.
func hashLabelPatch(uid types.UID, hash string) ([]byte, error) {
	return json.Marshal(map[string]any{
		"metadata": map[string]any{
			"labels": map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: hash},
			"uid":    uid,
		},
	})
}

// patchOwner adopts (adopt) or releases the pod or controllerrevision
// (kind) ns/name with UID uid.
func (c *Controller) patchOwner(ctx context.Context, kind, ns, name string, uid types.UID, ds *appsv1.DaemonSet, adopt bool) error {
	verb := "release"
	if adopt {
		verb = "adopt"
	}
	patch, err := ownerPatch(ds, uid, adopt)
	if err != nil {
		return fmt.Errorf("%s %s %s/%s: %w", verb, kind, ns, name, err)
	}
	switch kind {
	case "pod":
		var patched *corev1.Pod
		patched, err = c.Client.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		if err == nil {
			c.Fence.Wrote(cache.MetaObjectToName(ds).String(), syncer.FencePods, patched.ResourceVersion)
		}
	default:
		_, err = c.Client.AppsV1().ControllerRevisions(ns).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	}
	if err != nil {
		c.Metrics.ActionErrors.WithLabelValues(verb).Inc()
		return fmt.Errorf("%s %s %s/%s: %w", verb, kind, ns, name, err)
	}
	return nil
}

// patchHashLabel gives pod, of the DaemonSet key, the current revision's
// hash label.
func (c *Controller) patchHashLabel(ctx context.Context, key string, pod interface {
	GetNamespace() string
	GetName() string
	GetUID() types.UID
}, hash string) error {
	patch, err := hashLabelPatch(pod.GetUID(), hash)
	if err == nil {
		var patched *corev1.Pod
		patched, err = c.Client.CoreV1().Pods(pod.GetNamespace()).Patch(ctx, pod.GetName(), types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		if err == nil {
			c.Fence.Wrote(key, syncer.FencePods, patched.ResourceVersion)
		}
	}
	if err != nil {
		c.Metrics.ActionErrors.WithLabelValues("relabel").Inc()
		return fmt.Errorf("relabel pod %s/%s: %w", pod.GetNamespace(), pod.GetName(), err)
	}
	return nil
}
