package livecmd

import (
	"fmt"
	"strings"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// progressLine is the progress line of a judgement: the desired nodes in
// the scope updated and available (those outside it said apart, as the
// companion's condition says them), per wave of the order label, and what
// the rollout waits for.
func progressLine(j progressive.Judgement, label string) string {
	s := doneCount(j)
	if len(j.Waves) > 0 {
		parts := make([]string, len(j.Waves))
		for i, w := range j.Waves {
			parts[i] = fmt.Sprintf("%s %d/%d", strings.TrimPrefix(w.Wave, label+"="), w.Updated, w.Desired)
		}
		s += " (waves by " + label + ": " + strings.Join(parts, ", ") + ")"
	}
	return s + "; " + j.Reason.String()
}
