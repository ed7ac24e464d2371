package whatif

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// admit returns a copy of pod as the API server would store it, for the
// parts that change what it takes from a node (see Overhead).
func admit(pod *corev1.Pod, limitRanges []*corev1.LimitRange, opts OverheadOptions) *corev1.Pod {
	p := pod.DeepCopy()
	spec := &p.Spec
	// Defaulting, done when the pod is decoded, before admission.
	for i := range spec.Containers {
		defaultRequestsFromLimits(&spec.Containers[i].Resources)
	}
	for i := range spec.InitContainers {
		defaultRequestsFromLimits(&spec.InitContainers[i].Resources)
	}
	defaultPodLevelRequests(p)
	if spec.HostNetwork {
		defaultHostNetworkPorts(spec.Containers)
		defaultHostNetworkPorts(spec.InitContainers)
	}
	// Admission: LimitRanger, then RuntimeClass.
	for _, lr := range limitRanges {
		if lr.Namespace != "" && lr.Namespace != p.Namespace {
			continue
		}
		limits, requests := limitRangeDefaults(lr)
		for i := range spec.Containers {
			fillMissing(&spec.Containers[i].Resources, limits, requests)
		}
		for i := range spec.InitContainers {
			fillMissing(&spec.InitContainers[i].Resources, limits, requests)
		}
	}
	if spec.RuntimeClassName != nil && spec.Overhead == nil {
		for _, rc := range opts.RuntimeClasses {
			if rc != nil && rc.Name == *spec.RuntimeClassName && rc.Overhead != nil && len(rc.Overhead.PodFixed) > 0 {
				spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
				break
			}
		}
	}
	if opts.Mutate != nil {
		opts.Mutate(p)
	}
	return p
}

// defaultRequestsFromLimits gives every resource with a limit and no
// request a request equal to the limit, as the API server's pod defaulting.
func defaultRequestsFromLimits(r *corev1.ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = make(corev1.ResourceList, len(r.Limits))
	}
	for name, q := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			r.Requests[name] = q.DeepCopy()
		}
	}
}

// defaultPodLevelRequests defaults pod-level requests when pod-level limits
// are set (the PodLevelResources gate, on by default since 1.34): cpu and
// memory requests missing at pod level take the containers' effective
// requests when any container requests them, and then every supported
// resource still missing takes its pod-level limit. The hugepage pod-limit
// defaulting that precedes it upstream is not applied.
func defaultPodLevelRequests(p *corev1.Pod) {
	r := p.Spec.Resources
	if r == nil || len(r.Limits) == 0 {
		return
	}
	reqs := r.Requests
	if reqs == nil {
		reqs = make(corev1.ResourceList)
	}
	for name, q := range resourcehelper.AggregateContainerRequests(p, resourcehelper.PodResourcesOptions{}) {
		if _, ok := reqs[name]; !ok && (name == corev1.ResourceCPU || name == corev1.ResourceMemory) {
			reqs[name] = q.DeepCopy()
		}
	}
	for name, q := range r.Limits {
		if _, ok := reqs[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
			reqs[name] = q.DeepCopy()
		}
	}
	if len(reqs) > 0 {
		r.Requests = reqs
	}
}

// defaultHostNetworkPorts sets a hostPort equal to the containerPort where
// it is unset, as the API server does for host-network pods.
func defaultHostNetworkPorts(containers []corev1.Container) {
	for i := range containers {
		for j := range containers[i].Ports {
			if containers[i].Ports[j].HostPort == 0 {
				containers[i].Ports[j].HostPort = containers[i].Ports[j].ContainerPort
			}
		}
	}
}

// limitRangeDefaults returns the default limits and requests lr's Container
// items give, after the API server's LimitRange defaulting (a missing
// default is max; a missing defaultRequest is default, else min). A later
// item overrides an earlier one for the same resource, as LimitRanger.
func limitRangeDefaults(lr *corev1.LimitRange) (limits, requests corev1.ResourceList) {
	limits, requests = corev1.ResourceList{}, corev1.ResourceList{}
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		def := item.Default.DeepCopy()
		if def == nil {
			def = corev1.ResourceList{}
		}
		for name, q := range item.Max {
			if _, ok := def[name]; !ok {
				def[name] = q.DeepCopy()
			}
		}
		defReq := item.DefaultRequest.DeepCopy()
		if defReq == nil {
			defReq = corev1.ResourceList{}
		}
		for name, q := range def {
			if _, ok := defReq[name]; !ok {
				defReq[name] = q.DeepCopy()
			}
		}
		for name, q := range item.Min {
			if _, ok := defReq[name]; !ok {
				defReq[name] = q.DeepCopy()
			}
		}
		for name, q := range def {
			limits[name] = q
		}
		for name, q := range defReq {
			requests[name] = q
		}
	}
	return limits, requests
}

// fillMissing gives r the limits and requests it lacks, as LimitRanger.
func fillMissing(r *corev1.ResourceRequirements, limits, requests corev1.ResourceList) {
	for name, q := range limits {
		if _, ok := r.Limits[name]; !ok {
			if r.Limits == nil {
				r.Limits = corev1.ResourceList{}
			}
			r.Limits[name] = q.DeepCopy()
		}
	}
	for name, q := range requests {
		if _, ok := r.Requests[name]; !ok {
			if r.Requests == nil {
				r.Requests = corev1.ResourceList{}
			}
			r.Requests[name] = q.DeepCopy()
		}
	}
}

// sortedLimitRanges returns the non-nil LimitRanges by namespace, then
// name, the order an informer lister gives within a namespace.
func sortedLimitRanges(lrs []*corev1.LimitRange) []*corev1.LimitRange {
	out := slices.DeleteFunc(slices.Clone(lrs), func(lr *corev1.LimitRange) bool { return lr == nil })
	slices.SortStableFunc(out, func(a, b *corev1.LimitRange) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return out
}
