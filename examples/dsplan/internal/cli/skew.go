package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// A template skew (daemon.Plan.TemplateSkew): a DaemonSet's newest
// ControllerRevision holds fields of the pod template this build's
// k8s.io/api types do not know, so the template it decoded from the input
// cannot be matched to the revision the cluster's controller recorded.
// plan, explain and simulate print a warning for that DaemonSet, plan or
// simulate nothing of it, and exit 8 (exitSkew) unless another failure
// exits 1.

// skewed reports whether r's plan stopped at a template skew.
func (r result) skewed() bool { return r.plan.TemplateSkew != nil }

// skewWarning is the line that says so for the DaemonSet name.
func skewWarning(name string, skew *rollout.TemplateSkewError, what string) string {
	return fmt.Sprintf("warning: DaemonSet %s: %s; no %s", name, skew, what)
}

// skewFailures returns the exit-8 error naming the DaemonSets whose plan
// stopped at a template skew; nil when none did.
func skewFailures(results []result) error {
	var skewed []string
	for _, r := range results {
		if r.skewed() {
			skewed = append(skewed, r.name)
		}
	}
	return skewError(skewed)
}

// skewError is the exit-8 error naming the skewed DaemonSets; nil when
// there are none.
func skewError(skewed []string) error {
	if len(skewed) == 0 {
		return nil
	}
	return &ExitError{Code: exitSkew, Err: fmt.Errorf("no plan for %s: this build does not know fields of the template; upgrade dsplan",
		strings.Join(skewed, ", "))}
}

// templateSkew returns the template skew of the first sync of c's
// DaemonSet, nil when there is none: simulate asks before it runs.
func templateSkew(c *simulate.Cluster) *rollout.TemplateSkewError {
	plan, err := daemon.Compute(c.DaemonSet, c.Nodes, c.Pods, daemon.Options{Now: c.Now, Revisions: c.Revisions})
	if !errors.Is(err, rollout.ErrTemplateSkew) {
		return nil
	}
	return plan.TemplateSkew
}

// skewedError is simulateOne's answer for a DaemonSet whose first sync
// stops at a template skew: nothing was simulated.
type skewedError struct {
	name string
	skew *rollout.TemplateSkewError
}

func (e *skewedError) Error() string { return skewWarning(e.name, e.skew, "simulation") }

// addSkewed appends err to skewed when it is a *skewedError, and says
// whether it was.
func addSkewed(skewed *[]*skewedError, err error) bool {
	var se *skewedError
	if !errors.As(err, &se) {
		return false
	}
	*skewed = append(*skewed, se)
	return true
}

// printSkewed prints the warning of each skewed DaemonSet.
func printSkewed(w io.Writer, skewed []*skewedError) {
	for _, e := range skewed {
		fmt.Fprintln(w, e.Error())
	}
}

// skewedExit is the exit-8 error naming the skewed DaemonSets.
func skewedExit(skewed []*skewedError) error {
	names := make([]string, len(skewed))
	for i, e := range skewed {
		names[i] = e.name
	}
	return skewError(names)
}
