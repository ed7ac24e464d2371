package rollout_test

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

// TestHistoryPermutationInvariance shuffles the inputs of every
// conformance scenario (and of a hand-made one with duplicates) with a
// fixed seed: ConstructHistory and CleanupHistory must not change.
func TestHistoryPermutationInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	for _, fx := range loadHistoryFixtures(t) {
		ds, revs := decodeHistoryFixture(t, fx)
		var pods []*corev1.Pod
		for _, p := range fx.Pods {
			pods = append(pods, p.pod())
		}
		checkPermutations(t, fx.Scenario, rng, ds, revs, revs, pods)
	}
	ds := histDS("registry.example/agent:v2")
	cur, old := histData(t, ds), histData(t, histDS("registry.example/agent:v1"))
	claimed := []*appsv1.ControllerRevision{
		histRev("agent-a", 3, cur, "a"), histRev("agent-b", 3, cur, "b"), withoutHashLabel(histRev("agent-c", 2, cur, "")),
		histRev("agent-v1", 4, old, "v1"), withoutHashLabel(histRev("agent-v0", 4, old, "")), nil,
	}
	pods := []*corev1.Pod{hashPod("p1", "a"), hashPod("p2", "b"), nil, hashPod("p3", noHashLabel), hashPod("p0", "v1")}
	checkPermutations(t, "duplicates", rng, ds, claimed, claimed, pods)
}

// rawBytes compares byte slices (revision data) with bytes.Equal, far
// faster than go-cmp's element-wise slice diff.
var rawBytes = gocmp.Comparer(bytes.Equal)

func checkPermutations(t *testing.T, name string, rng *rand.Rand, ds *appsv1.DaemonSet, claimed, inNS []*appsv1.ControllerRevision, pods []*corev1.Pod) {
	t.Helper()
	want, wantErr := rollout.ConstructHistory(ds, claimed, inNS, pods)
	wantClean := rollout.CleanupHistory(ds, want.Old, pods)
	for i := range 3 {
		c, n, p := slices.Clone(claimed), slices.Clone(inNS), slices.Clone(pods)
		rng.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
		rng.Shuffle(len(n), func(i, j int) { n[i], n[j] = n[j], n[i] })
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		got, err := rollout.ConstructHistory(ds, c, n, p)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%s: shuffle %d: error %v, unshuffled %v", name, i, err, wantErr)
		}
		if diff := gocmp.Diff(want, got, rawBytes); diff != "" {
			t.Errorf("%s: shuffle %d: ConstructHistory() changed (-unshuffled +shuffled):\n%s", name, i, diff)
		}
		old := slices.Clone(got.Old)
		rng.Shuffle(len(old), func(i, j int) { old[i], old[j] = old[j], old[i] })
		if diff := gocmp.Diff(wantClean, rollout.CleanupHistory(ds, old, p), rawBytes); diff != "" {
			t.Errorf("%s: shuffle %d: CleanupHistory() changed (-unshuffled +shuffled):\n%s", name, i, diff)
		}
	}
}

// fuzzHistoryInput builds ConstructHistory's input from fuzz bytes: a
// DaemonSet at one of four images with an optional collision count, up to
// eight revisions (name, number, data, label state, claimed or not,
// namespace) and up to six pods. Names come from a small set that includes
// the name ConstructHistory would create, so that every rule is reached.
func fuzzHistoryInput(t *testing.T, image, cc uint8, spec []byte) (*appsv1.DaemonSet, []*appsv1.ControllerRevision, []*appsv1.ControllerRevision, []*corev1.Pod) {
	images := []string{"v0", "v1", "v2", "v3"}
	ds := histDS("registry.example/agent:" + images[image%4])
	if cc%3 != 0 {
		v := int32(cc) - 100
		ds.Status.CollisionCount = &v
	}
	if cc%5 == 0 {
		ds.Annotations = map[string]string{"a": "b"}
	}
	data := [][]byte{histData(t, ds), nil, []byte("{}")}
	for _, img := range images {
		data = append(data, histData(t, histDS("registry.example/agent:"+img)))
	}
	// The template plus a field this build does not know: a template skew
	// when it is the newest claimed revision.
	data = append(data, withField(t, data[0], "x", "spec", "futureField"))
	newName := "agent-" + rollout.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
	revNames := []string{newName, "agent-a", "agent-b", "agent-c"}
	hashes := []string{"a", "b", "", "x"}

	var claimed, inNS []*appsv1.ControllerRevision
	var pods []*corev1.Pod
	for i := 0; i+4 <= len(spec) && i < 4*14; i += 4 {
		b0, b1, b2, b3 := spec[i], spec[i+1], spec[i+2], spec[i+3]
		if i/4 >= 8 || b0&0x80 != 0 {
			if len(pods) < 6 {
				p := hashPod(revNames[b1%4][len("agent-"):]+string(rune('0'+i/4)), hashes[b2%4])
				if b3%4 == 0 {
					delete(p.Labels, revHashKey)
				}
				if b3%7 == 0 {
					p = nil
				}
				pods = append(pods, p)
			}
			continue
		}
		r := &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: "kube-system", Name: revNames[b0%4], UID: types.UID(string(rune('a' + b1%16))),
				Labels: map[string]string{"app": "agent", revHashKey: hashes[b2%4]},
			},
			Data:     runtimeRaw(data[int(b1>>4)%len(data)]),
			Revision: int64(int8(b3)) / 8,
		}
		switch b2 >> 5 {
		case 0:
			delete(r.Labels, revHashKey)
		case 1:
			r.Labels = nil
		case 2:
			r.Namespace = "default"
		}
		if b3&1 == 0 {
			claimed = append(claimed, r)
		}
		if b3&2 == 0 || b3&1 == 0 {
			inNS = append(inNS, r)
		}
	}
	return ds, claimed, inNS, pods
}

// FuzzConstructHistory checks ConstructHistory's invariants on generated
// inputs: no panic; Current set exactly when there is no error; a
// collision comes with the bumped count and nothing else current; a
// template skew with the zero History; the hash
// is Current's label; a revision both updated and deleted only gains its
// missing hash label; Create is
// Current; output slices sorted as documented; the current revision's
// number above every old one unless an unclaimed revision was reused; the
// input unchanged; the same History for reversed input; and CleanupHistory
// deletes only old revisions, never more than needed.
func FuzzConstructHistory(f *testing.F) {
	f.Add(uint8(2), uint8(0), []byte{})
	f.Add(uint8(2), uint8(3), []byte{0x01, 0x21, 0x40, 0x10, 0x02, 0x01, 0x41, 0x18, 0x80, 0x01, 0x01, 0x01})
	f.Add(uint8(1), uint8(1), []byte{0x00, 0x60, 0x40, 0x02, 0x01, 0x00, 0x00, 0x20})
	f.Add(uint8(0), uint8(5), []byte{0x01, 0x00, 0x40, 0x08, 0x02, 0x01, 0x41, 0x08, 0x03, 0x02, 0x22, 0x08, 0x80, 0x00, 0x00, 0x03, 0x81, 0x02, 0x01, 0x07})
	f.Add(uint8(3), uint8(2), []byte{0x00, 0x40, 0x40, 0x01, 0x00, 0x40, 0x40, 0x03})
	// One claimed revision holding the template plus an unknown field: a
	// template skew.
	f.Add(uint8(2), uint8(0), []byte{0x01, 0x70, 0x60, 0x08})
	f.Fuzz(func(t *testing.T, image, cc uint8, spec []byte) {
		ds, claimed, inNS, pods := fuzzHistoryInput(t, image, cc, spec)
		before := []any{ds.DeepCopy(), deepCopyRevisions(claimed), deepCopyRevisions(inNS), deepCopyPods(pods)}
		h, err := rollout.ConstructHistory(ds, claimed, inNS, pods)
		if diff := gocmp.Diff(before, []any{ds, claimed, inNS, pods}, rawBytes); diff != "" {
			t.Fatalf("ConstructHistory() modified its input (-before +after):\n%s", diff)
		}
		if (h.Current == nil) != (err != nil) {
			t.Fatalf("Current = %v with error %v: want exactly one", h.Current, err)
		}
		var ce *rollout.CollisionError
		var fe *field.Error
		var skew *rollout.TemplateSkewError
		switch {
		case err != nil && errors.As(err, &skew):
			// The newest claimed revision holds fields this build does not
			// know: nothing is decided.
			if diff := gocmp.Diff(rollout.History{}, h, rawBytes); diff != "" {
				t.Fatalf("History with a template skew (-want +got):\n%s", diff)
			}
			if !slices.ContainsFunc(claimed, func(r *appsv1.ControllerRevision) bool { return r != nil && r.Name == skew.Revision }) {
				t.Fatalf("skew %v names no claimed revision", skew)
			}
		case err != nil && errors.As(err, &fe):
			// Duplicate names: nothing else is decided.
			if fe.Type != field.ErrorTypeDuplicate {
				t.Fatalf("unexpected field error %v", err)
			}
			if diff := gocmp.Diff(rollout.History{}, h, rawBytes); diff != "" {
				t.Fatalf("History with a duplicate-name error (-want +got):\n%s", diff)
			}
		case err != nil:
			if !errors.As(err, &ce) {
				t.Fatalf("unexpected error %v", err)
			}
			want := int32(1)
			if ds.Status.CollisionCount != nil {
				want = *ds.Status.CollisionCount + 1
			}
			if h.Plan.CollisionCount == nil || *h.Plan.CollisionCount != want || ce.CollisionCount != want || h.Hash != "" || h.Plan.Create != nil {
				t.Fatalf("collision History %+v with error %+v, want count %d", h, ce, want)
			}
		default:
			if h.Plan.CollisionCount != nil {
				t.Fatalf("CollisionCount %d without an error", *h.Plan.CollisionCount)
			}
			if h.Hash != h.Current.Labels[revHashKey] {
				t.Fatalf("Hash %q, Current's label %q", h.Hash, h.Current.Labels[revHashKey])
			}
			// Create is Current, or the create upstream still sends for a
			// revision of that name and data that exists unclaimed.
			reused := h.Plan.Create != nil && h.Plan.Create != h.Current
			if reused && (h.Plan.Create.Name != h.Current.Name || !bytes.Equal(h.Plan.Create.Data.Raw, h.Current.Data.Raw) ||
				slices.Contains(claimed, h.Current)) {
				t.Fatalf("Create %s is neither Current nor an unclaimed revision with its name and data", h.Plan.Create.Name)
			}
			for _, o := range h.Old {
				if !reused && o.Revision >= h.Current.Revision {
					t.Fatalf("old %s has revision %d >= current %s's %d", o.Name, o.Revision, h.Current.Name, h.Current.Revision)
				}
			}
		}
		for _, d := range h.Plan.Delete {
			// A revision may be labelled and then deleted (upstream's
			// order); the update then only adds the missing label.
			if i := slices.IndexFunc(h.Plan.Update, func(u *appsv1.ControllerRevision) bool { return u.Name == d.Name }); i >= 0 {
				u := h.Plan.Update[i]
				if _, had := d.Labels[revHashKey]; had || u.Labels[revHashKey] != d.Name || u.Revision != d.Revision {
					t.Fatalf("%s both updated and deleted, and the update does more than add the missing hash label", d.Name)
				}
			}
			if h.Current != nil && d.Name == h.Current.Name {
				t.Fatalf("current %s deleted", d.Name)
			}
		}
		if len(h.Plan.Relabel) > 0 && len(h.Plan.Delete) == 0 {
			t.Fatalf("pods relabelled without duplicates")
		}
		for _, o := range h.Old {
			if _, ok := o.Labels[revHashKey]; !ok {
				t.Fatalf("old %s has no hash label", o.Name)
			}
		}
		byName := func(a, b *appsv1.ControllerRevision) int {
			return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
		}
		if !slices.IsSortedFunc(h.Plan.Update, byName) || !slices.IsSortedFunc(h.Plan.Delete, byName) {
			t.Fatalf("Update or Delete not sorted by name")
		}
		if !slices.IsSortedFunc(h.Old, func(a, b *appsv1.ControllerRevision) int {
			return cmp.Or(cmp.Compare(a.Revision, b.Revision), byName(a, b))
		}) {
			t.Fatalf("Old not sorted by revision")
		}
		if !slices.IsSortedFunc(h.Plan.Relabel, func(a, b *corev1.Pod) int { return cmp.Compare(a.Name, b.Name) }) {
			t.Fatalf("Relabel not sorted by name")
		}

		// Reversed input, same History.
		rc, rn, rp := slices.Clone(claimed), slices.Clone(inNS), slices.Clone(pods)
		slices.Reverse(rc)
		slices.Reverse(rn)
		slices.Reverse(rp)
		h2, err2 := rollout.ConstructHistory(ds, rc, rn, rp)
		if diff := gocmp.Diff(h, h2, rawBytes); diff != "" || (err == nil) != (err2 == nil) {
			t.Fatalf("reversed input changed the History (-original +reversed):\n%s", diff)
		}

		// Cleanup deletes only old revisions, at most len(old)-limit.
		for _, limit := range []int32{0, 1, 3} {
			ds.Spec.RevisionHistoryLimit = &limit
			doomed := rollout.CleanupHistory(ds, h.Old, pods)
			if len(doomed) > max(len(h.Old)-int(limit), 0) {
				t.Fatalf("limit %d: %d of %d old revisions deleted", limit, len(doomed), len(h.Old))
			}
			for _, d := range doomed {
				if !slices.Contains(h.Old, d) {
					t.Fatalf("limit %d: deleted %s, not an old revision", limit, d.Name)
				}
			}
		}
	})
}
