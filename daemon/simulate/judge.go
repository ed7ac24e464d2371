package simulate

import (
	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// rolloutComplete plans in with its standing and judges the plan
// (progressive.Judge): whether the rollout under in.Options.Rollout is
// complete, and why.
func rolloutComplete(in Input) (bool, progressive.Reason, error) {
	opts := in.Options
	opts.ReportStanding = true
	plan, err := daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, opts)
	if err != nil {
		return false, progressive.Reason{}, err
	}
	j, err := progressive.Judge(in.DaemonSet, &plan)
	return j.Complete, j.Reason, err
}
