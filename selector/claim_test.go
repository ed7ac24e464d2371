package selector_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/selector"
)

func TestOwnerOf(t *testing.T) {
	ts := metav1.Unix(1_700_000_000, 0)
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want selector.Owner
	}{
		{
			name: "nil daemonset gives the zero owner",
			ds:   nil,
			want: selector.Owner{},
		},
		{
			name: "live daemonset is not deleting",
			ds:   newDaemonSet(nil, nil),
			want: selector.Owner{Namespace: testNS, Name: "fluentd", UID: "ds-uid", Kind: "DaemonSet"},
		},
		{
			name: "deletion timestamp makes the owner deleting",
			ds: func() *appsv1.DaemonSet {
				ds := newDaemonSet(nil, nil)
				ds.DeletionTimestamp = &ts
				return ds
			}(),
			want: selector.Owner{Namespace: testNS, Name: "fluentd", UID: "ds-uid", Kind: "DaemonSet", Deleting: true},
		},
		{
			name: "zero daemonset still has kind DaemonSet",
			ds:   &appsv1.DaemonSet{},
			want: selector.Owner{Kind: "DaemonSet"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before *appsv1.DaemonSet
			if tt.ds != nil {
				before = tt.ds.DeepCopy()
			}
			got := selector.OwnerOf(tt.ds)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("OwnerOf() mismatch (-want +got):\n%s", diff)
			}
			if tt.ds != nil {
				if diff := cmp.Diff(before, tt.ds); diff != "" {
					t.Errorf("OwnerOf() modified its input (-before +after):\n%s", diff)
				}
			}
		})
	}
}

// claimCase is one row shared by the pod and revision tables: objects are
// described once by name and options, and built as pods or revisions.
type claimCase struct {
	name  string
	owner selector.Owner
	sel   labels.Selector
	// objs are built in order; a nil entry stays nil.
	objs []*objSpec
	// wantPods and wantRevs are the expected outcomes; they differ only
	// where upstream lists pods and revisions differently.
	wantPods, wantRevs claimNames
}

type objSpec struct {
	name string
	opts []meta
}

func obj(name string, opts ...meta) *objSpec { return &objSpec{name: name, opts: opts} }

func (c claimCase) pods() []*corev1.Pod {
	if c.objs == nil {
		return nil
	}
	out := make([]*corev1.Pod, len(c.objs))
	for i, o := range c.objs {
		if o != nil {
			out[i] = newPod(o.name, o.opts...)
		}
	}
	return out
}

func (c claimCase) revs() []*appsv1.ControllerRevision {
	if c.objs == nil {
		return nil
	}
	out := make([]*appsv1.ControllerRevision, len(c.objs))
	for i, o := range c.objs {
		if o != nil {
			out[i] = newRev(o.name, o.opts...)
		}
	}
	return out
}

// same is claimNames for the common case where pods and revisions agree.
func same(c claimNames) [2]claimNames { return [2]claimNames{c, c} }

func claimCases() []claimCase {
	deleting := testOwner
	deleting.Deleting = true
	other := map[string]string{"app": "other"}
	rows := []struct {
		name  string
		owner selector.Owner
		sel   labels.Selector
		objs  []*objSpec
		want  [2]claimNames // pods, revisions
	}{
		{"owned and matched is claimed", testOwner, appSelector(),
			[]*objSpec{obj("a", ownedByTestOwner())}, same(claimNames{Claimed: []string{"a"}})},
		{"owned and not matched is released", testOwner, appSelector(),
			[]*objSpec{obj("a", ownedByTestOwner(), labelled(other))}, same(claimNames{Release: []string{"a"}})},
		{"owned and not matched while the owner is deleting is ignored", deleting, appSelector(),
			[]*objSpec{obj("a", ownedByTestOwner(), labelled(other))}, same(claimNames{})},
		{"owned and matched while the owner is deleting is still claimed", deleting, appSelector(),
			[]*objSpec{obj("a", ownedByTestOwner())}, same(claimNames{Claimed: []string{"a"}})},
		{"owned, matched and being deleted is claimed", testOwner, appSelector(),
			[]*objSpec{obj("a", ownedByTestOwner(), beingDeleted())}, same(claimNames{Claimed: []string{"a"}})},
		{"owned, not matched and being deleted is released", testOwner, appSelector(),
			[]*objSpec{obj("a", ownedByTestOwner(), beingDeleted(), labelled(other))}, same(claimNames{Release: []string{"a"}})},
		{"matched orphan is adopted and claimed", testOwner, appSelector(),
			[]*objSpec{obj("a")}, same(claimNames{Claimed: []string{"a"}, Adopt: []string{"a"}})},
		{"orphan without labels is ignored", testOwner, appSelector(),
			[]*objSpec{obj("a", labelled(nil))}, same(claimNames{})},
		{"matched orphan being deleted is ignored", testOwner, appSelector(),
			[]*objSpec{obj("a", beingDeleted())}, same(claimNames{})},
		{"matched orphan while the owner is deleting is ignored", deleting, appSelector(),
			[]*objSpec{obj("a")}, same(claimNames{})},
		{"object of another controller is ignored", testOwner, appSelector(),
			[]*objSpec{obj("a", controlledBy("DaemonSet", "other", "other-uid"))}, same(claimNames{})},
		{"orphan of another namespace is ignored", testOwner, appSelector(),
			[]*objSpec{obj("a", inNamespace("default"))}, same(claimNames{})},
		{"owned object of another namespace is ignored", testOwner, appSelector(),
			[]*objSpec{obj("a", inNamespace("default"), ownedByTestOwner()), obj("b", inNamespace("default"), ownedByTestOwner(), labelled(other))},
			same(claimNames{})},
		{"owner UID with another kind: pods are never listed, revisions are owned", testOwner, appSelector(),
			[]*objSpec{obj("a", controlledBy("ReplicaSet", "fluentd", "ds-uid")), obj("b", controlledBy("ReplicaSet", "fluentd", "ds-uid"), labelled(other))},
			[2]claimNames{{}, {Claimed: []string{"a"}, Release: []string{"b"}}}},
		{"owner UID with another name: pods are never listed, revisions are owned", testOwner, appSelector(),
			[]*objSpec{obj("a", controlledBy("DaemonSet", "fluentd-old", "ds-uid")), obj("b", controlledBy("DaemonSet", "fluentd-old", "ds-uid"), labelled(other))},
			[2]claimNames{{}, {Claimed: []string{"a"}, Release: []string{"b"}}}},
		{"owner kind and name with another UID is another controller", testOwner, appSelector(),
			[]*objSpec{obj("a", controlledBy("DaemonSet", "fluentd", "old-uid"))}, same(claimNames{})},
		{"non-controller reference to the owner leaves an orphan", testOwner, appSelector(),
			[]*objSpec{obj("a", referencedBy("DaemonSet", "fluentd", "ds-uid", nil)), obj("b", referencedBy("DaemonSet", "fluentd", "ds-uid", nil), labelled(other))},
			same(claimNames{Claimed: []string{"a"}, Adopt: []string{"a"}})},
		{"controller false counts as no controller", testOwner, appSelector(),
			[]*objSpec{obj("a", referencedBy("DaemonSet", "fluentd", "ds-uid", new(false)))},
			same(claimNames{Claimed: []string{"a"}, Adopt: []string{"a"}})},
		{"only the first controller reference counts: another controller first", testOwner, appSelector(),
			[]*objSpec{obj("a", controlledBy("DaemonSet", "other", "other-uid"), ownedByTestOwner())}, same(claimNames{})},
		{"only the first controller reference counts: owner first", testOwner, appSelector(),
			[]*objSpec{obj("a", ownedByTestOwner(), controlledBy("DaemonSet", "other", "other-uid"))}, same(claimNames{Claimed: []string{"a"}})},
		{"nil entries are skipped", testOwner, appSelector(),
			[]*objSpec{nil, obj("a"), nil}, same(claimNames{Claimed: []string{"a"}, Adopt: []string{"a"}})},
		{"nil input gives the zero outcome", testOwner, appSelector(), nil, same(claimNames{})},
		{"empty input gives the zero outcome", testOwner, appSelector(), []*objSpec{}, same(claimNames{})},
		{"everything selector claims owned objects and adopts every live orphan", testOwner, labels.Everything(),
			[]*objSpec{obj("a", ownedByTestOwner(), labelled(nil)), obj("b", labelled(other)), obj("c", beingDeleted())},
			same(claimNames{Claimed: []string{"a", "b"}, Adopt: []string{"b"}})},
		{"nothing selector releases owned objects and adopts none", testOwner, labels.Nothing(),
			[]*objSpec{obj("a", ownedByTestOwner()), obj("b")},
			same(claimNames{Release: []string{"a"}})},
		{"nil selector matches nothing", testOwner, nil,
			[]*objSpec{obj("a", ownedByTestOwner()), obj("b")},
			same(claimNames{Release: []string{"a"}})},
		{"results are sorted by name, then UID", testOwner, appSelector(),
			[]*objSpec{
				obj("c", ownedByTestOwner()), obj("b", withUID("2")), obj("b", withUID("1")),
				obj("a", ownedByTestOwner(), labelled(other)), obj("z", ownedByTestOwner(), labelled(other)),
			},
			same(claimNames{Claimed: []string{"b", "b", "c"}, Adopt: []string{"b", "b"}, Release: []string{"a", "z"}})},
		{"zero owner claims in the empty namespace only", selector.Owner{}, labels.Everything(),
			[]*objSpec{obj("a", inNamespace("")), obj("b")},
			same(claimNames{Claimed: []string{"a"}, Adopt: []string{"a"}})},
	}
	out := make([]claimCase, 0, len(rows))
	for _, r := range rows {
		out = append(out, claimCase{name: r.name, owner: r.owner, sel: r.sel, objs: r.objs, wantPods: r.want[0], wantRevs: r.want[1]})
	}
	return out
}

func TestClaimPods(t *testing.T) {
	for _, tt := range claimCases() {
		t.Run(tt.name, func(t *testing.T) {
			pods := tt.pods()
			got := selector.ClaimPods(tt.owner, tt.sel, pods)
			if diff := cmp.Diff(tt.wantPods, podClaimNames(got)); diff != "" {
				t.Errorf("ClaimPods() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(oracleClaimPods(tt.owner, tt.sel, pods), got); diff != "" {
				t.Errorf("ClaimPods() differs from the reference (-reference +got):\n%s", diff)
			}
			// Deciding one pod at a time sorts them the same way.
			var one selector.PodClaims
			for _, p := range pods {
				switch selector.DecidePod(tt.owner, tt.sel, p) {
				case selector.Own:
					one.Claimed = append(one.Claimed, p)
				case selector.Adopt:
					one.Claimed = append(one.Claimed, p)
					one.Adopt = append(one.Adopt, p)
				case selector.Release:
					one.Release = append(one.Release, p)
				}
			}
			if diff := cmp.Diff(podClaimNames(got), podClaimNames(one), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("DecidePod() disagrees with ClaimPods() (-ClaimPods +DecidePod):\n%s", diff)
			}
		})
	}
}

func TestClaimRevisions(t *testing.T) {
	for _, tt := range claimCases() {
		t.Run(tt.name, func(t *testing.T) {
			revs := tt.revs()
			got := selector.ClaimRevisions(tt.owner, tt.sel, revs)
			if diff := cmp.Diff(tt.wantRevs, revClaimNames(got)); diff != "" {
				t.Errorf("ClaimRevisions() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(oracleClaimRevisions(tt.owner, tt.sel, revs), got); diff != "" {
				t.Errorf("ClaimRevisions() differs from the reference (-reference +got):\n%s", diff)
			}
		})
	}
}
