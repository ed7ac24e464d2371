package companion

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// readmes are the documents that may quote the companion's
// RolloutProgressing messages, from this package's directory: the front
// page, this module's README (which holds the progressive-rollout
// walkthrough the front page points to) and the plugin's.
var readmes = []string{"../../../../README.md", "../../README.md", "../../../dsplan/README.md"}

// quotedMessage is a RolloutProgressing message quoted in a README: a code
// span ending in "(generation N)".
var quotedMessage = regexp.MustCompile("`([^`]*\\(generation \\d+\\))`")

// TestREADMEQuotesRealMessages: every RolloutProgressing message the
// READMEs quote is what the companion writes in one of the rollouts below,
// and each of those is quoted. The README once quoted a message the
// companion never wrote ("wave topology.kubernetes.io/zone=zone-a: 3/8
// updated and available; waiting for zone-a-003"), and another whose
// counts could not happen together.
func TestREADMEQuotesRealMessages(t *testing.T) {
	zone := "topology.kubernetes.io/zone"
	ann := map[string]string{progressive.AnnotationOrderBy: zone, progressive.AnnotationMaxUnavailable: "1"}
	var produced []string
	// 30 nodes w-01..w-30 in three zones of ten; the first zone done, four
	// of the second, w-15's new pod not yet available.
	produced = append(produced, progressMessage(t, ann, 7, 30, func(i int) (node, zoneValue string, state podState) {
		node, zoneValue = fmt.Sprintf("w-%02d", i+1), []string{"us-east-1a", "us-east-1b", "us-east-1c"}[i/10]
		switch {
		case i < 14:
			state = podUpdated
		case i == 14:
			state = podUpdating
		}
		return node, zoneValue, state
	}))
	// 24 nodes in three zones of eight, zone-a-001..zone-a-008 first; three
	// done, zone-a-004's new pod not yet available.
	produced = append(produced, progressMessage(t, ann, 2, 24, func(i int) (node, zoneValue string, state podState) {
		zoneValue = []string{"zone-a", "zone-b", "zone-c"}[i/8]
		node = fmt.Sprintf("%s-%03d", zoneValue, i%8+1)
		switch {
		case i < 3:
			state = podUpdated
		case i == 3:
			state = podUpdating
		}
		return node, zoneValue, state
	}))
	slices.Sort(produced)

	var quoted []string
	for _, path := range readmes {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// A code span may be wrapped over lines.
		text := strings.Join(strings.Fields(string(b)), " ")
		for _, m := range quotedMessage.FindAllStringSubmatch(text, -1) {
			quoted = append(quoted, m[1])
		}
	}
	slices.Sort(quoted)
	quoted = slices.Compact(quoted)
	if d := cmp.Diff(produced, quoted); d != "" {
		t.Errorf("RolloutProgressing messages: the companion's (-) against the READMEs' quotes (+):\n%s", d)
	}
}

type podState int

const (
	podOld      podState = iota // an old, available pod
	podUpdated                  // an updated, available pod
	podUpdating                 // an updated pod not yet ready
)

// progressMessage is the RolloutProgressing message of one companion sync
// of a DaemonSet of generation gen with annotations ann on n nodes, node i
// named, labelled and running a pod as at(i) says.
func progressMessage(t *testing.T, ann map[string]string, gen int64, n int, at func(i int) (node, zone string, state podState)) string {
	t.Helper()
	ds := companionDS(ann, func(ds *appsv1.DaemonSet) { ds.Generation = gen })
	rev, hash := revisionOf(t, ds)
	objs := []runtime.Object{ds, rev}
	for i := range n {
		node, zone, state := at(i)
		objs = append(objs, testNode(node, map[string]string{"topology.kubernetes.io/zone": zone}))
		switch state {
		case podOld:
			objs = append(objs, daemonPod(ds, "old-"+node, node, "old", t0.Add(-2*time.Hour)))
		case podUpdated:
			objs = append(objs, daemonPod(ds, "new-"+node, node, hash, t0.Add(-time.Hour)))
		case podUpdating:
			objs = append(objs, daemonPod(ds, "new-"+node, node, hash, time.Time{}))
		}
	}
	h := newHarness(t, syncer.Config{}, objs...)
	h.syncCompanion("ns/ds")
	return findCondition(h.refreshDS("ns", "ds").Status.Conditions, ConditionProgressing).Message
}
