package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/rollout"
)

// simFlags are the flags of "dsplan simulate".
type simFlags struct {
	image                 string
	bindDelay, readyDelay time.Duration
	grace                 time.Duration
	failRate              float64
	seed                  uint64
	maxSteps              int
	svg                   string
	policy                daemon.RolloutPolicy // from the rollout-control flags
}

func (s *simFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.image, "image", "", "start a rollout: set the first container's `IMAGE` (default: simulate the input as it is)")
	fs.DurationVar(&s.bindDelay, "bind-delay", 2*time.Second, "time from a pod's creation to its binding")
	fs.DurationVar(&s.readyDelay, "ready-delay", 15*time.Second, "time from a pod's creation to Ready")
	fs.DurationVar(&s.grace, "grace", 5*time.Second, "time from a delete to the pod's removal")
	fs.Float64Var(&s.failRate, "fail-rate", 0, "fraction of created pods that fail, 0 to 1")
	fs.Uint64Var(&s.seed, "seed", 1, "seed of the failures")
	fs.IntVar(&s.maxSteps, "max-steps", 2000, "syncs at most")
	fs.StringVar(&s.svg, "svg", "", "write charts of the rollout to `FILE` (SVG)")
}

// runSimulate is "dsplan simulate".
func runSimulate(args []string, stdin io.Reader, stdout, stderr io.Writer, opts Options) error {
	fs := newFlagSet("simulate", stderr)
	c := common{opts: opts}
	c.register(fs)
	var sf simFlags
	sf.register(fs)
	var pf policyFlags
	pf.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if sf.policy, err = pf.policy(); err != nil {
		return err
	}
	if len(pos) > 0 {
		return &usageError{fmt.Sprintf("unexpected argument %q", pos[0])}
	}
	if sf.failRate < 0 || sf.failRate > 1 {
		return &usageError{fmt.Sprintf("--fail-rate %v: want 0 to 1", sf.failRate)}
	}
	if sf.readyDelay < sf.bindDelay || sf.bindDelay < 0 || sf.grace < 0 {
		return &usageError{"delays must be 0 or more, --ready-delay at least --bind-delay"}
	}
	if sf.maxSteps <= 0 {
		return &usageError{"--max-steps must be positive"}
	}
	l, err := c.load(stdin)
	if err != nil {
		return err
	}
	l.header(stdout)
	var failed []string
	var charts []chartData
	for _, name := range l.names {
		fmt.Fprintln(stdout)
		cd, err := simulateOne(stdout, l, name, c.burst, sf)
		if err != nil {
			fmt.Fprintf(stdout, "%s: %v\n", name, err)
			failed = append(failed, name)
		}
		if cd != nil {
			charts = append(charts, *cd)
		}
	}
	if sf.svg != "" && len(charts) > 0 {
		var b strings.Builder
		writeSVG(&b, charts)
		if err := os.WriteFile(sf.svg, []byte(b.String()), 0o644); err != nil {
			return &inputError{err}
		}
		fmt.Fprintf(stdout, "\nwrote %s\n", sf.svg)
	}
	if len(failed) > 0 {
		return &inputError{fmt.Errorf("%s did not converge", strings.Join(failed, ", "))}
	}
	return nil
}

// simulateOne replays the rollout of one DaemonSet and prints its waves.
func simulateOne(w io.Writer, l *loaded, name string, burst int, sf simFlags) (*chartData, error) {
	ns, n, _ := strings.Cut(name, "/")
	in, err := l.snap.For(ns, n)
	if err != nil {
		return nil, err
	}
	cl := &daemontest.Cluster{
		DaemonSet:     in.DaemonSet.DeepCopy(),
		Nodes:         in.Nodes,
		Pods:          in.Pods,
		Revisions:     in.Revisions,
		Now:           l.now,
		BurstReplicas: burst,
		Rollout:       sf.policy,
	}
	if sf.image != "" {
		if len(cl.DaemonSet.Spec.Template.Spec.Containers) == 0 {
			return nil, fmt.Errorf("--image: daemonset %q: spec.template.spec.containers is empty", name)
		}
		cl.DaemonSet.Spec.Template.Spec.Containers[0].Image = sf.image
		cl.DaemonSet.Generation++
	}
	cfg := daemontest.SimConfig{
		Seed: sf.seed, BindDelay: sf.bindDelay, ReadyDelay: sf.readyDelay,
		FailFraction: sf.failRate, GracePeriod: sf.grace, MaxSteps: sf.maxSteps,
	}
	res := daemontest.Simulate(cl, cfg)
	fmt.Fprintf(w, "DaemonSet %s", name)
	if sf.image != "" {
		fmt.Fprintf(w, ", image set to %s", sf.image)
	}
	fmt.Fprintf(w, ": %s after %d syncs, %s\n", res.Outcome, len(res.Steps), fmtDur(res.Duration()))
	if res.Reason != "" {
		fmt.Fprintf(w, "  reason: %s\n", res.Reason)
	}
	printWaves(w, res)
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
	var cd *chartData
	if sf.svg != "" {
		cd = chart(name, cl, cfg, res)
	}
	if res.Outcome != daemontest.OutcomeConverged {
		return cd, fmt.Errorf("the simulation ended %s: %s", res.Outcome, res.Reason)
	}
	return cd, nil
}

// printWaves prints the steps that acted, as a table.
func printWaves(w io.Writer, res daemontest.SimResult) {
	fmt.Fprintf(w, "%5s %8s %7s %7s %8s %10s %8s  %s\n", "STEP", "TIME", "CREATE", "DELETE", "UPDATED", "DOWN/MAX", "SURGE", "EVENTS")
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
		row := fmt.Sprintf("%5d %8s %7d %7d %4d/%-3d %6d/%-3d %4d/%-3d  %s", s.Step, fmtDur(s.At), s.Creates, s.Deletes,
			s.Updated, s.Desired, s.Down, s.Budgets.MaxUnavailable, s.Surge, s.Budgets.MaxSurge, extra)
		fmt.Fprintln(w, strings.TrimRight(row, " "))
	}
}

func fmtDur(d time.Duration) string {
	return d.Round(time.Second).String()
}

// nodeState is a node's pod state at one step, for the chart.
type nodeState uint8

const (
	stateNone        nodeState = iota // no pod, and none wanted
	stateOld                          // an available pod of an old template
	stateNew                          // an available pod of the current template
	stateSurge                        // more than one pod
	stateUnavailable                  // should run the pod and has none available
)

// chartData is what the SVG draws for one DaemonSet.
type chartData struct {
	name  string
	nodes []string
	// at[i] is step i's time; states[i][j] node j's state after step i.
	at     []time.Duration
	states [][]nodeState
	// the lines: after each step.
	available, updated, down, budget []int
	desired                          int
}

// chart replays res step by step to record each node's state. The
// simulator reports counts, not nodes, so each prefix is simulated anew:
// quadratic in the steps, fine for the hundreds a rollout takes.
func chart(name string, cl *daemontest.Cluster, cfg daemontest.SimConfig, res daemontest.SimResult) *chartData {
	cd := &chartData{name: name}
	for _, n := range cl.Nodes {
		cd.nodes = append(cd.nodes, n.Name)
	}
	elig := daemon.NewEligibility(cl.DaemonSet, false)
	gen, _ := rollout.GetTemplateGeneration(cl.DaemonSet)
	steps := res.Steps
	const maxChartSteps = 400
	if len(steps) > maxChartSteps {
		steps = steps[:maxChartSteps]
	}
	for i, st := range steps {
		c := cfg
		c.MaxSteps = i + 1
		r := daemontest.Simulate(cl, c)
		states, avail, upd := classify(r.Final, cl.DaemonSet, elig, res.Hash, gen)
		cd.at = append(cd.at, st.At)
		cd.states = append(cd.states, states)
		cd.available = append(cd.available, avail)
		cd.updated = append(cd.updated, upd)
		cd.down = append(cd.down, st.Down)
		cd.budget = append(cd.budget, st.Budgets.MaxUnavailable)
		cd.desired = max(cd.desired, int(st.Desired))
	}
	return cd
}

// classify returns each node's state in c and the counts of nodes with an
// available pod and with an available updated pod.
func classify(c *daemontest.Cluster, ds *appsv1.DaemonSet, elig *daemon.Eligibility, hash string, gen *int64) ([]nodeState, int, int) {
	byNode := map[string][]*corev1.Pod{}
	for _, p := range c.Pods {
		if p.Namespace != ds.Namespace || !ownedBy(p, ds.UID) || p.DeletionTimestamp != nil {
			continue
		}
		if p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
			continue
		}
		node := p.Spec.NodeName
		if node == "" {
			node = affinityNode(p)
		}
		byNode[node] = append(byNode[node], p)
	}
	out := make([]nodeState, len(c.Nodes))
	avail, upd := 0, 0
	for j, n := range c.Nodes {
		pods := byNode[n.Name]
		should, _ := elig.ShouldRun(n)
		var ok, okNew bool
		for _, p := range pods {
			if available(p, c.Now, ds.Spec.MinReadySeconds) {
				ok = true
				if rollout.IsPodUpdated(p, hash, gen) {
					okNew = true
				}
			}
		}
		switch {
		case len(pods) > 1:
			out[j] = stateSurge
		case okNew:
			out[j] = stateNew
		case ok:
			out[j] = stateOld
		case should || len(pods) > 0:
			out[j] = stateUnavailable
		}
		if ok {
			avail++
		}
		if okNew {
			upd++
		}
	}
	return out, avail, upd
}

// affinityNode is the node a pod not yet bound targets.
func affinityNode(p *corev1.Pod) string {
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == "metadata.name" && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

// available: ready for minReadySeconds at now.
func available(p *corev1.Pod, now time.Time, minReady int32) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return minReady == 0 || !c.LastTransitionTime.Add(time.Duration(minReady)*time.Second).After(now)
		}
	}
	return false
}
