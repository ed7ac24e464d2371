package apply

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Defaults returns a copy of ds with the defaults kube-apiserver v1.37
// (feature gates at their defaults) fills in when it decodes an apps/v1
// DaemonSet, before it validates and stores it; a nil ds gives nil. It
// modifies nothing. The defaults, each applied only to an unset field:
//
//  1. spec: updateStrategy.type RollingUpdate; under RollingUpdate,
//     rollingUpdate {}, maxUnavailable 1 and maxSurge 0;
//     revisionHistoryLimit 10.
//  2. the template's pod spec: dnsPolicy ClusterFirst, restartPolicy
//     Always, securityContext {}, terminationGracePeriodSeconds 30,
//     schedulerName default-scheduler. (A pod template gets neither the
//     pod's enableServiceLinks nor its hostNetwork ports: upstream
//     defaults those on pods only.)
//  3. every container, init container and ephemeral container:
//     imagePullPolicy Always for an image tagged latest or with neither
//     tag nor digest, IfNotPresent otherwise (and for an image reference
//     that does not parse); terminationMessagePath /dev/termination-log;
//     terminationMessagePolicy File; ports' protocol TCP; env
//     fieldRef.apiVersion v1 and fileKeyRef.optional false; probes'
//     timeoutSeconds 1, periodSeconds 10, successThreshold 1,
//     failureThreshold 3, httpGet path "/" and scheme HTTP, grpc service
//     ""; lifecycle hooks' httpGet path and scheme; resource quantities
//     rounded up to a thousandth.
//  4. every volume: emptyDir {} when it names no source; hostPath type
//     ""; secret, configMap, downwardAPI and projected defaultMode 0644;
//     downward API fieldRef.apiVersion v1; service account token
//     expirationSeconds 3600; iSCSI interface "default"; RBD pool "rbd",
//     user "admin", keyring /etc/ceph/keyring; Azure disk caching
//     ReadWrite, fsType ext4, readOnly false, kind Shared; ScaleIO
//     storageMode ThinProvisioned, fsType xfs; an ephemeral volume claim's
//     volumeMode Filesystem and rounded quantities; an image volume's
//     pullPolicy, as a container's.
//  5. the pod's overhead and pod-level resources: quantities rounded up.
//
// Upstream also drops the template fields of disabled features; with the
// gates at their defaults there are none to drop, and Defaults drops
// nothing.
func Defaults(ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	if ds == nil {
		return nil
	}
	ds = ds.DeepCopy()
	defaultSpec(&ds.Spec)
	defaultPodSpec(&ds.Spec.Template.Spec)
	return ds
}

// defaultSpec fills in the DaemonSet spec's own defaults.
func defaultSpec(spec *appsv1.DaemonSetSpec) {
	st := &spec.UpdateStrategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if st.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			v := intstr.FromInt32(1)
			st.RollingUpdate.MaxUnavailable = &v
		}
		if st.RollingUpdate.MaxSurge == nil {
			v := intstr.FromInt32(0)
			st.RollingUpdate.MaxSurge = &v
		}
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = ptrTo[int32](10)
	}
}

// defaultPodSpec fills in a pod template's spec.
func defaultPodSpec(spec *corev1.PodSpec) {
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptrTo[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range spec.Volumes {
		defaultVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		defaultContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		defaultContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		defaultContainer((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	roundUp(spec.Overhead)
	if r := spec.Resources; r != nil {
		roundUp(r.Limits)
		roundUp(r.Requests)
	}
}

// defaultContainer fills in a container's defaults (see Defaults, 3).
func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if v := c.Env[i].ValueFrom; v != nil {
			defaultFieldRef(v.FieldRef)
			if v.FileKeyRef != nil && v.FileKeyRef.Optional == nil {
				v.FileKeyRef.Optional = ptrTo(false)
			}
		}
	}
	roundUp(c.Resources.Limits)
	roundUp(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultProbe(p)
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	defaultHTTPGet(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptrTo("")
	}
}

func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

func defaultFieldRef(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// defaultVolume fills in a volume's defaults (see Defaults, 4).
func defaultVolume(v *corev1.Volume) {
	if noSource(&v.VolumeSource) {
		v.VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	}
	src := &v.VolumeSource
	if src.Image != nil && src.Image.PullPolicy == "" {
		src.Image.PullPolicy = pullPolicy(src.Image.Reference)
	}
	if h := src.HostPath; h != nil && h.Type == nil {
		h.Type = ptrTo(corev1.HostPathUnset)
	}
	if s := src.Secret; s != nil && s.DefaultMode == nil {
		s.DefaultMode = ptrTo(corev1.SecretVolumeSourceDefaultMode)
	}
	if s := src.ISCSI; s != nil && s.ISCSIInterface == "" {
		s.ISCSIInterface = "default"
	}
	if r := src.RBD; r != nil {
		if r.RBDPool == "" {
			r.RBDPool = "rbd"
		}
		if r.RadosUser == "" {
			r.RadosUser = "admin"
		}
		if r.Keyring == "" {
			r.Keyring = "/etc/ceph/keyring"
		}
	}
	if d := src.DownwardAPI; d != nil {
		if d.DefaultMode == nil {
			d.DefaultMode = ptrTo(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		for i := range d.Items {
			defaultFieldRef(d.Items[i].FieldRef)
		}
	}
	if c := src.ConfigMap; c != nil && c.DefaultMode == nil {
		c.DefaultMode = ptrTo(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if a := src.AzureDisk; a != nil {
		if a.CachingMode == nil {
			a.CachingMode = ptrTo(corev1.AzureDataDiskCachingReadWrite)
		}
		if a.FSType == nil {
			a.FSType = ptrTo("ext4")
		}
		if a.ReadOnly == nil {
			a.ReadOnly = ptrTo(false)
		}
		if a.Kind == nil {
			a.Kind = ptrTo(corev1.AzureSharedBlobDisk)
		}
	}
	if p := src.Projected; p != nil {
		if p.DefaultMode == nil {
			p.DefaultMode = ptrTo(corev1.ProjectedVolumeSourceDefaultMode)
		}
		for i := range p.Sources {
			s := &p.Sources[i]
			if s.DownwardAPI != nil {
				for j := range s.DownwardAPI.Items {
					defaultFieldRef(s.DownwardAPI.Items[j].FieldRef)
				}
			}
			if t := s.ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
				t.ExpirationSeconds = ptrTo[int64](3600)
			}
		}
	}
	if s := src.ScaleIO; s != nil {
		if s.StorageMode == "" {
			s.StorageMode = "ThinProvisioned"
		}
		if s.FSType == "" {
			s.FSType = "xfs"
		}
	}
	if e := src.Ephemeral; e != nil && e.VolumeClaimTemplate != nil {
		spec := &e.VolumeClaimTemplate.Spec
		if spec.VolumeMode == nil {
			spec.VolumeMode = ptrTo(corev1.PersistentVolumeFilesystem)
		}
		roundUp(spec.Resources.Limits)
		roundUp(spec.Resources.Requests)
	}
}

// noSource reports whether every pointer field of src is nil: a volume
// that names no source, which the API server makes an emptyDir.
func noSource(src *corev1.VolumeSource) bool {
	v := reflect.ValueOf(src).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			return false
		}
	}
	return true
}

// roundUp rounds every quantity of l up to a thousandth, in place, as the
// API server does (a value finer than that, such as 1.0001 or 100u, would
// not survive its milli-unit accounting).
func roundUp(l corev1.ResourceList) {
	for k, q := range l {
		q.RoundUp(-3)
		l[k] = q
	}
}

func ptrTo[T any](v T) *T { return &v }
