package snapshottest

import (
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/tolerations"
)

// priorities are the values of the priority classes the DaemonSets use.
var priorities = map[string]int32{"system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000}

// pods adds one pod of ds on each node. The pods of RollingDaemonSet are
// mostly of its previous template; a few pods of every DaemonSet are
// crash-looping, and those on NotReady nodes are not ready.
func (g *gen) pods(ds *appsv1.DaemonSet) {
	key := ds.Namespace + "/" + ds.Name
	hashes, old := g.hashes[key], g.old[key]
	taken := map[string]bool{}
	for _, n := range g.c.Nodes {
		tmpl, hash, gen := ds, hashes[0], ds.Generation
		if key == RollingDaemonSet && old != nil && g.r.IntN(100) >= 15 {
			tmpl, hash, gen = old, hashes[1], ds.Generation-1
		}
		name := ds.Name + "-" + g.suffix(5)
		for taken[name] {
			name = ds.Name + "-" + g.suffix(5)
		}
		taken[name] = true
		g.c.Pods = append(g.c.Pods, g.pod(ds, tmpl, n, name, hash, gen))
	}
}

// pod returns the pod named name of ds, built from tmpl's template, on
// node n.
func (g *gen) pod(ds, tmpl *appsv1.DaemonSet, n *corev1.Node, name, hash string, gen int64) *corev1.Pod {
	r := g.r
	t := tmpl.Spec.Template.DeepCopy()
	labels := copyMap(t.Labels)
	labels[appsv1.ControllerRevisionHashLabelKey] = hash
	labels[extensionsv1beta1.DaemonSetTemplateGenerationKey] = strconv.FormatInt(gen, 10)
	created := maxTime(n.CreationTimestamp.Add(time.Duration(5+r.IntN(60))*time.Second), ds.CreationTimestamp.Time)
	if tmpl == ds && g.r.IntN(3) == 0 {
		created = Taken.Add(-time.Duration(1+r.IntN(48*60)) * time.Minute)
	}
	created = created.Truncate(time.Second)
	spec := t.Spec
	spec.NodeName = n.Name
	spec.Affinity = affinity.ReplaceDaemonSetPodNodeNameNodeAffinity(spec.Affinity, n.Name)
	spec.Tolerations = tolerations.WithDaemonTolerations(spec.Tolerations, spec.HostNetwork)
	spec.EnableServiceLinks = ptr(true)
	spec.PreemptionPolicy = ptr(corev1.PreemptLowerPriority)
	if p, ok := priorities[spec.PriorityClassName]; ok {
		spec.Priority = ptr(p)
	} else {
		spec.Priority = ptr(int32(0))
	}
	token := "kube-api-access-" + g.suffix(5)
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: token, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptr(int32(420)),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr(int64(3607)), Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}}})
	mount := corev1.VolumeMount{Name: token, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range list {
			list[i].VolumeMounts = append(list[i].VolumeMounts, mount)
		}
	}

	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: ds.Name + "-", Namespace: ds.Namespace, UID: g.uid(),
			ResourceVersion:   strconv.Itoa(20_000_000 + r.IntN(5_000_000)),
			CreationTimestamp: metav1.Time{Time: created},
			Labels:            labels,
			Annotations:       t.Annotations,
			OwnerReferences:   []metav1.OwnerReference{ownerRef(ds)},
		},
		Spec: spec,
	}
	g.podStatus(p, n, created)
	p.ManagedFields = []metav1.ManagedFieldsEntry{
		g.managed("kube-controller-manager", "", created, "v1", fieldsOfSub(p, map[string][]string{"metadata": {"generateName", "labels", "annotations", "ownerReferences"}, "spec": nil})),
		g.managed("kubelet", "status", p.Status.Conditions[len(p.Status.Conditions)-1].LastTransitionTime.Time, "v1", fieldsOf(p, "status")),
	}
	return p
}

// podStatus sets the status of p, created at created on node n: running
// and ready, or crash-looping (one pod in two hundred), or not ready on a
// NotReady node.
func (g *gen) podStatus(p *corev1.Pod, n *corev1.Node, created time.Time) {
	r := g.r
	ip := n.Status.Addresses[0].Address
	podIP := ip
	if !p.Spec.HostNetwork {
		podIP = "10.200." + strconv.Itoa(r.IntN(250)) + "." + strconv.Itoa(2+r.IntN(250))
	}
	started := created.Add(time.Duration(1+r.IntN(5)) * time.Second)
	readyAt := started.Add(time.Duration(2+r.IntN(20)) * time.Second)
	crashing := r.IntN(200) == 0
	nodeDown := false
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
			nodeDown = true
		}
	}
	readyStatus, reason, msg := corev1.ConditionTrue, "", ""
	var unready []string
	if crashing {
		unready = append(unready, p.Spec.Containers[0].Name)
	}
	if nodeDown {
		for _, c := range p.Spec.Containers {
			unready = append(unready, c.Name)
		}
	}
	if len(unready) > 0 {
		readyStatus, reason, msg = corev1.ConditionFalse, "ContainersNotReady", "containers with unready status: ["+strings.Join(unready, " ")+"]"
		readyAt = Taken.Add(-time.Duration(1+r.IntN(20)) * time.Minute)
	}
	cond := func(t corev1.PodConditionType, st corev1.ConditionStatus, at time.Time, reason, msg string) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: st, LastTransitionTime: metav1.Time{Time: at}, Reason: reason, Message: msg}
	}
	p.Status = corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{
			cond(corev1.PodReadyToStartContainers, corev1.ConditionTrue, started, "", ""),
			cond(corev1.PodInitialized, corev1.ConditionTrue, started, "", ""),
			cond(corev1.PodReady, readyStatus, readyAt, reason, msg),
			cond(corev1.ContainersReady, readyStatus, readyAt, reason, msg),
			cond(corev1.PodScheduled, corev1.ConditionTrue, created, "", ""),
		},
		HostIP:    ip,
		HostIPs:   []corev1.HostIP{{IP: ip}},
		PodIP:     podIP,
		PodIPs:    []corev1.PodIP{{IP: podIP}},
		StartTime: &metav1.Time{Time: created},
		QOSClass:  corev1.PodQOSBurstable,
	}
	status := func(c corev1.Container, init bool) corev1.ContainerStatus {
		cs := corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: imageID(c.Image, g), ContainerID: "containerd://" + g.hex(64),
			Ready: true, Started: ptr(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Time{Time: started}}},
		}
		switch {
		case init:
			cs.Ready, cs.Started = true, ptr(false)
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 0, Reason: "Completed", ContainerID: cs.ContainerID,
				StartedAt: metav1.Time{Time: created}, FinishedAt: metav1.Time{Time: started},
			}}
		case slicesContains(unready, c.Name) && crashing:
			cs.Ready, cs.Started, cs.RestartCount = false, ptr(false), int32(5+r.IntN(40))
			cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
				Message: "back-off 5m0s restarting failed container=" + c.Name + " pod=" + p.Name + "_" + p.Namespace + "(" + string(p.UID) + ")"}}
			cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 1, Reason: "Error", ContainerID: cs.ContainerID,
				StartedAt: metav1.Time{Time: readyAt.Add(-time.Minute)}, FinishedAt: metav1.Time{Time: readyAt},
			}}
		case slicesContains(unready, c.Name):
			cs.Ready = false
		}
		return cs
	}
	for _, c := range p.Spec.InitContainers {
		p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, status(c, true))
	}
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, status(c, false))
	}
}

// imageID returns the digest reference the runtime reports for image.
func imageID(image string, g *gen) string {
	if i := strings.Index(image, "@"); i >= 0 {
		return image
	}
	repo := image[:lastIndex(image, ':')]
	if g.digests == nil {
		g.digests = map[string]string{}
	}
	d, ok := g.digests[repo]
	if !ok {
		d = repo + "@sha256:" + g.hex(64)
		g.digests[repo] = d
	}
	return d
}

func slicesContains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
