package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/companion"
)

// unresolvedBlocked are the companion's conditions while an annotation
// names nothing of the cluster.
var unresolvedBlocked = []conditionWant{
	{companion.ConditionBlocked, corev1.ConditionTrue, companion.ReasonUnresolvedReference},
	{companion.ConditionStalled, corev1.ConditionTrue, companion.ReasonUnresolvedReference},
	{companion.ConditionProgressing, corev1.ConditionFalse, companion.ReasonUnresolvedReference},
}

// TestCompanionPauseAfterTypo (issue 37, finding 1): six nodes in three
// zones beside kube-controller-manager, a canary and zone waves, and
// pause-after "zone-z", a wave no node has. Before, the companion rolled
// the new revision to every node with no stop; now the typo holds the
// rollout: RolloutBlocked, Stalled and RolloutProgressing name the key,
// the value and the waves there are, with "did you mean zone-a", a Warning
// event says so, kstatus reads Failed, and no old pod is deleted for 30s
// after the template changes. Fixing the annotation (removing the key)
// lets the rollout complete.
func TestCompanionPauseAfterTypo(t *testing.T) {
	zones := []string{"zone-a", "zone-b", "zone-c"}
	e, nodes := startCompanionScenario(t, zones, 2)
	e.createDaemonSet(newDaemonSet("agent", onDelete(), annotate(map[string]string{
		progressive.AnnotationMaxUnavailable: "1",
		progressive.AnnotationOrderBy:        zoneLabel,
		progressive.AnnotationCanary:         "1",
		progressive.AnnotationPauseAfter:     "zone-z",
	})))
	e.converge("agent", names(nodes), 2*time.Minute)
	// Held already at generation 1: its next revision would be.
	e.eventually("held by the typo", time.Minute, func() (bool, string) { return e.conditionsAre("agent", unresolvedBlocked) })

	m, dr := e.startDeleteMonitor("agent", workloadBudgetCheck("agent", names(nodes), 1))
	e.updateTemplate("agent", newRevision("example.invalid/agent:v2", ""))
	ks := e.recordKstatus("agent")
	e.waitKstatus(ks, kstatus.FailedStatus, 20*time.Second)
	warnings := e.waitWarning("agent", "RolloutBlocked")
	const hold = 30 * time.Second
	time.Sleep(hold)
	if n := dr.count(); n != 0 {
		deleted, _ := dr.deleted()
		t.Errorf("held by a typo, yet %d old pods were deleted in %s: %q", n, hold, deleted)
	}
	if ok, why := e.conditionsAre("agent", unresolvedBlocked); !ok {
		t.Errorf("after %s: %s", hold, why)
	}
	blocked := conditionOf(e.daemonSet("agent"), companion.ConditionBlocked)
	const want = `pause-after "zone-z" names no wave; did you mean zone-a? waves: canary, zone-a, zone-b, zone-c`
	if blocked == nil || blocked.Message != want {
		t.Errorf("RolloutBlocked %+v, want the message %q", blocked, want)
	}
	if !strings.Contains(warnings[0], progressive.AnnotationPauseAfter[len(progressive.AnnotationPrefix):]+` "zone-z"`) {
		t.Errorf("the Warning %q does not name the key and the value", warnings[0])
	}

	// The annotation fixed, the rollout goes on and completes.
	e.setAnnotations("agent", map[string]string{progressive.AnnotationPauseAfter: ""})
	e.waitRolledOut("rollout to v2 complete once pause-after is removed", "agent", names(nodes), 2*time.Minute)
	e.waitKstatus(ks, kstatus.CurrentStatus, 20*time.Second)
	_, events := m.stopAndFailOnViolations(t)
	t.Logf("companion-pause-after-typo: 0 of %d old pods deleted for %s; RolloutBlocked: %s; Warning: %q; completed once the key was removed; %d pod events checked",
		len(nodes), hold, blocked.Message, warnings[0], events)
}
