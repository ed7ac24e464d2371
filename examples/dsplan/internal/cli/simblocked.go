package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// deadlineStop is when the companion would stop a rollout that ends
// Stalled or Blocked at its progress-deadline annotation, on the
// simulation's clock.
type deadlineStop struct {
	deadline time.Duration
	// at is the time after the start: progressive.Judgement.Deadline of
	// the run's final judgement, its progress clock started at the start
	// of the simulation (when the companion first looks, or the revision
	// is created).
	at time.Duration
	// cause and message are the RolloutBlocked condition's reason and
	// message (progressive.Stopped).
	cause   progressive.StopCause
	message string
}

// stopAt is when and why the companion would stop the rollout of res at
// deadline d: nil when d is 0 or the run converged or hit the step limit
// (the judgement is of the last sync only).
func stopAt(cl *simulate.Cluster, res simulate.Result, d time.Duration) *deadlineStop {
	if d <= 0 || (res.Outcome != simulate.OutcomeStalled && res.Outcome != simulate.OutcomeBlocked) || res.Final == nil {
		return nil
	}
	// The companion's arithmetic: the deadline from the latest of the
	// start and the last updated pod becoming available. Asked at the
	// start, the time left is the stop's time after it.
	exceeded, at := res.Judgement.Deadline(cl.Now, d, cl.Now)
	if exceeded || at <= 0 {
		return nil
	}
	in := res.Final.Input()
	opts := in.Options
	opts.ReportStanding = true
	plan, _ := daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, opts)
	cause, msg := progressive.Stopped(plan.Standing)
	return &deadlineStop{deadline: d, at: at, cause: cause, message: msg}
}

// printBlocking names the nodes and pods that block the run, and says what
// to assume to see the rollout that would follow.
func (r *simReport) printBlocking(w io.Writer) {
	res := r.res
	if len(r.assumed) > 0 {
		fmt.Fprintf(w, "  assumed: Ready from now, with their pods: %s\n", listSome(r.assumed))
	}
	if len(r.excluded) > 0 {
		fmt.Fprintf(w, "  assumed: NotReady nodes left out, with their pods: %s\n", listSome(r.excluded))
	}
	if len(res.Blocking) == 0 || res.Gate.Held() {
		return // a health gate names its own pods (printGates)
	}
	what := "also held by the cluster:"
	if res.Outcome == simulate.OutcomeBlocked && !res.Gate.Held() {
		what = "blocked by the cluster, not by the rollout:"
	}
	fmt.Fprintf(w, "  %s\n", what)
	var nodes []string
	notReady := false
	for i, b := range res.Blocking {
		nodes = append(nodes, b.Node)
		notReady = notReady || b.Cause == whatif.CauseNodeNotReady
		switch {
		case i < maxBlockerLines:
			fmt.Fprintf(w, "    %s\n", blockerLine(b))
		case i == maxBlockerLines:
			fmt.Fprintf(w, "    ... and %d more (-o json lists them all)\n", len(res.Blocking)-i)
		}
	}
	fmt.Fprintf(w, "  to see the rollout that would follow: --assume-ready %s", strings.Join(nodes[:min(len(nodes), maxBlockerLines)], ","))
	if notReady {
		fmt.Fprint(w, ", or --exclude-not-ready")
	}
	fmt.Fprintln(w)
}

// maxBlockerLines is how many blocking nodes the text names.
const maxBlockerLines = 10

// blockerLine says what holds one node.
func blockerLine(b simulate.Blocker) string {
	var s string
	if b.Cause == whatif.CauseNodeNotReady {
		s = "node " + b.Node + " is NotReady"
		if b.Pod != "" {
			s += ": pod " + b.Pod + " cannot become available"
		}
	} else {
		s = "node " + b.Node + ": pod " + b.Pod + " is failing"
	}
	if b.Failing != "" {
		s += " (" + b.Failing + ")"
	}
	return s
}

// printStop says when the companion would stop the rollout at its
// progress deadline.
func (r *simReport) printStop(w io.Writer) {
	if st := r.stop; st != nil {
		fmt.Fprintf(w, "progress deadline %s: the companion would pause the rollout at %s, RolloutBlocked %s: %s\n",
			fmtDur(st.deadline), fmtDur(st.at), st.cause, st.message)
	}
}
