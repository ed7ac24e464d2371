package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/daemonplan/daemonplan/daemon/apply"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// Default delays, when neither a flag nor the pods give them.
const (
	defaultBindDelay  = 2 * time.Second
	defaultReadyDelay = 15 * time.Second
)

// simFlags are the flags of "dsplan simulate".
type simFlags struct {
	images                []string
	bindDelay, readyDelay durationFlag
	grace                 time.Duration
	failRate              float64
	seed                  uint64
	maxSteps              int
	svg                   string
	format                string
	// assume are --assume-ready and --exclude-not-ready: the trouble of
	// the cluster assumed gone (simulate.Assume).
	assume simulate.Assumptions
}

func simulateFlags(inv *invocation, fs *pflag.FlagSet) {
	s := &inv.sim
	fs.StringArrayVar(&s.images, "image", nil, "start a rollout: set images as kubectl set image does, `NAME=IMAGE` (a container or init container; *=IMAGE for all; IMAGE alone for the only container), repeatable; applied as the API server applies it (default: simulate the input as it is)")
	fs.Var(&s.bindDelay, "bind-delay", "time from a pod's creation to its binding, `DURATION` (default: learned from the pods, else 2s)")
	fs.Var(&s.readyDelay, "ready-delay", "time from a pod's creation to Ready, `DURATION` (default: learned from the pods, else 15s)")
	fs.DurationVar(&s.grace, "grace", 5*time.Second, "time from a delete to the pod's removal")
	fs.Float64Var(&s.failRate, "fail-rate", 0, "fraction of created pods that fail, 0 to 1")
	fs.Uint64Var(&s.seed, "seed", 1, "seed of the failures")
	fs.IntVar(&s.maxSteps, "max-steps", 2000, "syncs at most")
	fs.StringVar(&s.svg, "svg", "", "write charts of the rollout to `FILE` (SVG)")
	fs.StringVarP(&s.format, "output", "o", "text", "output `FORMAT`: text or json (see examples/dsplan/JSON.md)")
	fs.Var((*nodeList)(&s.assume.Ready), "assume-ready", "assume `NODE` healthy from now: Ready, its pods running and Ready (repeat or comma-separate; for a Blocked simulation)")
	fs.BoolVar(&s.assume.ExcludeNotReady, "exclude-not-ready", false, "leave the NotReady nodes and their pods out of the simulation (for a Blocked simulation)")
	inv.policy.register(fs, true)
}

// runSimulate is "dsplan simulate".
func runSimulate(inv *invocation, pos []string) error {
	sf := &inv.sim
	if err := inv.policy.check(); err != nil {
		return err
	}
	if err := noArgs(pos); err != nil {
		return err
	}
	switch {
	case sf.failRate < 0 || sf.failRate > 1:
		return &usageError{fmt.Sprintf("--fail-rate %v: want 0 to 1", sf.failRate)}
	case sf.readyDelay.d < 0 || sf.bindDelay.d < 0 || sf.grace < 0:
		return &usageError{"delays must be 0 or more"}
	case sf.readyDelay.set && sf.bindDelay.set && sf.readyDelay.d < sf.bindDelay.d:
		return &usageError{"--ready-delay must be at least --bind-delay"}
	case sf.maxSteps <= 0:
		return &usageError{"--max-steps must be positive"}
	case sf.format != "text" && sf.format != "json":
		return &usageError{fmt.Sprintf("-o %q: want text or json", sf.format)}
	}
	l, err := inv.common.load(inv.stdin)
	if err != nil {
		return err
	}
	var reports []*simReport
	var failed, blocked, gated, unresolved []string
	var skewed []*skewedError
	for _, name := range l.names {
		rep, err := simulateOne(l, name, inv.common.burst, sf, &inv.policy)
		var ue *usageError
		var ie *inputError
		switch {
		case addSkewed(&skewed, err):
			continue
		case errors.As(err, &ue) || errors.As(err, &ie):
			return err
		case err != nil:
			return &inputError{err}
		}
		reports = append(reports, rep)
		switch rep.res.Outcome {
		case simulate.OutcomeConverged:
		case simulate.OutcomeBlocked:
			if rep.res.Gate.Cause == progressive.HoldUnresolved {
				unresolved = append(unresolved, fmt.Sprintf("daemonset %s: rollout held, no old pod is replaced: %s", name, rep.res.Gate))
			} else if rep.res.Gate.Held() {
				gated = append(gated, name)
			} else {
				blocked = append(blocked, name)
			}
		default:
			failed = append(failed, name)
		}
	}
	stdout := inv.stdout
	if sf.format == "json" {
		out := make([]simulateJSON, len(reports))
		for i, r := range reports {
			out[i] = r.toJSON(l)
		}
		if err := writeData(stdout, "json", out); err != nil {
			return err
		}
	} else {
		l.header(stdout)
		printSkewed(stdout, skewed)
		for _, r := range reports {
			fmt.Fprintln(stdout)
			r.print(stdout)
		}
	}
	if sf.svg != "" {
		var charts []chartData
		for _, r := range reports {
			if r.chart != nil {
				charts = append(charts, *r.chart)
			}
		}
		if len(charts) > 0 {
			var b strings.Builder
			writeSVG(&b, charts)
			if err := os.WriteFile(sf.svg, []byte(b.String()), 0o644); err != nil {
				return &inputError{err}
			}
			if sf.format == "text" {
				fmt.Fprintf(stdout, "\nwrote %s\n", sf.svg)
			}
		}
	}
	if len(unresolved) > 0 {
		// A typo must not preview as a rollout: exit 1, as
		// "rollout status" and "explain" say it.
		return &inputError{errors.New(strings.Join(unresolved, "; "))}
	}
	if len(failed) > 0 {
		return &inputError{fmt.Errorf("%s did not converge", strings.Join(failed, ", "))}
	}
	if len(skewed) > 0 {
		return skewedExit(skewed)
	}
	var errs []error
	if len(gated) > 0 {
		errs = append(errs, fmt.Errorf("%s stopped by a health gate: a pod of the new revision fails (the companion would pause the rollout there)",
			strings.Join(gated, ", ")))
	}
	if len(blocked) > 0 {
		errs = append(errs, fmt.Errorf("%s blocked by NotReady nodes or failing pods, not by the rollout (--assume-ready NODE or --exclude-not-ready shows the rollout that would follow)",
			strings.Join(blocked, ", ")))
	}
	if len(errs) > 0 {
		return &ExitError{Code: exitBlocked, Err: errors.Join(errs...)}
	}
	return nil
}

// simReport is the simulation of one DaemonSet.
type simReport struct {
	name, image string
	// res is the run with the p50 delays (or the fixed ones); p90, when
	// the delays were learned, the run with the p90 delays.
	res, p90 simulate.Result
	delays   delays
	batches  []updateBatch
	groupBy  string
	blocks   []string
	chart    *chartData
	// planned are the waves of the order label (progressive.WavesOf of
	// the nodes the first sync's standing says should run the pod), before
	// the rollout starts; barrier is the wave barrier, when the policy has
	// one.
	planned []progressive.Wave
	barrier *rollout.WaveBarrier
	// timing is when each planned wave starts and is done, in the run
	// with the p50 delays (the same order as planned).
	timing []waveTiming
	// rollout is how the DaemonSet was planned: its rollout annotations
	// and the flags.
	rollout dsRollout
	// assumed are the nodes --assume-ready assumed Ready, excluded the
	// NotReady nodes --exclude-not-ready left out.
	assumed, excluded []string
	excludeNotReady   bool
	// stop is when the companion would stop the rollout at its
	// progress-deadline annotation, nil without one or when the run
	// converged (or a health gate stopped it first).
	stop *deadlineStop
	// gates are the gates of the rollout annotations the run applied
	// (simulate.Cluster.Gates), nil without annotations.
	gates *progressive.Gates
}

// delays are the delays a simulation used, and where they came from.
type delays struct {
	bind, ready     time.Duration // p50, or fixed
	bind90, ready90 time.Duration // p90, when learned
	learned         learned
	source          string // "learned", "flags" or "defaults"
	minReady, grace time.Duration
}

// chooseDelays picks the delays: the flags when set, else the pods'.
func chooseDelays(sf *simFlags, lr learned) delays {
	d := delays{learned: lr, grace: sf.grace}
	switch {
	case sf.readyDelay.set || sf.bindDelay.set:
		d.source = "flags"
		d.bind, d.ready = defaultBindDelay, defaultReadyDelay
		if sf.bindDelay.set {
			d.bind = sf.bindDelay.d
		}
		if sf.readyDelay.set {
			d.ready = sf.readyDelay.d
		}
		d.ready = max(d.ready, d.bind)
	case lr.pods >= minLearned:
		d.source = "learned"
		d.bind, d.ready, d.bind90, d.ready90 = lr.bindP50, lr.readyP50, lr.bindP90, lr.readyP90
	default:
		d.source = "defaults"
		d.bind, d.ready = defaultBindDelay, defaultReadyDelay
	}
	return d
}

// simulateOne replays the rollout of one DaemonSet, under the policy its
// rollout annotations and the flags give (see policyFlags.rolloutOf).
func simulateOne(l *loaded, name string, burst int, sf *simFlags, pf *policyFlags) (*simReport, error) {
	ns, n, _ := strings.Cut(name, "/")
	in, err := l.snap.For(ns, n)
	if err != nil {
		return nil, err
	}
	rep := &simReport{name: name, image: strings.Join(sf.images, ", ")}
	ds := in.DaemonSet
	if len(sf.images) > 0 {
		changed, err := apply.SetImages(ds, sf.images...)
		if err != nil {
			return nil, &usageError{fmt.Sprintf("--image: daemonset %q: %v", name, err)}
		}
		// As the API server applies it: generation and template
		// generation up by one.
		if ds, _, err = apply.Update(in.DaemonSet, changed); err != nil {
			return nil, fmt.Errorf("--image: daemonset %q: %w", name, err)
		}
	}
	if rep.rollout, err = pf.rolloutOf(ds, in.Nodes); err != nil {
		return nil, err
	}
	policy := rep.rollout.policy
	if rep.gates, err = gatesOf(&rep.rollout, name, l.now); err != nil {
		return nil, err
	}
	cl := &simulate.Cluster{
		DaemonSet:     rep.rollout.ds,
		Nodes:         in.Nodes,
		Pods:          in.Pods,
		Revisions:     in.Revisions,
		Now:           l.now,
		BurstReplicas: burst,
		Rollout:       policy,
		Gates:         rep.gates,
	}
	if len(sf.assume.Ready) > 0 || sf.assume.ExcludeNotReady {
		rep.assumed, rep.excludeNotReady = sf.assume.Ready, sf.assume.ExcludeNotReady
		if cl, rep.excluded, err = simulate.Assume(cl, sf.assume); err != nil {
			return nil, &usageError{"--assume-ready: " + strings.TrimPrefix(err.Error(), "assume ready: ")}
		}
	}
	if skew := templateSkew(cl); skew != nil {
		return nil, &skewedError{name: name, skew: skew} // nothing to simulate
	}
	rep.delays = chooseDelays(sf, learnDelays(in.DaemonSet, in.Pods))
	rep.delays.minReady = time.Duration(cl.DaemonSet.Spec.MinReadySeconds) * time.Second
	cfg := simulate.Config{
		Seed: sf.seed, BindDelay: rep.delays.bind, ReadyDelay: rep.delays.ready,
		FailFraction: sf.failRate, GracePeriod: sf.grace, MaxSteps: sf.maxSteps, Zones: zones,
	}
	rep.groupBy, rep.chart = groupLabel(&policy, cl), nil
	var rec *chartRecorder
	if sf.svg != "" {
		rec = newChartRecorder(name, cl, rep.groupBy, orderValues(&policy))
		cfg.OnStep = rec.record
	}
	rep.res = simulate.Run(cl, cfg)
	if rec != nil {
		rep.chart = rec.finish()
	}
	if rep.delays.source == "learned" && (rep.delays.ready90 != rep.delays.ready || rep.delays.bind90 != rep.delays.bind) {
		cfg.OnStep = nil
		cfg.BindDelay, cfg.ReadyDelay = rep.delays.bind90, rep.delays.ready90
		rep.p90 = simulate.Run(cl, cfg)
	} else {
		rep.p90 = rep.res
	}
	rep.batches = batchesOf(rep.res, cl, rep.groupBy)
	rep.planned, rep.barrier = plannedWavesOf(&policy, cl), policy.Waves
	if rep.barrier == nil && policy.Canary != nil {
		rep.barrier = &rollout.WaveBarrier{} // a canary turns the barrier on
	}
	rep.timing = timeWaves(rep.planned, rep.res, cl)
	rep.blocks = blocksOf(cl, rep.res)
	if rep.rollout.companion && !policy.Paused && !rep.res.Gate.Held() {
		rep.stop = stopAt(cl, rep.res, rep.rollout.parsed.ProgressDeadline)
	}
	return rep, nil
}

// print writes the report for people.
func (r *simReport) print(w io.Writer) {
	res := r.res
	if h := r.rollout.headline(); h != "" {
		fmt.Fprintf(w, "DaemonSet %s: %s\n", r.name, h)
	}
	fmt.Fprintf(w, "DaemonSet %s", r.name)
	if r.image != "" {
		fmt.Fprintf(w, ", image set to %s", r.image)
	}
	fmt.Fprintf(w, ": %s after %d syncs, %s\n", res.Outcome, len(res.Steps), fmtDur(res.Duration()))
	if res.Reason != "" {
		fmt.Fprintf(w, "  reason: %s\n", res.Reason)
	}
	r.printBlocking(w)
	if d := r.rollout.describe(); d != "" {
		fmt.Fprintf(w, "%s\n", d)
	}
	for _, warning := range r.rollout.warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	r.printGates(w)
	fmt.Fprintf(w, "expected duration: %s\n", r.estimateLine())
	r.printBatches(w)
	printSteps(w, res)
	pk := res.Peak()
	fmt.Fprintf(w, "worst point: %d nodes down", pk.MaxDown)
	if pk.MaxDownStep >= 0 {
		fmt.Fprintf(w, " at step %d (%s), maxUnavailable %d", pk.MaxDownStep, fmtDur(res.Steps[pk.MaxDownStep].At), pk.MaxUnavailable)
	} else {
		fmt.Fprint(w, " at the start")
	}
	fmt.Fprintf(w, "; %d nodes surging", pk.MaxSurge)
	if pk.MaxSurgeStep >= 0 {
		fmt.Fprintf(w, " at step %d, maxSurge %d", pk.MaxSurgeStep, pk.SurgeBudget)
	}
	fmt.Fprintln(w)
	if len(pk.OverBudget) > 0 {
		fmt.Fprintf(w, "over budget after steps %v\n", pk.OverBudget)
	}
	r.printStop(w)
	if res.Outcome != simulate.OutcomeConverged {
		fmt.Fprintf(w, "%s: the simulation ended %s: %s\n", r.name, res.Outcome, res.Reason)
	}
}

// estimateLine is the expected duration and where the delays came from.
func (r *simReport) estimateLine() string {
	d := r.delays
	var dur string
	if d.source == "learned" && r.p90.Duration() != r.res.Duration() {
		dur = fmt.Sprintf("p50 %s – p90 %s", fmtDur(r.res.Duration()), fmtDur(r.p90.Duration()))
	} else {
		dur = fmtDur(r.res.Duration())
	}
	if r.res.Outcome != simulate.OutcomeConverged {
		dur += " until it " + map[simulate.Outcome]string{simulate.OutcomeStalled: "stalls", simulate.OutcomeBlocked: "is blocked", simulate.OutcomeStepLimit: "hits --max-steps"}[r.res.Outcome]
	}
	dur += gatesNote(r.res)
	avail := ""
	if d.minReady > 0 {
		avail = fmt.Sprintf(", then minReadySeconds %s to available", fmtDur(d.minReady))
	}
	switch d.source {
	case "learned":
		return fmt.Sprintf("%s (learned from %d pods: creation to Ready p50 %s, p90 %s%s)", dur, d.learned.pods,
			fmtDur(d.learned.readyP50), fmtDur(d.learned.readyP90), avail)
	case "flags":
		return fmt.Sprintf("%s (--ready-delay %s, --bind-delay %s%s)", dur, fmtDur(d.ready), fmtDur(d.bind), avail)
	}
	why := "no pod to learn from"
	if d.learned.pods > 0 {
		why = fmt.Sprintf("only %d pods to learn from", d.learned.pods)
	}
	return fmt.Sprintf("%s (%s: ready %s after creation%s; --ready-delay sets it)", dur, why, fmtDur(d.ready), avail)
}

// printSteps prints the steps that acted, as a table.
func printSteps(w io.Writer, res simulate.Result) {
	t := newTable("", "STEP", "TIME", "CREATE", "DELETE", "UPDATED", "DOWN/MAX", "SURGE", "EVENTS")
	// UPDATED is the status of the sync (before its plan); DOWN and SURGE
	// are measured after it, against the step's budgets.
	for _, s := range res.Steps {
		if s.Creates == 0 && s.Deletes == 0 && len(s.Events) == 0 && s.Err == "" {
			continue
		}
		notes := slices.Clone(s.Events)
		for _, n := range s.FailedDeletes {
			notes = append(notes, "failed pod on "+n)
		}
		extra := strings.Join(notes, ", ")
		if s.Err != "" {
			extra = strings.TrimSpace(extra + " error: " + s.Err)
		}
		t.row(s.Step, fmtDur(s.At), s.Creates, s.Deletes, fmt.Sprintf("%d/%d", s.Updated, s.Desired),
			fmt.Sprintf("%d/%d", s.Down, s.Budgets.MaxUnavailable), fmt.Sprintf("%d/%d", s.Surge, s.Budgets.MaxSurge), extra)
	}
	_ = t.flush(w)
}

func fmtDur(d time.Duration) string {
	return d.Round(time.Second).String()
}
