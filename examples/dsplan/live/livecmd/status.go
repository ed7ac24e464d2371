package livecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/whatif"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/cli"
	"github.com/daemonplan/daemonplan/rollout"
)

// The exit codes of "rollout status", after dsplan's 0, 1 and 2.
const (
	statusComplete = 0
	// statusError: also an annotation naming nothing of the cluster
	// (progressive.HoldUnresolved): the rollout is held.
	statusError = 1
	statusUsage = 2
	// statusBlocked: the DaemonSet's RolloutBlocked condition is True for
	// its current generation (the companion stopped the rollout at its
	// progress deadline or a health gate), or, when no controller reports
	// conditions, a health gate fails (progressive.HoldHealthGate).
	statusBlocked = 3
	// statusDeadline: no node became updated and available for the
	// progress deadline, as rollout status measured it itself.
	statusDeadline = 4
	// statusTimeout: --timeout passed first.
	statusTimeout = 5
	// statusWaiting: the rollout waits for a person's approval after a
	// wave (progressive.HoldApproval); rollout approve gives it.
	statusWaiting = 6
	// statusRolledBack: the template was rolled back from the change
	// (on-failure: rollback, or rollout undo; progressive.Outcome of
	// OutcomeRolledBack, still holding): the change failed, whatever the
	// restored revision does.
	statusRolledBack = 7
	// statusSkew: the plan stops at a template skew (the cluster is newer
	// than this build), as plan's, explain's and simulate's exit 8.
	statusSkew = 8
)

// latchReasons are the RolloutPaused reasons of a pause the companion
// took itself and keeps until a person acts (a new template, or a change
// of the paused annotation: rollout resume).
var latchReasons = []string{progressive.ReasonProgressDeadlineExceeded, progressive.ReasonHealthGateFailed}

// statusFlags are the flags of "rollout status" (the kubeconfig flags are
// the root command's).
type statusFlags struct {
	timeout  time.Duration
	deadline time.Duration
}

func (f *statusFlags) register(fs *pflag.FlagSet) {
	fs.DurationVar(&f.timeout, "timeout", 0, "give up after `DURATION` (exit 5; default 0: wait as long as it takes)")
	fs.DurationVar(&f.deadline, "progress-deadline", 0, "exit 4 when no node becomes updated and available for `DURATION` (default: the progress-deadline annotation, when no controller reports the rollout's conditions)")
}

// statusCommand is "rollout status NS/NAME".
func statusCommand(lf *liveFlags, stdout io.Writer, program string, conn connector) *cobra.Command {
	sf := &statusFlags{}
	status := &cobra.Command{
		Use:     "status NAMESPACE/NAME",
		Short:   "wait until a DaemonSet's rollout is complete under its policy",
		Long:    strings.ReplaceAll(statusHelp, "kubectl dsplan", program),
		Example: strings.ReplaceAll(statusExample, "kubectl dsplan", program),
		RunE: func(c *cobra.Command, pos []string) error {
			return runStatus(pos, sf, lf, stdout, program, conn)
		},
	}
	sf.register(status.Flags())
	return withExitCodes(status, statusExitCodes)
}

// runStatus is "rollout status NS/NAME".
func runStatus(pos []string, sf *statusFlags, lf *liveFlags, stdout io.Writer, program string, conn connector) error {
	t, err := parseTarget(pos)
	if err != nil {
		return err
	}
	if sf.timeout < 0 || sf.deadline < 0 {
		return cli.UsageError("--timeout and --progress-deadline must not be negative")
	}
	cs, where, err := conn(lf)
	if err != nil {
		return &cli.ExitError{Code: statusError, Err: err}
	}
	ctx := context.Background()
	if sf.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sf.timeout)
		defer cancel()
	}
	if where == "" {
		where = "the cluster"
	} else {
		where = "context " + where
	}
	w := &statusWatch{cs: cs, ns: t.ns, name: t.name, deadline: sf.deadline, out: stdout, program: program, clock: time.Now}
	code, msg := w.run(ctx, where)
	if code == statusComplete {
		fmt.Fprintf(stdout, "%s\n", msg)
		return nil
	}
	return &cli.ExitError{Code: code, Err: errors.New(msg)}
}

// statusWatch follows one DaemonSet's rollout.
type statusWatch struct {
	cs       kubernetes.Interface
	ns, name string
	deadline time.Duration
	out      io.Writer
	// program names the command in what it prints ("kubectl dsplan").
	program string
	clock   func() time.Time

	start time.Time
	// resumed is the last moment the rollout was seen paused or held by a
	// gate, from which the progress deadline counts again (zero: never).
	resumed time.Time
	last    string
}

// run follows the rollout until it is complete, blocked, past a deadline or
// ctx is done, and returns the exit code and the closing message.
func (w *statusWatch) run(ctx context.Context, where string) (int, string) {
	w.start = w.clock()
	// One read first, so that a cluster that cannot be reached or a
	// DaemonSet that does not exist is an error at once, not an informer
	// retrying forever.
	getCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	_, err := w.cs.AppsV1().DaemonSets(w.ns).Get(getCtx, w.name, metav1.GetOptions{})
	cancel()
	switch {
	case apierrors.IsNotFound(err):
		return statusError, fmt.Sprintf("daemonset %s/%s not found (%s)", w.ns, w.name, where)
	case err != nil && ctx.Err() != nil:
		return statusTimeout, fmt.Sprintf("timed out reading daemonset %s/%s: %v", w.ns, w.name, err)
	case err != nil:
		return statusError, fmt.Sprintf("daemonset %s/%s (%s): %v", w.ns, w.name, where, err)
	}
	nsFactory := informers.NewSharedInformerFactoryWithOptions(w.cs, 0, informers.WithNamespace(w.ns))
	nodeFactory := informers.NewSharedInformerFactory(w.cs, 0)
	dsInf := nsFactory.Apps().V1().DaemonSets()
	podInf := nsFactory.Core().V1().Pods()
	revInf := nsFactory.Apps().V1().ControllerRevisions()
	nodeInf := nodeFactory.Core().V1().Nodes()
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	h := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { poke() },
		UpdateFunc: func(any, any) { poke() },
		DeleteFunc: func(any) { poke() },
	}
	for _, inf := range []cache.SharedIndexInformer{dsInf.Informer(), podInf.Informer(), revInf.Informer(), nodeInf.Informer()} {
		if _, err := inf.AddEventHandler(h); err != nil {
			return statusError, err.Error()
		}
	}
	stop := make(chan struct{})
	nsFactory.Start(stop)
	nodeFactory.Start(stop)
	defer func() {
		// Shutdown waits for the informers, which stop once stop is
		// closed.
		close(stop)
		nsFactory.Shutdown()
		nodeFactory.Shutdown()
	}()
	for typ, ok := range nsFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return w.notSynced(ctx, typ.String())
		}
	}
	for typ, ok := range nodeFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return w.notSynced(ctx, typ.String())
		}
	}
	fmt.Fprintf(w.out, "waiting for the rollout of daemonset %s/%s (%s)\n", w.ns, w.name, where)
	// The judgement depends on time too (minReadySeconds, a wave's bake,
	// the deadline): judge again every second without a change.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		ds, err := dsInf.Lister().DaemonSets(w.ns).Get(w.name)
		switch {
		case apierrors.IsNotFound(err):
			return statusError, fmt.Sprintf("daemonset %s/%s not found", w.ns, w.name)
		case err != nil:
			return statusError, err.Error()
		}
		pods, err := podInf.Lister().Pods(w.ns).List(labels.Everything())
		if err != nil {
			return statusError, err.Error()
		}
		revs, err := revInf.Lister().ControllerRevisions(w.ns).List(labels.Everything())
		if err != nil {
			return statusError, err.Error()
		}
		nodes, err := nodeInf.Lister().List(labels.Everything())
		if err != nil {
			return statusError, err.Error()
		}
		if code, msg, done := w.judge(ds, nodes, pods, revs); done {
			return code, msg
		}
		select {
		case <-ctx.Done():
			return statusTimeout, fmt.Sprintf("timed out after %s: %s", w.since(), w.last)
		case <-changed:
			// Let a burst of events land before judging again.
			time.Sleep(100 * time.Millisecond)
		case <-tick.C:
		}
	}
}

func (w *statusWatch) notSynced(ctx context.Context, what string) (int, string) {
	if ctx.Err() != nil {
		return statusTimeout, fmt.Sprintf("timed out before %s could be listed", what)
	}
	return statusError, fmt.Sprintf("%s could not be listed and watched", what)
}

func (w *statusWatch) since() string {
	return w.clock().Sub(w.start).Round(time.Second).String()
}

// judge judges the rollout once; done is true when run should return code
// and msg.
func (w *statusWatch) judge(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, revs []*appsv1.ControllerRevision) (code int, msg string, done bool) {
	key := cache.NewObjectName(w.ns, w.name).String()
	if ds.DeletionTimestamp != nil {
		return statusError, fmt.Sprintf("daemonset %s is being deleted", key), true
	}
	now := w.clock()
	a, err := assess(ds, nodes, pods, revs, now)
	switch {
	case errors.Is(err, rollout.ErrTemplateSkew):
		return statusSkew, err.Error(), true
	case err != nil:
		return statusError, err.Error(), true
	}
	r, plan, j, hold := a.rollout, a.plan, a.judged, a.hold
	if hold.Cause == progressive.HoldUnresolved {
		// A typo must not read as a rollout under way, nor as a complete
		// one: the control it names is not there.
		return statusError, fmt.Sprintf("daemonset %s: rollout held, no old pod is replaced: %s", key, cli.HoldText(hold, w.program, key)), true
	}
	reason := j.Reason
	line := progressLine(j, r.Policy.Order.Label)
	if !j.Complete && hold.Held() {
		// What the plan would do next does not happen while a gate holds
		// the rollout: say the gate instead.
		line = progressLine(j, r.Policy.Order.Label, cli.HoldText(hold, w.program, key))
	}
	if line != w.last {
		fmt.Fprintf(w.out, "[%6s] %s\n", w.since(), line)
		w.last = line
	}
	if o := rolledBack(r, ds, plan.Hash); o != nil {
		return statusRolledBack, fmt.Sprintf("daemonset %s: %s; the restored revision: %s; %s",
			key, rolledBackText(o, revs, ds), doneCount(j), acknowledgeHint(w.program, key)), true
	}
	if j.Complete {
		return statusComplete, fmt.Sprintf("daemonset %s: rollout complete: %s (generation %d, %s, %s)",
			key, reason, ds.Generation, doneCount(j), w.since()), true
	}
	reports := progressive.FindCondition(ds, progressive.ConditionProgressing) != nil
	if b := progressive.FindCondition(ds, progressive.ConditionBlocked); b != nil && b.Status == corev1.ConditionTrue && w.forGeneration(ds) {
		return statusBlocked, fmt.Sprintf("daemonset %s: RolloutBlocked (%s): %s", key, b.Reason, b.Message), true
	}
	switch hold.Cause {
	case progressive.HoldHealthGate:
		// A controller that reports conditions decides (its RolloutBlocked
		// condition, above); without one, the gate itself.
		if !reports {
			return statusBlocked, fmt.Sprintf("daemonset %s: blocked: %s", key, cli.HoldText(hold, w.program, key)), true
		}
	case progressive.HoldApproval:
		// A person must act: exit at once, so that a pipeline can approve.
		return statusWaiting, fmt.Sprintf("daemonset %s: %s", key, cli.HoldText(hold, w.program, key)), true
	}
	deadline := w.deadline
	if deadline == 0 && r.Annotations != nil && !reports {
		deadline = r.Annotations.ProgressDeadline
	}
	paused := r.Policy.Paused
	if p := progressive.FindCondition(ds, progressive.ConditionPaused); p != nil && p.Status == corev1.ConditionTrue {
		paused = true
	}
	if paused || hold.Held() {
		// No progress is due while paused or held (a window reopens by
		// itself): the deadline counts from when that ends.
		w.resumed = now
	}
	if deadline > 0 && !paused && !hold.Held() {
		from := w.start
		if w.resumed.After(from) {
			from = w.resumed
		}
		if exceeded, _ := j.Deadline(from, deadline, now); exceeded {
			cause := "no node is unavailable"
			if u := whatif.UnavailableIn(r.DaemonSet, plan.Standing); len(u.Nodes) > 0 {
				var parts []string
				for i, n := range u.Nodes {
					if i == 5 {
						parts = append(parts, fmt.Sprintf("and %d more", len(u.Nodes)-5))
						break
					}
					parts = append(parts, fmt.Sprintf("%s (%s)", n.NodeName, n.Cause))
				}
				cause = "unavailable: " + strings.Join(parts, ", ")
			}
			return statusDeadline, fmt.Sprintf("daemonset %s: no node became updated and available for %s (progress deadline): %s; %s",
				key, deadline, reason, cause), true
		}
	}
	return 0, "", false
}

// doneCount is "N/M nodes updated and available", with the nodes outside
// the scope said apart.
func doneCount(j progressive.Judgement) string {
	s := fmt.Sprintf("%d/%d nodes updated and available", j.Total.Updated, j.Total.Desired)
	if j.Total.Held > 0 {
		s += fmt.Sprintf(" (%d outside the scope)", j.Total.Held)
	}
	return s
}

// forGeneration reports whether the companion's conditions describe ds's
// current generation (progressive.ConditionGeneration of its
// RolloutProgressing condition). A RolloutBlocked condition left from an
// earlier template is not this rollout's.
func (w *statusWatch) forGeneration(ds *appsv1.DaemonSet) bool {
	gen, ok := progressive.ConditionGeneration(progressive.FindCondition(ds, progressive.ConditionProgressing))
	return ok && gen == ds.Generation
}
