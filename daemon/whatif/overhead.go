package whatif

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Footprint is what a set of pods takes from a node: the result of
// Overhead. Its zero value is the footprint of no pods.
//
// It is sizing, not a reservation: the scheduler charges the same
// requests to the node once the pods exist, but nothing holds the room for
// them before.
type Footprint struct {
	// Pods is the number of pods, what they take of the node's "pods"
	// capacity.
	Pods int
	// Requests are the summed requests per resource, each pod's computed by
	// component-helpers' resource.PodRequests, the scheduler's rule:
	// restartable init containers (sidecars) run alongside the others, an
	// ordinary init container counts with the sidecars started before it,
	// the pod takes the larger of that and its containers plus every
	// sidecar, pod-level requests replace the summed values of the
	// resources they name, and spec.overhead is added. nil when no pod
	// requests anything.
	Requests corev1.ResourceList
	// Limits are the summed limits per resource, each pod's by
	// resource.PodLimits. A pod without a limit for a resource adds nothing
	// to it, so a limit here bounds only the pods that set one. nil when no
	// pod has a limit.
	Limits corev1.ResourceList
	// HostPorts are the host ports the pods bind, as the scheduler's
	// NodePorts check sees them: those of the containers and of restartable
	// init containers, with hostPort defaulted to containerPort under
	// hostNetwork, the protocol defaulted to TCP and the host IP to
	// 0.0.0.0. Sorted by port, protocol, host IP, then pod; duplicates are
	// kept (two pods asking for one port cannot share a node).
	HostPorts []HostPort
}

// HostPort is one host port a pod binds.
type HostPort struct {
	// Port is the host port.
	Port int32
	// Protocol is TCP, UDP or SCTP.
	Protocol corev1.Protocol
	// HostIP is the address bound, 0.0.0.0 for all.
	HostIP string
	// Pod is the pod's namespace/name, or namespace/generateName for a pod
	// not yet created (as PodsForNode returns them).
	Pod string
	// Container is the name of the container that declares the port.
	Container string
}

// OverheadOptions are the admission-time changes Overhead applies to each
// pod before summing, besides the API server's defaulting, which it always
// applies. The zero value applies none.
type OverheadOptions struct {
	// LimitRanges are the LimitRanges of the pods' namespaces. Those of a
	// pod's namespace (or with an empty namespace, which apply to every
	// pod) give its containers and init containers the missing limits
	// (default) and requests (defaultRequest) of their Container items, as
	// the LimitRanger admission plugin does: in LimitRange name order, each
	// filling only what is still missing. The API server's LimitRange
	// defaulting is applied first (a missing default is max, a missing
	// defaultRequest is default, then min).
	LimitRanges []*corev1.LimitRange
	// RuntimeClasses give pods naming one of them in spec.runtimeClassName
	// its overhead.podFixed as spec.overhead, as the RuntimeClass admission
	// plugin does, unless the pod already carries an overhead.
	RuntimeClasses []*nodev1.RuntimeClass
	// Mutate, when non-nil, is called last on a private copy of each pod,
	// to apply what mutating webhooks or a vertical pod autoscaler would
	// change (the real requests of an agent may be set by VPA, not by its
	// DaemonSet).
	Mutate func(*corev1.Pod)
}

// Overhead returns the footprint of pods as the API server would admit
// them: requests defaulted from limits (containers, init containers and
// the pod-level resources) and hostPort from containerPort under
// hostNetwork, then the LimitRange defaults, RuntimeClass overhead and
// mutation of opts (the zero OverheadOptions apply none), then summed with
// the scheduler's rules (see Footprint). The pods of one DaemonSet, or of
// all that a node would run, come from PodsForNode or PodsForTemplate.
//
// nil pods are skipped; it modifies none of its arguments (it works on
// copies). It allocates a copy of each pod plus its resource lists.
func Overhead(pods []*corev1.Pod, opts OverheadOptions) Footprint {
	var f Footprint
	limitRanges := sortedLimitRanges(opts.LimitRanges)
	for _, p := range pods {
		if p == nil {
			continue
		}
		admitted := admit(p, limitRanges, opts)
		f.add(admitted)
	}
	slices.SortFunc(f.HostPorts, func(a, b HostPort) int {
		return cmp.Or(cmp.Compare(a.Port, b.Port), cmp.Compare(a.Protocol, b.Protocol),
			cmp.Compare(a.HostIP, b.HostIP), cmp.Compare(a.Pod, b.Pod), cmp.Compare(a.Container, b.Container))
	})
	return f
}

// Remaining returns allocatable minus f's requests and pod count (under
// "pods"), resource by resource: what is left on a node with that
// allocatable once the pods run. Resources f requests but allocatable lacks
// appear negative; a negative value means the pods do not fit. It returns a
// new list and modifies nothing.
func (f Footprint) Remaining(allocatable corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(allocatable)+len(f.Requests)+1)
	for name, q := range allocatable {
		out[name] = q.DeepCopy()
	}
	for name, q := range f.Requests {
		left := out[name]
		left.Sub(q)
		out[name] = left
	}
	if f.Pods > 0 {
		left := out[corev1.ResourcePods]
		left.Sub(*resource.NewQuantity(int64(f.Pods), resource.DecimalSI))
		out[corev1.ResourcePods] = left
	}
	return out
}

// add adds one admitted pod to f.
func (f *Footprint) add(pod *corev1.Pod) {
	f.Pods++
	f.Requests = addList(f.Requests, resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}))
	f.Limits = addList(f.Limits, resourcehelper.PodLimits(pod, resourcehelper.PodResourcesOptions{}))
	name := pod.Namespace + "/" + pod.Name
	if pod.Name == "" {
		name = pod.Namespace + "/" + pod.GenerateName
	}
	collect := func(c *corev1.Container) {
		for _, p := range c.Ports {
			if p.HostPort <= 0 {
				continue
			}
			hp := HostPort{Port: p.HostPort, Protocol: p.Protocol, HostIP: p.HostIP, Pod: name, Container: c.Name}
			if hp.Protocol == "" {
				hp.Protocol = corev1.ProtocolTCP
			}
			if hp.HostIP == "" {
				hp.HostIP = "0.0.0.0"
			}
			f.HostPorts = append(f.HostPorts, hp)
		}
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			collect(c)
		}
	}
	for i := range pod.Spec.Containers {
		collect(&pod.Spec.Containers[i])
	}
}

// addList adds b to a, allocating a when nil, and returns a.
func addList(a, b corev1.ResourceList) corev1.ResourceList {
	if len(b) == 0 {
		return a
	}
	if a == nil {
		a = make(corev1.ResourceList, len(b))
	}
	for name, q := range b {
		sum := a[name]
		sum.Add(q)
		a[name] = sum
	}
	return a
}
