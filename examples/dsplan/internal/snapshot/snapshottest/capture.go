package snapshottest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/rollout"
)

// Taken is when a generated capture was taken: the newest timestamp in it
// is a little before.
var Taken = time.Date(2026, 3, 9, 16, 45, 0, 0, time.UTC)

// RollingDaemonSet is the generated DaemonSet caught mid-rollout: its
// template changed, and only some of its pods run the new one.
const RollingDaemonSet = "logging/fluent-bit"

// Capture is a generated cluster: each kind sorted by namespace then name,
// as the API server lists them.
type Capture struct {
	DaemonSets []*appsv1.DaemonSet
	Nodes      []*corev1.Node
	Pods       []*corev1.Pod
	Revisions  []*appsv1.ControllerRevision
}

// Generate returns a cluster of nodes nodes, with one pod of each of its
// six DaemonSets on each node (see the package doc). The same r state
// gives the same capture. It panics if nodes is negative.
func Generate(r *rand.Rand, nodes int) *Capture {
	if nodes < 0 {
		panic("snapshottest: negative node count")
	}
	g := &gen{r: r, c: &Capture{}}
	for _, y := range daemonSetYAML {
		g.daemonSet(y)
	}
	for i := range nodes {
		g.c.Nodes = append(g.c.Nodes, g.node(i))
	}
	sortByName(g.c.Nodes, func(n *corev1.Node) string { return n.Name })
	for _, ds := range g.c.DaemonSets {
		g.pods(ds)
	}
	sortByName(g.c.Pods, func(p *corev1.Pod) string { return p.Namespace + "/" + p.Name })
	sortByName(g.c.DaemonSets, func(d *appsv1.DaemonSet) string { return d.Namespace + "/" + d.Name })
	sortByName(g.c.Revisions, func(r *appsv1.ControllerRevision) string { return r.Namespace + "/" + r.Name })
	return g.c
}

// DropManagedFields removes the managedFields of c's objects and returns
// c. Generate's objects carry them as the API server returns them, which
// is what kubectl prints with --show-managed-fields; without the flag,
// kubectl (1.21 and later) leaves them out, and a capture is half the size.
func (c *Capture) DropManagedFields() *Capture {
	for _, d := range c.DaemonSets {
		d.ManagedFields = nil
	}
	for _, n := range c.Nodes {
		n.ManagedFields = nil
	}
	for _, p := range c.Pods {
		p.ManagedFields = nil
	}
	for _, r := range c.Revisions {
		r.ManagedFields = nil
	}
	return c
}

// sortByName sorts objs by the key of each, as the API server lists them.
func sortByName[T any](objs []T, key func(T) string) {
	slices.SortStableFunc(objs, func(a, b T) int { return strings.Compare(key(a), key(b)) })
}

// gen holds the state of one Generate.
type gen struct {
	r *rand.Rand
	c *Capture
	// old is the previous revision's template of each DaemonSet that has
	// one, by namespace/name; hashes are the current and previous hashes.
	old    map[string]*appsv1.DaemonSet
	hashes map[string][2]string
	// images are the images nodes pull; digests the digest of each
	// repository a container runs.
	images  []corev1.ContainerImage
	digests map[string]string
}

// daemonSet adds the DaemonSet of one YAML template and its revisions.
func (g *gen) daemonSet(src string) {
	ds := &appsv1.DaemonSet{}
	if err := yaml.UnmarshalStrict([]byte(src), ds); err != nil {
		panic(fmt.Sprintf("snapshottest: DaemonSet template: %v", err))
	}
	key := ds.Namespace + "/" + ds.Name
	if ds.Name == "node-local-dns" {
		// Applied with kubectl apply, which keeps what it applied.
		applied, err := json.Marshal(ds)
		if err != nil {
			panic(fmt.Sprintf("snapshottest: %v", err))
		}
		ds.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": string(applied) + "\n"}
	}
	ds.UID = g.uid()
	ds.CreationTimestamp = metav1.Time{Time: Taken.Add(-time.Duration(200+g.r.IntN(200)) * 24 * time.Hour).Truncate(time.Second)}
	ds.ResourceVersion = strconv.Itoa(10_000_000 + g.r.IntN(1_000_000))
	gen := int64(1 + g.r.IntN(6))
	if key == RollingDaemonSet {
		gen = max(gen, 2)
	}
	ds.Generation = gen
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(gen, 10)

	// The revisions: one per earlier template generation (at most three),
	// the newest for the current template.
	var prev *appsv1.DaemonSet
	first := max(1, gen-2)
	for n := first; n <= gen; n++ {
		t := ds.DeepCopy()
		if n < gen {
			// An earlier template: another image tag.
			c := &t.Spec.Template.Spec.Containers[0]
			c.Image += "-r" + strconv.FormatInt(n, 10)
			prev = t
		}
		g.c.Revisions = append(g.c.Revisions, g.revision(t, n))
	}
	if g.old == nil {
		g.old, g.hashes = map[string]*appsv1.DaemonSet{}, map[string][2]string{}
	}
	h := [2]string{hashOf(ds), ""}
	if prev != nil {
		h[1] = hashOf(prev)
	}
	g.old[key], g.hashes[key] = prev, h
	g.c.DaemonSets = append(g.c.DaemonSets, ds)
}

// revision returns the ControllerRevision of ds's template as revision n.
func (g *gen) revision(ds *appsv1.DaemonSet, n int64) *appsv1.ControllerRevision {
	data, err := rollout.Patch(ds)
	if err != nil {
		panic(fmt.Sprintf("snapshottest: revision data: %v", err))
	}
	hash := hashOf(ds)
	labels := map[string]string{appsv1.ControllerRevisionHashLabelKey: hash}
	for k, v := range ds.Spec.Template.Labels {
		labels[k] = v
	}
	created := ds.CreationTimestamp.Add(time.Duration(n-1) * 7 * 24 * time.Hour)
	rev := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + hash, Namespace: ds.Namespace, UID: g.uid(),
			ResourceVersion:   strconv.Itoa(10_000_000 + g.r.IntN(1_000_000)),
			CreationTimestamp: metav1.Time{Time: created},
			Labels:            labels,
			Annotations:       copyMap(ds.Annotations),
			OwnerReferences:   []metav1.OwnerReference{ownerRef(ds)},
		},
		Revision: n,
	}
	rev.Data.Raw = data
	rev.ManagedFields = []metav1.ManagedFieldsEntry{g.managed("kube-controller-manager", "", created, "apps/v1", fieldsOf(rev, "metadata", "data", "revision"))}
	return rev
}

func hashOf(ds *appsv1.DaemonSet) string {
	return rollout.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
}

func ownerRef(ds *appsv1.DaemonSet) metav1.OwnerReference {
	t := true
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &t, BlockOwnerDeletion: &t}
}

// uid returns a random UUID-shaped uid.
func (g *gen) uid() types.UID {
	const hex = "0123456789abcdef"
	b := make([]byte, 36)
	for i := range b {
		switch i {
		case 8, 13, 18, 23:
			b[i] = '-'
		default:
			b[i] = hex[g.r.IntN(16)]
		}
	}
	b[14] = '4'
	return types.UID(b)
}

// suffix returns n random characters of the alphabet the API server draws
// generated names from.
func (g *gen) suffix(n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
