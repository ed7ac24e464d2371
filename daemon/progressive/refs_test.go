package progressive_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// refCluster returns nodes n1..n<len(zones)>, node i labelled zone=zone-<zones[i]>
// and pool=<pools[i]> (pool only when pools is long enough), each running
// an old pod of ds (hash v1), or none where pods is false.
func refCluster(ds *appsv1.DaemonSet, zones, pools string, pods bool) ([]*corev1.Node, []*corev1.Pod) {
	var nodes []*corev1.Node
	var out []*corev1.Pod
	for i, z := range zones {
		name := fmt.Sprintf("n%d", i+1)
		opts := []dt.NodeOption{dt.WithLabel("zone", "zone-"+string(z))}
		if i < len(pools) {
			opts = append(opts, dt.WithLabel("pool", string(pools[i])))
		}
		nodes = append(nodes, dt.Node(name, opts...))
		if pods {
			out = append(out, dt.Pod(ds, ds.Name+"-"+name, name, dt.WithHash("v1")))
		}
	}
	return nodes, out
}

// holdOf plans ds under ann (progressive.ForDaemonSet) on nodes and pods,
// judges the plan and asks its gates.
func holdOf(t *testing.T, ds *appsv1.DaemonSet, ann map[string]string, nodes []*corev1.Node, pods []*corev1.Pod) (progressive.Hold, *daemon.Plan) {
	t.Helper()
	ds = ds.DeepCopy()
	ds.Annotations = ann
	r, err := progressive.ForDaemonSet(ds)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := daemon.Compute(r.DaemonSet, nodes, pods, r.Options(daemon.Options{Now: dt.Epoch}))
	if err != nil {
		t.Fatal(err)
	}
	j, err := progressive.Judge(r.DaemonSet, &plan)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.Annotations.Gates.Hold(r.DaemonSet, &plan, j, dt.Epoch, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h, &plan
}

// TestGatesUnresolved resolves every key that names something of the
// cluster, each way it can name nothing, against a plan's standing.
func TestGatesUnresolved(t *testing.T) {
	ds := dt.DaemonSet("agent", dt.OnDelete())
	pa, ob, ov, dom := progressive.AnnotationPauseAfter, progressive.AnnotationOrderBy, progressive.AnnotationOrderValues, progressive.AnnotationDomain
	sc, ap := progressive.AnnotationScope, progressive.AnnotationApproved
	zones := []string{"zone-a", "zone-b", "zone-c"}
	waves := []string{"canary", "zone-a", "zone-b", "zone-c"}
	keys := []string{"kubernetes.io/hostname", "pool", "zone"}
	tests := []struct {
		name  string
		ann   map[string]string
		zones string // default "abcabc"
		pools string // default "xyxyxy"
		// settled: every pod runs the current revision (a complete rollout).
		settled, noPods bool
		want            []progressive.Unresolved
		wantText        string
	}{
		{name: "pause-after names a wave", ann: map[string]string{ob: "zone", pa: "zone-b"}},
		{name: "pause-after the last wave names a wave", ann: map[string]string{ob: "zone", pa: "zone-c"}},
		{name: "pause-after every-wave names no name", ann: map[string]string{ob: "zone", pa: "every-wave"}},
		{name: "pause-after canary names the canary", ann: map[string]string{ob: "zone", progressive.AnnotationCanary: "1", pa: "canary"}},
		{name: "pause-after typo of a wave (finding 1)", ann: map[string]string{ob: "zone", progressive.AnnotationCanary: "1", pa: "zone-z"},
			want:     []progressive.Unresolved{{Key: pa, Value: "zone-z", What: "wave", Of: "waves", Exist: waves, Near: "zone-a"}},
			wantText: `pause-after "zone-z" names no wave; did you mean zone-a? waves: canary, zone-a, zone-b, zone-c`},
		{name: "pause-after far from every wave", ann: map[string]string{ob: "zone", pa: "zone-a,europe"},
			want:     []progressive.Unresolved{{Key: pa, Value: "europe", What: "wave", Of: "waves", Exist: zones}},
			wantText: `pause-after "europe" names no wave; waves: zone-a, zone-b, zone-c`},
		{name: "pause-after a value of nodes not desired", zones: "abcabc", ann: map[string]string{ob: "zone", pa: "zone-d"},
			want: []progressive.Unresolved{{Key: pa, Value: "zone-d", What: "wave", Of: "waves", Exist: zones, Near: "zone-a"}}},
		{name: "a complete rollout is held too", settled: true, ann: map[string]string{ob: "zone", pa: "zone-z"},
			want: []progressive.Unresolved{{Key: pa, Value: "zone-z", What: "wave", Of: "waves", Exist: zones, Near: "zone-a"}}},
		{name: "no desired node: nothing to resolve", zones: "-", ann: map[string]string{ob: "zone", pa: "zone-z"}},
		{name: "order-by typo", ann: map[string]string{ob: "zome"},
			want:     []progressive.Unresolved{{Key: ob, Value: "zome", What: "node label key", Of: "node label keys", Exist: keys, Near: "zone"}},
			wantText: `order-by "zome" names no node label key; did you mean zone? node label keys: kubernetes.io/hostname, pool, zone`},
		{name: "order-by typo: order-values and pause-after not read twice", ann: map[string]string{ob: "zome", ov: "zone-q", pa: "zone-a"},
			want: []progressive.Unresolved{
				{Key: ob, Value: "zome", What: "node label key", Of: "node label keys", Exist: keys, Near: "zone"},
				{Key: pa, Value: "zone-a", What: "wave", Of: "waves"},
			}},
		{name: "order-values: one of them names no node", ann: map[string]string{ob: "zone", ov: "zone-c,zone-x,zone-a"},
			want:     []progressive.Unresolved{{Key: ov, Value: "zone-x", What: "value of zone", Of: "values of zone", Exist: zones, Near: "zone-a"}},
			wantText: `order-values "zone-x" names no value of zone; did you mean zone-a? values of zone: zone-a, zone-b, zone-c`},
		{name: "order-values all resolve", ann: map[string]string{ob: "zone", ov: "zone-c,zone-a"}},
		{name: "domain typo", ann: map[string]string{dom: "pol", progressive.AnnotationDomainMaxUnavailable: "1"},
			want:     []progressive.Unresolved{{Key: dom, Value: "pol", What: "node label key", Of: "node label keys", Exist: keys, Near: "pool"}},
			wantText: `domain "pol" names no node label key; did you mean pool? node label keys: kubernetes.io/hostname, pool, zone`},
		{name: "scope matches some node", ann: map[string]string{sc: "pool=x"}},
		{name: "scope value typo", ann: map[string]string{sc: "pool=z"},
			want:     []progressive.Unresolved{{Key: sc, Value: "pool=z", What: "desired node", Of: "values of pool", Exist: []string{"x", "y"}}},
			wantText: `scope "pool=z" names no desired node; values of pool: x, y`},
		{name: "scope value near miss", ann: map[string]string{sc: "zone in (zone-q)"},
			want:     []progressive.Unresolved{{Key: sc, Value: "zone=zone-q", What: "desired node", Of: "values of zone", Exist: zones, Near: "zone=zone-a"}},
			wantText: `scope "zone=zone-q" names no desired node; did you mean zone=zone-a? values of zone: zone-a, zone-b, zone-c`},
		{name: "scope key typo", ann: map[string]string{sc: "poool=x"},
			want:     []progressive.Unresolved{{Key: sc, Value: "poool=x", What: "desired node", Of: "node label keys", Exist: keys, Near: "pool=x"}},
			wantText: `scope "poool=x" names no desired node; did you mean pool=x? node label keys: kubernetes.io/hostname, pool, zone`},
		{name: "scope: each requirement met, all of them by none", zones: "ab", pools: "yx", ann: map[string]string{sc: "pool=x,zone=zone-a"},
			want:     []progressive.Unresolved{{Key: sc, Value: "pool=x,zone=zone-a", What: "desired node"}},
			wantText: `scope "pool=x,zone=zone-a" names no desired node`},
		{name: "scope: a requirement no node meets without naming a value", ann: map[string]string{sc: "!zone"},
			want: []progressive.Unresolved{{Key: sc, Value: "!zone", What: "desired node"}}},
		{name: "approved names a wave of this revision", ann: map[string]string{ob: "zone", pa: "zone-a", ap: "HASH/zone=zone-a"}},
		{name: "approved of this revision names no wave", ann: map[string]string{ob: "zone", pa: "zone-a", ap: "HASH/zone=zone-q"},
			want: []progressive.Unresolved{{Key: ap, Value: "zone=zone-q", What: "wave", Of: "waves",
				Exist: []string{"zone=zone-a", "zone=zone-b", "zone=zone-c"}, Near: "zone=zone-a"}}},
		{name: "approved of another revision is not read", ann: map[string]string{ob: "zone", pa: "zone-a", ap: "other/zone=zone-q"}},
		{name: "every reference at once, in key order", ann: map[string]string{ob: "zone", ov: "zone-q", pa: "zone-z", sc: "pool=z",
			dom: "rak", progressive.AnnotationDomainMaxUnavailable: "1"},
			want: []progressive.Unresolved{
				{Key: sc, Value: "pool=z", What: "desired node", Of: "values of pool", Exist: []string{"x", "y"}},
				{Key: ov, Value: "zone-q", What: "value of zone", Of: "values of zone", Exist: zones, Near: "zone-a"},
				{Key: dom, Value: "rak", What: "node label key", Of: "node label keys", Exist: keys},
				{Key: pa, Value: "zone-z", What: "wave", Of: "waves", Exist: zones, Near: "zone-a"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zs, pools := tt.zones, tt.pools
			if zs == "" {
				zs = "abcabc"
			}
			if zs == "-" {
				zs = ""
			}
			if pools == "" {
				pools = "xyxyxy"
			}
			ann := map[string]string{}
			for k, v := range tt.ann {
				// HASH is the current revision's.
				ann[k] = strings.Replace(v, "HASH", dt.Hash(ds), 1)
			}
			nodes, pods := refCluster(ds, zs, pools, !tt.noPods)
			if tt.name == "pause-after a value of nodes not desired" {
				// A node of zone-d that does not run the pod.
				nodes = append(nodes, dt.Node("n9", dt.WithLabel("zone", "zone-d"), dt.WithTaint("dedicated", "x", corev1.TaintEffectNoSchedule)))
			}
			if tt.settled {
				for i, p := range pods {
					pods[i] = dt.Pod(ds, p.Name, p.Spec.NodeName, dt.ReadySince(dt.Epoch.Add(-3600e9)))
				}
			}
			h, plan := holdOf(t, ds, ann, nodes, pods)
			if diff := cmp.Diff(tt.want, h.Unresolved); diff != "" {
				t.Errorf("Hold().Unresolved (-want +got):\n%s", diff)
			}
			wantCause := progressive.HoldNone
			if len(tt.want) > 0 {
				wantCause = progressive.HoldUnresolved
			}
			if tt.want == nil && h.Cause == progressive.HoldApproval {
				h.Cause = progressive.HoldNone // an approval point, not what this test is about
			}
			if h.Cause != wantCause {
				t.Errorf("Hold().Cause = %q, want %q (%s)", h.Cause, wantCause, h)
			}
			if tt.wantText != "" && h.String() != tt.wantText {
				t.Errorf("Hold().String():\n got %s\nwant %s", h, tt.wantText)
			}
			if tt.want != nil && plan.Hash == "" {
				t.Errorf("the plan has no hash")
			}
		})
	}
}
