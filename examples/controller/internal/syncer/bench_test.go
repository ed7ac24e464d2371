package syncer

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkNodeHeartbeat is the cost of a node status update (a heartbeat)
// with 100 DaemonSets: one compiled placement check per DaemonSet and
// nothing enqueued.
func BenchmarkNodeHeartbeat(b *testing.B) {
	h := newHarness(b, Config{})
	for i := range 100 {
		h.Cache(testDS("ns", fmt.Sprintf("ds-%03d", i), func(ds *appsv1.DaemonSet) {
			if i%2 == 0 {
				ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "a"}
			}
		}))
	}
	old := testNode("n1", map[string]string{"pool": "a"})
	cur := old.DeepCopy()
	cur.ResourceVersion = "2"
	cur.Status.Conditions[0].LastHeartbeatTime = metav1.Now()
	h.c.updateNode(old, cur) // compile the placement checks
	b.ReportAllocs()
	for b.Loop() {
		h.c.updateNode(old, cur)
	}
	if h.c.Queue.Len() != 0 {
		b.Fatalf("a heartbeat enqueued %d DaemonSets", h.c.Queue.Len())
	}
}
