package e2e

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// availableSince is when p became available as the controllers judge it:
// its Ready condition's lastTransitionTime plus minReady; false when it is
// not Ready (or is being deleted).
func availableSince(p *corev1.Pod, minReady time.Duration) (time.Time, bool) {
	if !podReady(p) {
		return time.Time{}, false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.LastTransitionTime.Add(minReady), true
		}
	}
	return time.Time{}, false
}

// deletedAt is when p's deletion was asked for: its deletionTimestamp less
// its grace period (the API server sets the first to the request's time
// plus the second).
func deletedAt(p *corev1.Pod) (time.Time, bool) {
	if p.DeletionTimestamp == nil {
		return time.Time{}, false
	}
	grace := time.Duration(0)
	if p.DeletionGracePeriodSeconds != nil {
		grace = time.Duration(*p.DeletionGracePeriodSeconds) * time.Second
	}
	return p.DeletionTimestamp.Add(-grace), true
}

// zoneWavesCheck is the safety bound of a rollout in zone waves under a
// per-zone budget and a wave barrier, evaluated on every pod event:
//   - per zone, at most perZone desired nodes without an available pod,
//     available as the controllers judge it (Ready's lastTransitionTime
//     plus minReady, at the moment of the check, which can only come after
//     the event: a bound that holds then held at the event);
//   - at most one pod per node;
//   - a node of zone N+1 is started (its old pod's deletion asked for, as
//     recorded on the pod) only when every node of the zones before runs
//     an updated pod that became available at least bake before that
//     start (the timestamps the API server recorded, which the companion
//     judges by too).
//
// Old pods are those with oldHash. It records the starts and the updated
// pods' availability in obs. The function keeps state and serves one
// monitor.
func zoneWavesCheck(app, oldHash string, nodes []nodeSpec, zones []string, perZone int, minReady, bake time.Duration, obs *waveObservation) func(map[string]*corev1.Pod) string {
	desired := names(nodes)
	zoneOf := map[string]int{}
	for _, n := range nodes {
		zoneOf[n.name] = slices.Index(zones, n.labels[zoneLabel])
	}
	return func(pods map[string]*corev1.Pod) string {
		now := time.Now()
		perNode := map[string]int{}
		avail := map[string]bool{}
		hasOld := map[string]bool{}
		type start struct {
			node string
			at   time.Time
		}
		var starts []start
		obs.mu.Lock()
		defer obs.mu.Unlock()
		for _, p := range pods {
			if p.Labels["app"] != app {
				continue
			}
			n := p.Spec.NodeName
			perNode[n]++
			old := p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == oldHash
			if at, ok := availableSince(p, minReady); ok && !at.After(now) {
				avail[n] = true
			}
			if old && p.DeletionTimestamp == nil {
				hasOld[n] = true
			}
			if at, ok := deletedAt(p); ok && old {
				if _, seen := obs.started[n]; !seen {
					starts = append(starts, start{n, at})
				}
			}
			if at, ok := availableSince(p, minReady); ok && !old {
				if prev, seen := obs.available[n]; !seen || at.Before(prev) {
					obs.available[n] = at
				}
			}
		}
		// An old pod gone without its deletion seen (a delete that
		// removed it at once): started now.
		for _, n := range desired {
			if _, seen := obs.started[n]; !seen && !hasOld[n] && !slices.ContainsFunc(starts, func(s start) bool { return s.node == n }) {
				starts = append(starts, start{n, now})
			}
		}
		sort.Slice(starts, func(i, j int) bool {
			return starts[i].at.Before(starts[j].at) || starts[i].at.Equal(starts[j].at) && starts[i].node < starts[j].node
		})
		for n, k := range perNode {
			if n != "" && k > 1 {
				return fmt.Sprintf("node %s has %d pods", n, k)
			}
		}
		down := make([]int, len(zones))
		for _, n := range desired {
			if !avail[n] {
				down[zoneOf[n]]++
			}
		}
		for z, d := range down {
			if d > perZone {
				return fmt.Sprintf("%s: %d desired nodes without an available pod, per-zone budget %d", zones[z], d, perZone)
			}
		}
		for _, s := range starts {
			obs.started[s.node] = s.at
			obs.order = append(obs.order, s.node)
			z := zoneOf[s.node]
			for _, m := range desired {
				if zoneOf[m] >= z {
					continue
				}
				a, ok := obs.available[m]
				switch {
				case !ok:
					return fmt.Sprintf("node %s (%s) started at %s while %s (%s) has no available updated pod",
						s.node, zones[z], s.at.Format(time.TimeOnly), m, zones[zoneOf[m]])
				case s.at.Before(a.Add(bake)):
					return fmt.Sprintf("node %s (%s) started at %s, before %s (%s), available at %s, had baked %s",
						s.node, zones[z], s.at.Format(time.TimeOnly), m, zones[zoneOf[m]], a.Format(time.TimeOnly), bake)
				}
			}
		}
		return ""
	}
}

// TestCompanionZoneWaves: the companion rolls an OnDelete DaemonSet over 24
// nodes in three zones in waves: order-by and domain the zone label,
// domain-max-unavailable 1 (max-unavailable 2 in all), wave-bake 5s,
// minReadySeconds 2. On every pod event: never more than one desired node
// of a zone without an available pod, and no node of a zone started before
// every node of the zones before is updated, available and baked, judged
// from the pods' Ready condition and minReadySeconds.
//
// Before the template change, dsplan simulate in live mode (a real client
// on this cluster) predicts each node's wave and the durations; after the
// rollout the prediction is compared with the observed waves (they must
// match exactly) and durations. dsplan rollout status runs beside the
// rollout and must exit 0 once it is complete, having printed its progress
// per wave.
func TestCompanionZoneWaves(t *testing.T) {
	e, nodes := startCompanionScenario(t, []string{"zone-a", "zone-b", "zone-c"}, 8)
	const minReady, bake = 2 * time.Second, 5 * time.Second
	e.createDaemonSet(newDaemonSet("agent", onDelete(), func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = int32(minReady / time.Second) },
		annotate(map[string]string{
			progressive.AnnotationMaxUnavailable:       "2",
			progressive.AnnotationOrderBy:              zoneLabel,
			progressive.AnnotationOrderValues:          "zone-b",
			progressive.AnnotationDomain:               zoneLabel,
			progressive.AnnotationDomainMaxUnavailable: "1",
			progressive.AnnotationWaveBake:             bake.String(),
			progressive.AnnotationProgressDeadline:     "10m",
		})))
	e.converge("agent", names(nodes), 3*time.Minute)
	e.waitRolledOut("companion reports generation 1 complete", "agent", names(nodes), 2*time.Minute)

	// The preview, before the template change: what the controller will do.
	// kwok removes a deleted pod at once: the simulation's grace is 1s.
	pv := e.previewRollout("agent", "--image", "example.invalid/agent:v2", "--grace", "1s")
	if pv.Outcome != "Converged" {
		t.Fatalf("the preview did not converge: %s %s", pv.Outcome, pv.Reason)
	}
	if pv.Rollout == nil || pv.Rollout.Annotations[progressive.AnnotationWaveBake] != bake.String() || pv.WaveBake != bake.String() {
		t.Errorf("the preview did not read the annotations: rollout %+v, waveBake %q", pv.Rollout, pv.WaveBake)
	}
	predicted := pv.waveOf()
	var wantWaves []string
	for _, w := range pv.PlannedWaves {
		wantWaves = append(wantWaves, w.Name)
	}
	if want := []string{zoneLabel + "=zone-b", zoneLabel + "=zone-a", zoneLabel + "=zone-c"}; !slices.Equal(wantWaves, want) {
		t.Errorf("planned waves %q, want %q", wantWaves, want)
	}

	oldHash := e.currentHash(e.daemonSet("agent"))
	obs := newWaveObservation()
	m := e.startMonitor(zoneWavesCheck("agent", oldHash, nodes, []string{"zone-b", "zone-a", "zone-c"}, 1, minReady, bake, obs))
	start := time.Now()
	e.setImage("agent", "example.invalid/agent:v2")
	ks := e.recordKstatus("agent")
	status := e.rolloutStatus("agent", "--timeout", "15m")
	e.waitRolledOut("rollout to v2 complete", "agent", names(nodes), 12*time.Minute)
	took := time.Since(start)
	violations, events := m.stopAndFailOnViolations(t)
	e.waitKstatus(ks, kstatus.CurrentStatus, 20*time.Second)
	reportKstatus(t, ks, "zone-waves", kstatus.InProgressStatus, kstatus.CurrentStatus)

	// dsplan rollout status saw it through.
	if status.waitOrFail(t, 2*time.Minute, "the rollout's end") {
		if status.code != 0 {
			t.Errorf("dsplan rollout status: exit %d, want 0\n%s%s", status.code, status.stdout, status.stderr)
		}
		lines := strings.Split(strings.TrimSpace(status.stdout), "\n")
		if !strings.Contains(status.stdout, "waves by "+zoneLabel) || !strings.Contains(status.stdout, "wave "+zoneLabel+"=zone-b") ||
			!strings.Contains(lines[len(lines)-1], "rollout complete") {
			t.Errorf("dsplan rollout status printed no progress per wave or no end:\n%s", status.stdout)
		}
		t.Logf("companion-zone-waves: dsplan rollout status exited %d after %s, %d lines; first and last:\n%s\n%s",
			status.code, status.took.Round(100*time.Millisecond), len(lines), strings.Join(lines[:min(4, len(lines))], "\n"), strings.Join(lines[max(0, len(lines)-3):], "\n"))
	}

	// Prediction vs reality.
	zoneOf := map[string]string{}
	for _, n := range nodes {
		zoneOf[n.name] = n.labels[zoneLabel]
	}
	observed := obs.observedWaves(zoneOf)
	inWave := 0
	var wrong []string
	for _, n := range names(nodes) {
		if p, ok := predicted[n]; ok && p == observed[n] {
			inWave++
		} else {
			wrong = append(wrong, fmt.Sprintf("%s predicted %d observed %d", n, p, observed[n]))
		}
	}
	t.Logf("preview: %d/%d nodes in their predicted wave", inWave, len(nodes))
	if inWave != len(nodes) {
		t.Errorf("nodes outside their predicted wave: %s", strings.Join(wrong, "; "))
	}
	order := pv.startOrder()
	obs.mu.Lock()
	samePlace := 0
	for i, n := range obs.order {
		if i < len(order) && order[i] == n {
			samePlace++
		}
	}
	observedOrder := slices.Clone(obs.order)
	obs.mu.Unlock()
	t.Logf("preview: %d/%d nodes started at their predicted place in the order (predicted %s; observed %s)",
		samePlace, len(nodes), strings.Join(order, " "), strings.Join(observedOrder, " "))
	t.Logf("preview: predicted duration p50 %s – p90 %s (delays learned from %d pods: creation to Ready p50 %s, p90 %s), observed %s",
		pv.Estimate.DurationP50, pv.Estimate.DurationP90, pv.Estimate.Pods, pv.Estimate.ReadyP50, pv.Estimate.ReadyP90, took.Round(time.Second))
	var groups [][]string
	for _, w := range pv.PlannedWaves {
		groups = append(groups, w.Nodes)
	}
	// The API server's timestamps are whole seconds: so is the start.
	for i, o := range obs.waveTimes(groups, start.Truncate(time.Second)) {
		w := pv.PlannedWaves[i]
		t.Logf("preview: wave %s: predicted start %s, done %s, takes %s; observed %s", w.Name, w.Start, w.Done, w.Duration, o)
	}
	if len(observedOrder) != len(nodes) {
		t.Errorf("%d nodes started, want %d", len(observedOrder), len(nodes))
	}
	t.Logf("companion-zone-waves: 24 nodes, 3 zones, domain-max-unavailable 1, wave-bake %s, minReadySeconds %s: rolled out in %s, %d pod events checked",
		bake, minReady, took.Round(100*time.Millisecond), events)
	compWrites := withoutReads(e.auditOf(companionUser))
	if compWrites["delete pods"] != len(nodes) {
		t.Errorf("the companion deleted %d pods, want %d (each old pod once)", compWrites["delete pods"], len(nodes))
	}
	addRow(row{scenario: "companion-zone-waves", controller: "companion+upstream",
		outcome: outcome{placement: placementOf(e.pods(), "agent"), status: e.daemonSet("agent").Status, converge: took,
			writes: mergeWrites(e.writes(), compWrites), violations: violations, events: events}})
}
