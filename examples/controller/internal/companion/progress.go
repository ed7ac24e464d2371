package companion

import (
	"fmt"
	"strings"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// The companion reports where a rollout stands, in its conditions, events
// and metrics, from the library's judgement of the plan it acts on
// (progressive.Judge): counts over the desired nodes in the policy's
// scope, per wave when the policy orders by a label. It counts nothing
// itself, so that its numbers are those of every other program that
// judges the same plan (kubectl dsplan rollout status).

// waveName names a wave (progressive.Tally.Wave, "<label>=<value>" or
// "!<label>", or daemon.CanaryWave or daemon.RestWave) for people: "zone
// us-east-1b", "nodes without zone", "canary", "rest".
func waveName(w string) string {
	short := func(label string) string { return label[strings.LastIndexByte(label, '/')+1:] }
	if label, ok := strings.CutPrefix(w, "!"); ok {
		return "nodes without " + short(label)
	}
	label, value, ok := strings.Cut(w, "=")
	if !ok {
		return w
	}
	return short(label) + " " + value
}

// summary says where the rollout judged j is, for people: "zone
// us-east-1b: 4/10 updated (wave 2 of 3); 14/30 nodes updated; waiting for
// w-15 to become available". A complete rollout (complete at a partition
// too) names no current wave; nodes the partition keeps on the old
// revision are named when there are some.
func summary(j progressive.Judgement) string {
	var parts []string
	if i := j.Current(); i >= 0 && !j.Complete {
		w := j.Waves[i]
		parts = append(parts, fmt.Sprintf("%s: %d/%d updated (wave %d of %d)", waveName(w.Wave), w.Updated, w.Desired, i+1, len(j.Waves)))
	}
	total := fmt.Sprintf("%d/%d nodes updated", j.Total.Updated, j.Total.Desired)
	if j.Total.Held > 0 {
		total += fmt.Sprintf(" (%d outside the scope)", j.Total.Held)
	}
	parts = append(parts, total)
	if len(j.Waiting) > 0 {
		parts = append(parts, "waiting for "+nodeList(j.Waiting, 3)+" to become available")
	}
	if j.Total.Kept > 0 {
		parts = append(parts, fmt.Sprintf("the partition keeps %d on the old revision", j.Total.Kept))
	}
	return strings.Join(parts, "; ")
}

// wavesDone is the number of waves of j whose desired nodes in scope are
// all updated.
func wavesDone(j progressive.Judgement) int {
	n := 0
	for _, w := range j.Waves {
		if w.Done() {
			n++
		}
	}
	return n
}

// nodeList names up to n nodes, then how many more there are.
func nodeList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
