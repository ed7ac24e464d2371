package e2e

import (
	"context"
	"fmt"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// nodeSpec describes one node a scenario creates.
type nodeSpec struct {
	name          string
	labels        map[string]string
	taints        []corev1.Taint
	unschedulable bool
}

func (s nodeSpec) node() *corev1.Node {
	labels := map[string]string{"kubernetes.io/hostname": s.name, "type": "kwok"}
	for k, v := range s.labels {
		labels[k] = v
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        s.name,
			Labels:      labels,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
		},
		Spec: corev1.NodeSpec{Taints: s.taints, Unschedulable: s.unschedulable},
	}
}

// workers returns n plain nodes named prefix-000, prefix-001, ….
func workers(prefix string, n int, labels map[string]string) []nodeSpec {
	out := make([]nodeSpec, n)
	for i := range out {
		out[i] = nodeSpec{name: fmt.Sprintf("%s-%03d", prefix, i), labels: labels}
	}
	return out
}

// addNodes creates the nodes and waits until kwok reports every one Ready,
// so the scheduler finds them feasible.
func (c *cluster) addNodes(specs ...nodeSpec) {
	c.t.Helper()
	ctx := context.Background()
	errs := parallel(len(specs), 32, func(i int) error {
		_, err := c.admin.CoreV1().Nodes().Create(ctx, specs[i].node(), metav1.CreateOptions{})
		return err
	})
	if errs != nil {
		c.t.Fatalf("creating nodes: %v", errs)
	}
	want := map[string]bool{}
	for _, s := range specs {
		want[s.name] = true
	}
	c.eventually("nodes Ready", 2*time.Minute, func() (bool, string) {
		nodes, err := c.admin.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		ready := 0
		for _, n := range nodes.Items {
			if want[n.Name] && nodeReady(&n) {
				ready++
			}
		}
		return ready == len(want), fmt.Sprintf("%d of %d Ready", ready, len(want))
	})
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// parallel runs fn for 0..n-1 with at most limit at once and returns the
// errors, nil when there are none.
func parallel(n, limit int, fn func(i int) error) []error {
	sem := make(chan struct{}, limit)
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem }()
			errc <- fn(i)
		}(i)
	}
	var errs []error
	for i := 0; i < n; i++ {
		if err := <-errc; err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// eventually polls cond until it holds or the timeout passes; the test
// fails with cond's last explanation.
func (c *cluster) eventually(what string, timeout time.Duration, cond func() (bool, string)) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	var why string
	for {
		var ok bool
		ok, why = cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s: not reached after %s: %s", what, timeout, why)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// dsOption customises a scenario's DaemonSet.
type dsOption func(*appsv1.DaemonSet)

func rolling(maxUnavailable, maxSurge int) dsOption {
	return func(ds *appsv1.DaemonSet) {
		mu, ms := intstr.FromInt32(int32(maxUnavailable)), intstr.FromInt32(int32(maxSurge))
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{
			Type:          appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &mu, MaxSurge: &ms},
		}
	}
}

func onDelete() dsOption {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	}
}

func nodeSelector(sel map[string]string) dsOption {
	return func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = sel }
}

// newDaemonSet is the scenarios' DaemonSet: one container whose image
// version is the template change the rollouts make.
func newDaemonSet(name string, opts ...dsOption) *appsv1.DaemonSet {
	labels := map[string]string{"app": name}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "agent", Image: "example.invalid/agent:v1"}},
				},
			},
		},
	}
	for _, o := range opts {
		o(ds)
	}
	return ds
}

func (c *cluster) createDaemonSet(ds *appsv1.DaemonSet) {
	c.t.Helper()
	if _, err := c.admin.AppsV1().DaemonSets(testNamespace).Create(context.Background(), ds, metav1.CreateOptions{}); err != nil {
		c.t.Fatalf("creating daemonset %s: %v", ds.Name, err)
	}
}

// setImage changes the DaemonSet's template, which starts a rollout.
func (c *cluster) setImage(name, image string) {
	c.t.Helper()
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		ds, err := c.admin.AppsV1().DaemonSets(testNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			c.t.Fatalf("daemonset %s: %v", name, err)
		}
		ds.Spec.Template.Spec.Containers[0].Image = image
		_, err = c.admin.AppsV1().DaemonSets(testNamespace).Update(ctx, ds, metav1.UpdateOptions{})
		if err == nil {
			return
		}
		if attempt > 5 {
			c.t.Fatalf("updating daemonset %s image: %v", name, err)
		}
	}
}

// pods lists the pods of the test namespace.
func (c *cluster) pods() []corev1.Pod {
	c.t.Helper()
	list, err := c.admin.CoreV1().Pods(testNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("listing pods: %v", err)
	}
	return list.Items
}

func podReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// currentHash is the controller-revision-hash of the DaemonSet's newest
// ControllerRevision, "" when it has none yet.
func (c *cluster) currentHash(ds *appsv1.DaemonSet) string {
	c.t.Helper()
	list, err := c.admin.AppsV1().ControllerRevisions(testNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("listing controller revisions: %v", err)
	}
	var best *appsv1.ControllerRevision
	for i := range list.Items {
		r := &list.Items[i]
		if ref := metav1.GetControllerOf(r); ref == nil || ref.UID != ds.UID {
			continue
		}
		if best == nil || r.Revision > best.Revision {
			best = r
		}
	}
	if best == nil {
		return ""
	}
	return best.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
}

// placement maps each node to the revision hash of the live pods on it,
// joined by "+" when a node has more than one.
type placement map[string]string

func placementOf(pods []corev1.Pod, app string) placement {
	byNode := map[string][]string{}
	for _, p := range pods {
		if p.Labels["app"] != app || p.DeletionTimestamp != nil {
			continue
		}
		byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
	}
	out := placement{}
	for n, hs := range byNode {
		sort.Strings(hs)
		s := hs[0]
		for _, h := range hs[1:] {
			s += "+" + h
		}
		out[n] = s
	}
	return out
}

// settled reports whether the DaemonSet has caught up with its spec: status
// observed at its generation, a Ready pod of the current revision (or of
// any revision under OnDelete, which never replaces) on exactly the wanted
// nodes, and no other live pod.
func (c *cluster) settled(name string, want []string) (bool, string, *appsv1.DaemonSet, placement) {
	c.t.Helper()
	ds, err := c.admin.AppsV1().DaemonSets(testNamespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return false, err.Error(), nil, nil
	}
	hash := c.currentHash(ds)
	pods := c.pods()
	place := placementOf(pods, name)
	st := ds.Status
	n := int32(len(want))
	if st.ObservedGeneration != ds.Generation {
		return false, fmt.Sprintf("status observed generation %d of %d", st.ObservedGeneration, ds.Generation), ds, place
	}
	updated := st.UpdatedNumberScheduled == n
	if ds.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType {
		updated = true
	}
	if st.DesiredNumberScheduled != n || st.CurrentNumberScheduled != n || st.NumberReady != n ||
		st.NumberAvailable != n || st.NumberMisscheduled != 0 || !updated {
		return false, fmt.Sprintf("status %+v, want %d everywhere", st, n), ds, place
	}
	ready := map[string]int{}
	for i := range pods {
		p := &pods[i]
		if p.Labels["app"] != name || p.DeletionTimestamp != nil {
			continue
		}
		if ds.Spec.UpdateStrategy.Type != appsv1.OnDeleteDaemonSetStrategyType && p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != hash {
			return false, fmt.Sprintf("pod %s on %s has hash %q, want %q", p.Name, p.Spec.NodeName, p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], hash), ds, place
		}
		if !podReady(p) {
			return false, fmt.Sprintf("pod %s on %s not Ready", p.Name, p.Spec.NodeName), ds, place
		}
		ready[p.Spec.NodeName]++
	}
	for _, w := range want {
		if ready[w] != 1 {
			return false, fmt.Sprintf("node %s has %d Ready pods", w, ready[w]), ds, place
		}
	}
	if len(ready) != len(want) {
		return false, fmt.Sprintf("pods on %d nodes, want %d: %v", len(ready), len(want), place), ds, place
	}
	return true, "", ds, place
}

// converge waits until the DaemonSet has settled on want and returns how
// long that took, its status and placement.
func (c *cluster) converge(name string, want []string, timeout time.Duration) (time.Duration, appsv1.DaemonSetStatus, placement) {
	c.t.Helper()
	start := time.Now()
	var st appsv1.DaemonSetStatus
	var place placement
	c.eventually("daemonset "+name+" settled", timeout, func() (bool, string) {
		ok, why, ds, p := c.settled(name, want)
		if ok {
			st, place = ds.Status, p
		}
		return ok, why
	})
	st.Conditions = nil
	return time.Since(start), st, place
}

func names(specs []nodeSpec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.name
	}
	return out
}
