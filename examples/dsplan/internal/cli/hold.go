package cli

import (
	"fmt"
	// A program may run where there is no zoneinfo (a distroless image);
	// the maintenance windows' time zones come from the binary then.
	_ "time/tzdata"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// HoldText says what holds the rollout of the DaemonSet key beyond its
// plan, "" when nothing does: the library's words (progressive.Hold.String)
// and, for an approval point, the command that approves it (program is
// "kubectl dsplan" or "dsplan"), as the companion's condition says it.
// rollout status, rollout approve and explain say a hold so.
func HoldText(h progressive.Hold, program, key string) string {
	switch h.Cause {
	case progressive.HoldNone:
		return ""
	case progressive.HoldApproval:
		return fmt.Sprintf("%s (%s rollout approve %s)", h, program, key)
	}
	return h.String()
}
