package livecmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon/apply"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/cli"
	"github.com/daemonplan/daemonplan/rollout"
)

const undoHelp = `Rolls the DaemonSet back to an earlier revision, as kubectl rollout undo
does: it writes the pod template that revision's ControllerRevision stores
back into the DaemonSet (a strategic merge patch of the revision's data,
on the condition that the DaemonSet is still at the resourceVersion read).
The default is the previous revision: the highest-numbered one below the
revision the current template matches. --to-revision picks another (the
numbers kubectl rollout history daemonset lists). A template that already
matches the chosen revision is left alone.

What follows is a rollout like any other. The restored template is the old
revision again (kube-controller-manager renumbers it): nodes the bad
revision never reached run it already and are left alone; the others are
replaced under the same policy (for an OnDelete DaemonSet, the companion
deletes their pods and kube-controller-manager recreates them): budgets,
domain budget, waves, bake, canary, approval points, maintenance windows
and health gates all apply. The waves go in the policy's order, not
reversed: the first waves are the nodes that run the bad revision, so they
are fixed first, and the order is the team's risk order. An approval
(rollout.daemonplan.io/approved) names the bad revision and does not carry
over to the restored one.

A GitOps tool (Argo CD, Flux) re-applies the template it owns: it will
undo the undo. Pause its sync of the DaemonSet first, or roll back in git
instead.

--dry-run (--dry-run=client, as kubectl spells it) changes nothing: it lists
the fields of the template the rollback would change.
`

const undoExample = `  # back to the previous revision
  kubectl dsplan rollout undo kube-system/agent

  # what rolling back to revision 3 would change, without changing it
  kubectl dsplan rollout undo kube-system/agent --to-revision 3 --dry-run`

// undoFlags are the flags of "rollout undo".
type undoFlags struct {
	toRevision int64
	// dryRun is --dry-run: "none" (write), or "client" (change nothing),
	// as kubectl spells it.
	dryRun string
}

// undoCommand is "rollout undo NS/NAME [--to-revision N] [--dry-run]".
func undoCommand(lf *liveFlags, stdout io.Writer, program string, conn connector) *cobra.Command {
	uf := &undoFlags{}
	c := &cobra.Command{
		Use:     "undo NAMESPACE/NAME",
		Short:   "roll a DaemonSet back to an earlier revision, rolled out under its policy",
		Long:    undoHelp,
		Example: strings.ReplaceAll(undoExample, "kubectl dsplan", program),
		RunE: func(c *cobra.Command, pos []string) error {
			return runUndo(pos, uf, lf, stdout, conn)
		},
	}
	c.Flags().Int64Var(&uf.toRevision, "to-revision", 0, "the `REVISION` to roll back to (default 0: the previous one)")
	c.Flags().StringVar(&uf.dryRun, "dry-run", "none", "`client`: change nothing, list the template fields the rollback would change (--dry-run alone is client; none writes)")
	c.Flags().Lookup("dry-run").NoOptDefVal = "client"
	return withExitCodes(c, writeExitCodes("rolled back (or nothing to do: the template matches the revision)",
		"the DaemonSet is not found, or has no such revision (or no previous one);\n"+
			"     the revision's data does not decode;"))
}

// runUndo is "rollout undo NS/NAME".
func runUndo(pos []string, uf *undoFlags, lf *liveFlags, stdout io.Writer, conn connector) error {
	t, err := parseTarget(pos)
	if err != nil {
		return err
	}
	if uf.dryRun != "none" && uf.dryRun != "client" {
		return cli.UsageError(fmt.Sprintf("--dry-run=%s: want client or none (server dry runs are not supported)", uf.dryRun))
	}
	if uf.toRevision < 0 {
		return cli.UsageError(fmt.Sprintf("--to-revision %d: want a revision number, or 0 for the previous one", uf.toRevision))
	}
	cs, where, err := connectTo(lf, conn)
	if err != nil {
		return err
	}
	ctx := context.Background()
	fail := func(err error) error { return &cli.ExitError{Code: 1, Err: err} }
	ds, err := getDaemonSet(ctx, cs, t, where)
	if err != nil {
		return fail(err)
	}
	all, err := listPaged[appsv1.ControllerRevision](ctx, "controllerrevisions", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return cs.AppsV1().ControllerRevisions(t.ns).List(ctx, o)
	})
	if err != nil {
		return fail(fmt.Errorf("daemonset %s (%s): %w", t, where, err))
	}
	var revs []*appsv1.ControllerRevision
	for _, r := range all {
		if metav1.IsControlledBy(r, ds) {
			revs = append(revs, r)
		}
	}
	rev, current, err := chooseRevision(ds, revs, uf.toRevision)
	if err != nil {
		return fail(err)
	}
	if rev.Revision == current {
		fmt.Fprintf(stdout, "daemonset %s skipped rollback (the current template already matches revision %d)\n", t, rev.Revision)
		return nil
	}
	if uf.dryRun == "client" {
		back, err := withRevision(ds, rev)
		if err != nil {
			return fail(err)
		}
		diff, err := apply.TemplateDiff(ds, back)
		if err != nil {
			return fail(fmt.Errorf("daemonset %s: %w", t, err))
		}
		fields := fmt.Sprintf("%d template fields change", len(diff))
		if len(diff) == 1 {
			fields = "1 template field changes"
		}
		fmt.Fprintf(stdout, "daemonset %s would roll back to revision %d (dry run): %s\n", t, rev.Revision, fields)
		for _, d := range diff {
			fmt.Fprintf(stdout, "  %s\n", d)
		}
		return nil
	}
	o := undoOutcome(ds, revs, current, rev)
	patch, err := revisionPatch(ds.ResourceVersion, rev, o)
	if err != nil {
		return fail(err)
	}
	if _, err := patchDaemonSet(ctx, cs, ds, types.StrategicMergePatchType, patch, "rolling back"); err != nil {
		return fail(err)
	}
	if o != nil {
		fmt.Fprintf(stdout, "daemonset %s rolled back from revision %d (%s) to revision %d (%s); rollout status reports the change as rolled back (exit 7) until a new template or rollout resume %s acknowledges it\n",
			t, current, o.From, rev.Revision, o.Revision, t)
		return nil
	}
	fmt.Fprintf(stdout, "daemonset %s rolled back to revision %d\n", t, rev.Revision)
	return nil
}

// chooseRevision picks the revision of revs (ds's ControllerRevisions) to
// roll ds back to: revision to, or with to 0 the previous one, the
// highest-numbered below current. current is the number of the revision
// ds's template matches (rollout.RollbackTo), 0 when it matches none (a
// template not recorded yet: then the previous one is the highest). An
// unknown revision, or no previous one, is an error naming the DaemonSet
// and the revisions it has.
func chooseRevision(ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision, to int64) (rev *appsv1.ControllerRevision, current int64, err error) {
	key := ds.Namespace + "/" + ds.Name
	current, err = rollout.RollbackTo(ds, revs)
	if err != nil {
		return nil, 0, fmt.Errorf("daemonset %s: %w", key, err)
	}
	numbers := make([]int64, 0, len(revs))
	for _, r := range revs {
		numbers = append(numbers, r.Revision)
		switch {
		case to != 0 && r.Revision == to:
			rev = r
		case to == 0 && (current == 0 || r.Revision < current) && (rev == nil || r.Revision > rev.Revision):
			rev = r
		}
	}
	if rev != nil {
		return rev, current, nil
	}
	slices.Sort(numbers)
	has := "no revision"
	if len(numbers) > 0 {
		words := make([]string, len(numbers))
		for i, n := range numbers {
			words[i] = strconv.FormatInt(n, 10)
		}
		has = "revisions " + strings.Join(words, ", ")
	}
	if to == 0 {
		is := "matches none"
		if current > 0 {
			is = fmt.Sprintf("is revision %d", current)
		}
		return nil, current, fmt.Errorf("daemonset %s has no previous revision to roll back to (it has %s; its template %s)", key, has, is)
	}
	return nil, current, fmt.Errorf("--to-revision %d: daemonset %s has no such revision (it has %s)", to, key, has)
}

// revisionData is what a DaemonSet's ControllerRevision stores
// (rollout.Patch): the template, under a strategic merge patch's
// "$patch": "replace", which decoding ignores.
type revisionData struct {
	Spec struct {
		Template *corev1.PodTemplateSpec `json:"template"`
	} `json:"spec"`
}

// withRevision returns a copy of ds with rev's template, for the diff.
func withRevision(ds *appsv1.DaemonSet, rev *appsv1.ControllerRevision) (*appsv1.DaemonSet, error) {
	var data revisionData
	if err := json.Unmarshal(rev.Data.Raw, &data); err != nil {
		return nil, fmt.Errorf("controllerrevision %s/%s: data: %w", rev.Namespace, rev.Name, err)
	}
	if data.Spec.Template == nil {
		return nil, fmt.Errorf("controllerrevision %s/%s: data: no spec.template", rev.Namespace, rev.Name)
	}
	out := ds.DeepCopy()
	out.Spec.Template = *data.Spec.Template
	return out, nil
}

// undoOutcome is the outcome rollout undo records for ds rolled back from
// revision current to rev (progressive.OutcomeRolledBack, by
// RolledBackByUndo), so that rollout status, kstatus and the Argo CD
// health check say the change was undone until a person acknowledges it;
// nil when ds has no rollout annotations (the annotation would opt it in
// to the companion) or its template matches no revision (nothing names
// what was undone).
func undoOutcome(ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision, current int64, rev *appsv1.ControllerRevision) *progressive.Outcome {
	if a, err := progressive.ParseAnnotations(ds.Annotations); err != nil || a == nil || current == 0 {
		return nil
	}
	from := ""
	for _, r := range revs {
		if r.Revision == current {
			from = r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
		}
	}
	to := rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
	if from == "" || to == "" {
		return nil
	}
	o := progressive.NewOutcome(ds, progressive.OutcomeRolledBack, to)
	o.From, o.By = from, progressive.RolledBackByUndo
	return &o
}

// revisionPatch is rev's data, the strategic merge patch that writes its
// template back (as kubectl rollout undo sends it), on the condition that
// the DaemonSet is still at resourceVersion rv, with the outcome
// annotation o when not nil.
func revisionPatch(rv string, rev *appsv1.ControllerRevision, o *progressive.Outcome) ([]byte, error) {
	var data map[string]json.RawMessage
	if err := json.Unmarshal(rev.Data.Raw, &data); err != nil {
		return nil, fmt.Errorf("controllerrevision %s/%s: data: %w", rev.Namespace, rev.Name, err)
	}
	if _, ok := data["spec"]; !ok {
		return nil, fmt.Errorf("controllerrevision %s/%s: data: no spec.template", rev.Namespace, rev.Name)
	}
	m := map[string]any{"resourceVersion": rv}
	if o != nil {
		m["annotations"] = map[string]string{progressive.AnnotationOutcome: o.Format()}
	}
	meta, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	data["metadata"] = meta
	return json.Marshal(data)
}
