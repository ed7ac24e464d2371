package daemon

import (
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateInput checks what Compute needs to plan at all. It reports every
// problem, not only the first, as field errors joined in an *Error of
// StageInput. Duplicate node names, and duplicate names
// among the pods the DaemonSet owns or adopts, are found later, when those
// are sorted anyway (see cluster.build). objects false skips the checks of
// each node and pod, for a caller that made them (a Planner's memo).
func validateInput(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, revisions []*appsv1.ControllerRevision, objects bool) error {
	if ds == nil {
		return NewError(nil, StageInput, field.Required(field.NewPath("daemonSet"), "a DaemonSet is required"))
	}
	var errs []error
	meta := field.NewPath("metadata")
	if ds.Name == "" {
		errs = append(errs, field.Required(meta.Child("name"), ""))
	}
	if ds.Namespace == "" {
		errs = append(errs, field.Required(meta.Child("namespace"), "pods and revisions are namespaced"))
	}
	if ds.UID == "" {
		errs = append(errs, field.Required(meta.Child("uid"), "ownership is decided by UID"))
	}

	// Paths are built only for errors: this loop runs over every node and
	// pod of the cluster.
	if !objects {
		nodes, pods = nil, nil // checked by the caller
	}
	for i, n := range nodes {
		switch {
		case n == nil:
			errs = append(errs, field.Required(field.NewPath("nodes").Index(i), "nil node"))
		case n.Name == "":
			errs = append(errs, field.Required(field.NewPath("nodes").Index(i).Child("metadata", "name"), ""))
		}
	}
	for i, pod := range pods {
		switch {
		case pod == nil:
			errs = append(errs, field.Required(field.NewPath("pods").Index(i), "nil pod"))
		case pod.Name == "":
			errs = append(errs, field.Required(field.NewPath("pods").Index(i).Child("metadata", "name"), ""))
		}
	}
	type nsName struct{ namespace, name string }
	seenRevs := make(map[nsName]int, len(revisions))
	for i, rev := range revisions {
		p := field.NewPath("revisions").Index(i)
		switch {
		case rev == nil:
			errs = append(errs, field.Required(p, "nil revision"))
		case rev.Name == "":
			errs = append(errs, field.Required(p.Child("metadata", "name"), ""))
		default:
			k := nsName{rev.Namespace, rev.Name}
			if _, dup := seenRevs[k]; dup {
				errs = append(errs, field.Duplicate(p.Child("metadata", "name"), rev.Namespace+"/"+rev.Name))
			}
			seenRevs[k] = i
		}
	}
	return NewError(ds, StageInput, errors.Join(errs...))
}
