package livecmd

import (
	"fmt"
	"strings"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// progressLine is the progress line of a judgement: the desired nodes in
// the scope updated and available (those outside it said apart, as the
// companion's condition says them), per wave (of the order label, after
// the canary), and what the rollout waits for: the judgement's reason, or
// holding when given (what holds the rollout beyond its plan).
func progressLine(j progressive.Judgement, label string, holding ...string) string {
	s := doneCount(j)
	if len(j.Waves) > 0 {
		parts := make([]string, len(j.Waves))
		for i, w := range j.Waves {
			parts[i] = fmt.Sprintf("%s %d/%d", strings.TrimPrefix(w.Wave, label+"="), w.Updated, w.Desired)
		}
		by := "waves"
		if label != "" {
			by += " by " + label
		}
		s += " (" + by + ": " + strings.Join(parts, ", ") + ")"
	}
	if len(holding) > 0 {
		return s + "; " + strings.Join(holding, "; ")
	}
	return s + "; " + j.Reason.String()
}
