package daemon

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ErrInvalidInput is wrapped by every error Compute returns because its
// input cannot describe a real cluster (a nil DaemonSet, nil entries,
// missing identity fields, duplicate names). Test for it with errors.Is;
// the wrapped field errors and *DuplicateNodeError say what is wrong.
var ErrInvalidInput = errors.New("invalid input")

// DuplicateNodeError reports two nodes with the same name in Compute's
// input. Upstream's informer cache cannot hold them, so no plan is
// defined.
type DuplicateNodeError struct {
	Name string
	// First and Second are the indices of the two nodes in the input.
	First, Second int
}

// Error names the node and the two input positions.
func (e *DuplicateNodeError) Error() string {
	return fmt.Sprintf("nodes[%d] and nodes[%d] are both named %q", e.First, e.Second, e.Name)
}

// validateInput checks what Compute needs to plan at all. It reports every
// problem, not only the first. Duplicate node names, and duplicate names
// among the pods the DaemonSet owns or adopts, are found later, when those
// are sorted anyway (see newCluster).
func validateInput(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, revisions []*appsv1.ControllerRevision) error {
	if ds == nil {
		return fmt.Errorf("%w: %w", ErrInvalidInput, field.Required(field.NewPath("daemonSet"), "a DaemonSet is required"))
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
	if len(errs) == 0 {
		return nil
	}
	return nameOnce(ds.Namespace+"/"+ds.Name, stageInput, fmt.Errorf("%w: %w", ErrInvalidInput, errors.Join(errs...)))
}
