package validation

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateWorkload checks the part of a pod template's spec that says
// what runs, in the API server's order: the volumes' names, the
// containers, the init containers, and the host ports of a host-network
// pod. sp is the path of the spec.
//
// The rules, after the API server's defaults (a port's protocol TCP, a
// container's terminationMessagePolicy File and imagePullPolicy, which an
// empty value gets):
//  1. volumes: a name, a DNS label, unique; a volume with an error is not
//     one a mount can name;
//  2. containers: at least one; each a name (a DNS label, unique among the
//     containers and the init containers) and an image; a supported
//     terminationMessagePolicy and imagePullPolicy; ports with a valid
//     name (unique in the container), a containerPort 1-65535, a hostPort
//     0 or 1-65535, protocol TCP, UDP or SCTP; env with names; volume
//     mounts naming a volume, with a mountPath unique in the container;
//     resource quantities not negative, a request not above its limit;
//  3. host ports unique across the containers (protocol, host IP and
//     port), and across each init container's own ports;
//  4. with hostNetwork, a hostPort that is set equal to its containerPort.
//
// The volume sources, probes, lifecycle hooks, security contexts and
// resource names are not checked.
func validateWorkload(spec *corev1.PodSpec, sp *field.Path) field.ErrorList {
	vols, errs := validateVolumes(spec.Volumes, sp.Child("volumes"))
	cp := sp.Child("containers")
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(cp, ""))
	} else {
		names := map[string]bool{}
		for i := range spec.Containers {
			c := &spec.Containers[i]
			errs = append(errs, validateContainer(c, vols, cp.Index(i))...)
			if names[c.Name] {
				errs = append(errs, field.Duplicate(cp.Index(i).Child("name"), c.Name))
			}
			names[c.Name] = true
		}
		errs = append(errs, uniqueHostPorts(spec.Containers, cp)...)
	}
	ip := sp.Child("initContainers")
	names := map[string]bool{}
	for _, c := range spec.Containers {
		names[c.Name] = true
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		errs = append(errs, validateContainer(c, vols, ip.Index(i))...)
		if names[c.Name] {
			errs = append(errs, field.Duplicate(ip.Index(i).Child("name"), c.Name))
		} else if c.Name != "" {
			names[c.Name] = true
		}
		errs = append(errs, uniqueHostPorts(spec.InitContainers[i:i+1], ip)...)
	}
	if spec.HostNetwork {
		for i, c := range spec.Containers {
			for j, port := range c.Ports {
				if port.HostPort != 0 && port.HostPort != port.ContainerPort {
					errs = append(errs, field.Invalid(cp.Index(i).Child("ports").Index(j).Child("hostPort"), port.HostPort,
						"must match `containerPort` when `hostNetwork` is true"))
				}
			}
		}
	}
	return errs
}

// validateVolumes checks the volumes' names and returns those a mount may
// name.
func validateVolumes(volumes []corev1.Volume, p *field.Path) (map[string]bool, field.ErrorList) {
	valid := map[string]bool{}
	var errs field.ErrorList
	for i, v := range volumes {
		np := p.Index(i).Child("name")
		var el field.ErrorList
		if v.Name == "" {
			el = append(el, field.Required(np, ""))
		} else {
			el = append(el, dnsLabel(v.Name, np)...)
		}
		if valid[v.Name] {
			el = append(el, field.Duplicate(np, v.Name))
		}
		if len(el) == 0 {
			valid[v.Name] = true
		}
		errs = append(errs, el...)
	}
	return valid, errs
}

// dnsLabel is the API server's check of a name that must be a DNS label.
func dnsLabel(v string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range utilvalidation.IsDNS1123Label(v) {
		errs = append(errs, field.Invalid(p, v, msg))
	}
	return errs
}

// The values the API server supports, in the order its messages list
// them.
var (
	messagePolicies = []corev1.TerminationMessagePolicy{corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError}
	pullPolicies    = []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}
	protocols       = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
)

// validateContainer checks what every kind of container shares.
func validateContainer(c *corev1.Container, vols map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		errs = append(errs, dnsLabel(c.Name, p.Child("name"))...)
	}
	if c.Image == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	}
	if tp := c.TerminationMessagePolicy; tp != "" && !slices.Contains(messagePolicies, tp) {
		errs = append(errs, field.NotSupported(p.Child("terminationMessagePolicy"), tp, messagePolicies))
	}
	errs = append(errs, validatePorts(c.Ports, p.Child("ports"))...)
	for i, e := range c.Env {
		if e.Name == "" {
			errs = append(errs, field.Required(p.Child("env").Index(i).Child("name"), ""))
		}
	}
	errs = append(errs, validateMounts(c.VolumeMounts, vols, p.Child("volumeMounts"))...)
	if pp := c.ImagePullPolicy; pp != "" && !slices.Contains(pullPolicies, pp) {
		errs = append(errs, field.NotSupported(p.Child("imagePullPolicy"), pp, pullPolicies))
	}
	return append(errs, validateResources(&c.Resources, p.Child("resources"))...)
}

// validatePorts checks a container's ports.
func validatePorts(ports []corev1.ContainerPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		ip := p.Index(i)
		if port.Name != "" {
			if msgs := utilvalidation.IsValidPortName(port.Name); len(msgs) > 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(ip.Child("name"), port.Name, msg))
				}
			} else if names[port.Name] {
				errs = append(errs, field.Duplicate(ip.Child("name"), port.Name))
			} else {
				names[port.Name] = true
			}
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(ip.Child("containerPort"), ""))
		} else {
			for _, msg := range utilvalidation.IsValidPortNum(int(port.ContainerPort)) {
				errs = append(errs, field.Invalid(ip.Child("containerPort"), port.ContainerPort, msg))
			}
		}
		if port.HostPort != 0 {
			for _, msg := range utilvalidation.IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(ip.Child("hostPort"), port.HostPort, msg))
			}
		}
		if pr := port.Protocol; pr != "" && !slices.Contains(protocols, pr) {
			errs = append(errs, field.NotSupported(ip.Child("protocol"), pr, protocols))
		}
	}
	return errs
}

// validateMounts checks a container's volume mounts.
func validateMounts(mounts []corev1.VolumeMount, vols map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := map[string]bool{}
	for i, m := range mounts {
		ip := p.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		}
		if !vols[m.Name] {
			errs = append(errs, field.NotFound(ip.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(ip.Child("mountPath"), ""))
		}
		if paths[m.MountPath] {
			errs = append(errs, field.Invalid(ip.Child("mountPath"), m.MountPath, "must be unique"))
		}
		paths[m.MountPath] = true
	}
	return errs
}

// validateResources checks the quantities of a container's limits, then
// its requests (each map by resource name: the API server ranges over
// them in no order), and that a request is not above its limit.
func validateResources(r *corev1.ResourceRequirements, p *field.Path) field.ErrorList {
	var lim, req field.ErrorList
	lp, rp := p.Child("limits"), p.Child("requests")
	for name, q := range r.Limits {
		lim = append(lim, nonNegative(q, lp.Key(string(name)))...)
	}
	for name, q := range r.Requests {
		req = append(req, nonNegative(q, rp.Key(string(name)))...)
		if l, ok := r.Limits[name]; ok && q.Cmp(l) > 0 {
			req = append(req, field.Invalid(rp, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, l.String())))
		}
	}
	return append(sortGroup(lim), sortGroup(req)...)
}

// nonNegative refuses a negative quantity.
func nonNegative(q resource.Quantity, p *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(p, q.String(), apimachineryvalidation.IsNegativeErrorMsg)}
	}
	return nil
}

// uniqueHostPorts refuses a host port (protocol, host IP and port) used
// twice among containers' ports, at paths indexed within containers: the
// API server checks each init container on its own, as a list of one, so
// that its errors read initContainers[0] whichever it is.
func uniqueHostPorts(containers []corev1.Container, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, c := range containers {
		for j, port := range c.Ports {
			if port.HostPort == 0 {
				continue
			}
			protocol := port.Protocol
			if protocol == "" {
				protocol = corev1.ProtocolTCP
			}
			key := fmt.Sprintf("%s/%s/%d", protocol, port.HostIP, port.HostPort)
			if seen[key] {
				errs = append(errs, field.Duplicate(p.Index(i).Child("ports").Index(j).Child("hostPort"), key))
			}
			seen[key] = true
		}
	}
	return errs
}
