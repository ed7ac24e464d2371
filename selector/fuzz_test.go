package selector_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/selector"
)

// FuzzForDaemonSet decodes a LabelSelector from JSON and checks that
// ForDaemonSet agrees with metav1.LabelSelectorAsSelector (verdict,
// requirements, String, Matches), reports *selector.Error values under
// spec.selector, is deterministic and leaves the DaemonSet unchanged.
func FuzzForDaemonSet(f *testing.F) {
	for _, tc := range selectorCases() {
		if tc.ds == nil {
			continue
		}
		b, err := json.Marshal(tc.ds.Spec.Selector)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), uint64(len(b)))
	}
	rng := rand.New(rand.NewPCG(31, 32))
	for i := range 16 {
		b, _ := json.Marshal(randomLabelSelector(rng))
		f.Add(string(b), uint64(i))
	}
	f.Fuzz(func(t *testing.T, raw string, seed uint64) {
		var ps *metav1.LabelSelector
		if err := json.Unmarshal([]byte(raw), &ps); err != nil {
			t.Skip()
		}
		ds := newDaemonSet(ps, nil)
		before := ds.DeepCopy()
		got, err := selector.ForDaemonSet(ds)
		if diff := cmp.Diff(before, ds); diff != "" {
			t.Fatalf("ForDaemonSet() modified its input (-before +after):\n%s", diff)
		}
		if err != nil {
			var se *selector.Error
			if !errors.As(err, &se) || len(se.Fields) == 0 {
				t.Fatalf("ForDaemonSet() error = %#v, want a *selector.Error with field errors", err)
			}
			for _, fe := range se.Fields {
				if fe == nil || !strings.HasPrefix(fe.Field, "spec.selector") {
					t.Fatalf("field error %v is not under spec.selector", fe)
				}
			}
			if got != nil {
				t.Fatalf("ForDaemonSet() returned selector %q with an error", got)
			}
		} else {
			again, err2 := selector.ForDaemonSet(ds)
			if err2 != nil || again.String() != got.String() {
				t.Fatalf("second call gave %q, %v; first %q", again, err2, got)
			}
		}
		checkAgainstUpstream(t, rand.New(rand.NewPCG(seed, 0)), ps, got, err)
	})
}

// decodePods turns fuzz bytes into at most 64 pods, two bytes each: the
// first picks the shape (or a nil entry) and the labels, the second the
// namespace, a deletion timestamp, one of eight names and one of two UIDs,
// so that ties in name and UID occur.
func decodePods(data []byte) []*corev1.Pod {
	var pods []*corev1.Pod
	for i := 0; i+1 < len(data) && len(pods) < 64; i += 2 {
		a, b := data[i], data[i+1]
		shape := int(a & 0x0f)
		if shape >= kindCount {
			pods = append(pods, nil)
			continue
		}
		opts := shapedMeta(shape)
		switch (a >> 4) & 3 {
		case 1:
			opts = append(opts, labelled(map[string]string{"app": "other"}))
		case 2:
			opts = append(opts, labelled(nil))
		}
		if b&1 != 0 {
			opts = append(opts, inNamespace("default"))
		}
		if b&2 != 0 {
			opts = append(opts, beingDeleted())
		}
		name := string(rune('a' + (b>>2)&7))
		opts = append(opts, withUID(fuzzUID(name, b>>5&1)))
		pods = append(pods, newPod(name, opts...))
	}
	return pods
}

// fuzzUID returns one of two UIDs for name.
func fuzzUID(name string, alt byte) types.UID {
	if alt == 0 {
		return types.UID(name + "-uid")
	}
	return types.UID(name + "-uid2")
}

// selectorFor picks the selector a fuzz case runs with.
func selectorFor(kind uint8) labels.Selector {
	switch kind % 4 {
	case 0:
		return nil
	case 1:
		return labels.Nothing()
	case 2:
		return labels.Everything()
	default:
		return appSelector()
	}
}

// claimSeeds turns the claim table into fuzz seeds.
func claimSeeds(f *testing.F) {
	f.Add([]byte{}, false, uint8(3), uint64(0))
	for i := range kindCount + 1 {
		var data []byte
		for lab := range 3 {
			for b := range 4 {
				data = append(data, byte(i|lab<<4), byte(b|(i+lab)<<2))
			}
		}
		f.Add(data, i%2 == 0, uint8(i), uint64(i))
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for i := range 8 {
		data := make([]byte, 2*rng.IntN(40))
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		f.Add(data, i%3 == 0, uint8(i), rng.Uint64())
	}
}

// FuzzClaimPods checks ClaimPods against the literal reference of
// oracle_test.go, its invariants (Adopt within Claimed, Adopt and Release
// disjoint, claimed pods match, released pods are the owner's, sorted),
// permutation invariance and that the input is unchanged.
func FuzzClaimPods(f *testing.F) {
	claimSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, deleting bool, selKind uint8, seed uint64) {
		owner := testOwner
		owner.Deleting = deleting
		sel := selectorFor(selKind)
		pods := decodePods(data)
		before := deepCopyPods(pods)

		got := selector.ClaimPods(owner, sel, pods)
		// reflect.DeepEqual and pointer comparison first: cmp.Diff is
		// slow on whole objects and only formats the failure.
		if !reflect.DeepEqual(before, pods) {
			t.Fatalf("ClaimPods() modified its input (-before +after):\n%s", cmp.Diff(before, pods))
		}
		if want := oracleClaimPods(owner, sel, pods); !slices.Equal(want.Claimed, got.Claimed) || !slices.Equal(want.Adopt, got.Adopt) || !slices.Equal(want.Release, got.Release) {
			t.Fatalf("ClaimPods() differs from the reference (-reference +got):\n%s", cmp.Diff(want, got))
		}
		checkClaimInvariants(t, owner, sel, true, metas(got.Claimed), metas(got.Adopt), metas(got.Release))

		again := selector.ClaimPods(owner, sel, shuffled(rand.New(rand.NewPCG(seed, 1)), pods))
		if diff := cmp.Diff(claimKeys(got.Claimed, got.Adopt, got.Release), claimKeys(again.Claimed, again.Adopt, again.Release)); diff != "" {
			t.Fatalf("shuffled input changed the outcome (-want +got):\n%s", diff)
		}
	})
}

// FuzzClaimRevisions is FuzzClaimPods for ClaimRevisions, where only the
// controller reference's UID identifies the owner.
func FuzzClaimRevisions(f *testing.F) {
	claimSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, deleting bool, selKind uint8, seed uint64) {
		owner := testOwner
		owner.Deleting = deleting
		sel := selectorFor(selKind)
		revs := podsAsRevisions(decodePods(data))
		before := deepCopyRevs(revs)

		got := selector.ClaimRevisions(owner, sel, revs)
		// reflect.DeepEqual and pointer comparison first: cmp.Diff is
		// slow on whole objects and only formats the failure.
		if !reflect.DeepEqual(before, revs) {
			t.Fatalf("ClaimRevisions() modified its input (-before +after):\n%s", cmp.Diff(before, revs))
		}
		if want := oracleClaimRevisions(owner, sel, revs); !slices.Equal(want.Claimed, got.Claimed) || !slices.Equal(want.Adopt, got.Adopt) || !slices.Equal(want.Release, got.Release) {
			t.Fatalf("ClaimRevisions() differs from the reference (-reference +got):\n%s", cmp.Diff(want, got))
		}
		checkClaimInvariants(t, owner, sel, false, metas(got.Claimed), metas(got.Adopt), metas(got.Release))

		again := selector.ClaimRevisions(owner, sel, shuffled(rand.New(rand.NewPCG(seed, 1)), revs))
		if diff := cmp.Diff(claimKeys(got.Claimed, got.Adopt, got.Release), claimKeys(again.Claimed, again.Adopt, again.Release)); diff != "" {
			t.Fatalf("shuffled input changed the outcome (-want +got):\n%s", diff)
		}
	})
}

// checkClaimInvariants checks what must hold of any claim outcome. With
// kindAndName, a released object's controller must also carry the owner's
// Kind and Name (pods); otherwise the UID alone identifies it (revisions).
func checkClaimInvariants(t *testing.T, owner selector.Owner, sel labels.Selector, kindAndName bool, claimed, adopt, release []*metav1.ObjectMeta) {
	t.Helper()
	for _, group := range [][]*metav1.ObjectMeta{claimed, adopt, release} {
		if !slices.IsSortedFunc(group, byNameUID) {
			t.Fatalf("result not sorted by name, then UID: %v", metaKeys(group))
		}
	}
	for _, m := range adopt {
		if !slices.Contains(claimed, m) {
			t.Fatalf("adopted %s/%s is not claimed", m.Name, m.UID)
		}
		if slices.Contains(release, m) {
			t.Fatalf("%s/%s is both adopted and released", m.Name, m.UID)
		}
		if metav1.GetControllerOfNoCopy(m) != nil || m.DeletionTimestamp != nil || owner.Deleting {
			t.Fatalf("adopted %s/%s is not a live orphan of a live owner", m.Name, m.UID)
		}
	}
	for _, m := range claimed {
		if sel == nil || !sel.Matches(labels.Set(m.Labels)) {
			t.Fatalf("claimed %s/%s does not match the selector", m.Name, m.UID)
		}
		if m.Namespace != owner.Namespace {
			t.Fatalf("claimed %s/%s is in namespace %q", m.Name, m.UID, m.Namespace)
		}
	}
	for _, m := range release {
		ref := metav1.GetControllerOfNoCopy(m)
		if ref == nil || ref.UID != owner.UID || (kindAndName && (ref.Kind != owner.Kind || ref.Name != owner.Name)) {
			t.Fatalf("released %s/%s is not controlled by the owner", m.Name, m.UID)
		}
		if owner.Deleting || (sel != nil && sel.Matches(labels.Set(m.Labels))) {
			t.Fatalf("released %s/%s while the owner is deleting or it still matches", m.Name, m.UID)
		}
	}
}

// metas returns the metadata of each object.
func metas[T any, P interface {
	*T
	metav1.ObjectMetaAccessor
}](objs []P) []*metav1.ObjectMeta {
	out := make([]*metav1.ObjectMeta, len(objs))
	for i, o := range objs {
		out[i] = o.GetObjectMeta().(*metav1.ObjectMeta)
	}
	return out
}

// claimKeys renders an outcome as name/UID lists, which shuffling the
// input must not change even when two objects tie.
func claimKeys[T any, P interface {
	*T
	metav1.ObjectMetaAccessor
}](claimed, adopt, release []P) [3][]string {
	return [3][]string{metaKeys(metas(claimed)), metaKeys(metas(adopt)), metaKeys(metas(release))}
}

func metaKeys(ms []*metav1.ObjectMeta) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name + "/" + string(m.UID)
	}
	return out
}

// Compile-time checks that the generic helpers accept both object types.
var (
	_ = metas[corev1.Pod, *corev1.Pod]
	_ = metas[appsv1.ControllerRevision, *appsv1.ControllerRevision]
)
