package daemon_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/selector"
)

// TestComputeErrorText pins Compute's error paths: each is a *daemon.Error
// naming the DaemonSet once, then the stage, then the cause, which names
// the field or the fact and never the DaemonSet; errors.Is(ErrInvalidInput)
// answers for every input, policy, selector and budget error, and only for
// them; errors.As reaches the cause.
func TestComputeErrorText(t *testing.T) {
	type input struct {
		ds    *appsv1.DaemonSet
		nodes []*corev1.Node
		pods  []*corev1.Pod
		opts  daemon.Options
	}
	base := func(mutate ...func(*input)) input {
		ds := dt.DaemonSet("x")
		in := input{ds: ds, nodes: []*corev1.Node{dt.Node("a"), dt.Node("b")}, opts: daemon.Options{Now: dt.Epoch}}
		for _, m := range mutate {
			m(&in)
		}
		return in
	}
	withPods := func(in *input) { in.pods = []*corev1.Pod{dt.Pod(in.ds, "pa", "a"), dt.Pod(in.ds, "pb", "b")} }
	budget := func(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }
	revName := "x-" + dt.Hash(dt.DaemonSet("x"))
	tests := []struct {
		name string
		in   input
		want errorShape
		// as is a target errors.As must fill.
		as func(error) bool
	}{
		{
			name: "nil daemonset",
			in:   input{},
			want: errorShape{Stage: daemon.StageInput, Invalid: true,
				Text: `invalid input: daemonSet: Required value: a DaemonSet is required`},
			as: asField,
		},
		{
			name: "missing identity",
			in:   base(func(in *input) { in.ds.UID = "" }),
			want: errorShape{DaemonSet: "default/x", Stage: daemon.StageInput, Invalid: true,
				Text: `daemonset "default/x": invalid input: metadata.uid: Required value: ownership is decided by UID`},
			as: asField,
		},
		{
			name: "nil node",
			in:   base(func(in *input) { in.nodes = append(in.nodes, nil) }),
			want: errorShape{DaemonSet: "default/x", Stage: daemon.StageInput, Invalid: true,
				Text: `daemonset "default/x": invalid input: nodes[2]: Required value: nil node`},
			as: asField,
		},
		{
			name: "duplicate node",
			in:   base(func(in *input) { in.nodes = append(in.nodes, dt.Node("a")) }),
			want: errorShape{DaemonSet: "default/x", Stage: daemon.StageInput, Invalid: true,
				Text: `daemonset "default/x": invalid input: nodes[0] and nodes[2] are both named "a"`},
			as: func(err error) bool {
				var d *daemon.DuplicateNodeError
				return errors.As(err, &d)
			},
		},
		{
			name: "duplicate revision",
			in: base(func(in *input) {
				in.opts.Revisions = []*appsv1.ControllerRevision{dt.Revision(in.ds, 1), dt.Revision(in.ds, 1)}
			}),
			want: errorShape{DaemonSet: "default/x", Stage: daemon.StageInput, Invalid: true,
				Text: `daemonset "default/x": invalid input: revisions[1].metadata.name: Duplicate value: "default/` + revName + `"`},
			as: asField,
		},
		{
			// Before the one error contract, the selector's error named the
			// DaemonSet itself and had no stage.
			name: "invalid selector is invalid input",
			in: base(func(in *input) {
				in.ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Near"}}
			}),
			want: errorShape{DaemonSet: "default/x", Stage: daemon.StageInput, Invalid: true,
				Text: `daemonset "default/x": invalid input: spec.selector.matchExpressions[0].operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist"`},
			as: func(err error) bool {
				var s *selector.Error
				return errors.As(err, &s) && asField(err)
			},
		},
		{
			name: "invalid rollout policy",
			in: base(func(in *input) {
				p := intstr.FromInt32(-1)
				in.opts.Rollout = daemon.RolloutPolicy{Partition: &p}
			}),
			want: errorShape{DaemonSet: "default/x", Stage: daemon.StagePolicy, Invalid: true,
				Text: `daemonset "default/x": rollout policy: rollout.partition: Invalid value: "-1": must be a non-negative integer or percentage`},
		},
		{
			name: "collision is the cluster's state, not invalid input",
			in: base(func(in *input) {
				rev := dt.Revision(in.ds, 1)
				rev.Data.Raw = []byte(`{"spec":{}}`)
				in.opts.Revisions = []*appsv1.ControllerRevision{rev}
			}),
			want: errorShape{DaemonSet: "default/x", Stage: daemon.StageHistory,
				Text: `daemonset "default/x": revision history: controllerrevision "` + revName + `" already exists with different data; status.collisionCount must become 1` + emptySpecDiff},
			as: func(err error) bool {
				var c *rollout.CollisionError
				return errors.As(err, &c)
			},
		},
		{
			name: "maxUnavailable not a number",
			in:   base(withPods, func(in *input) { in.ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = budget("one") }),
			want: errorShape{DaemonSet: "default/x", Stage: daemon.StageRollingUpdate, Invalid: true,
				Text: `daemonset "default/x": rolling update: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "one": must be an integer or a percentage such as "25%"`},
			as: asField,
		},
		{
			name: "maxUnavailable nil",
			in:   base(withPods, func(in *input) { in.ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = nil }),
			want: errorShape{DaemonSet: "default/x", Stage: daemon.StageRollingUpdate, Invalid: true,
				Text: `daemonset "default/x": rolling update: spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: required when rollingUpdate is set`},
			as: asField,
		},
		{
			name: "maxSurge malformed percent",
			in:   base(withPods, func(in *input) { in.ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = budget("1.5%") }),
			want: errorShape{DaemonSet: "default/x", Stage: daemon.StageRollingUpdate, Invalid: true,
				Text: `daemonset "default/x": rolling update: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "1.5%": must be an integer or a percentage such as "25%"`},
			as: asField,
		},
		{
			name: "surge over a pod on a missing node is the cluster's state",
			in: base(func(in *input) {
				in.ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = budget("1")
				in.ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = budget("0")
				in.pods = []*corev1.Pod{
					dt.Pod(in.ds, "pa", "a"), dt.Pod(in.ds, "pb", "b"),
					dt.Pod(in.ds, "gone", "ghost", dt.WithHash("old")),
				}
			}),
			want: errorShape{DaemonSet: "default/x", Stage: daemon.StageRollingUpdate,
				Text: `daemonset "default/x": rolling update: pod "gone" targets node "ghost", which does not exist`},
			as: func(err error) bool {
				var m *rollout.MissingNodeError
				return errors.As(err, &m) && m.Pod == "gone" && m.Node == "ghost"
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := daemon.Compute(tt.in.ds, tt.in.nodes, tt.in.pods, tt.in.opts)
			if diff := cmp.Diff(tt.want, shapeOf(err)); diff != "" {
				t.Errorf("error (-want,+got):\n%s", diff)
			}
			if tt.as != nil && !tt.as(err) {
				t.Errorf("errors.As failed on %v", err)
			}
			// The Planner and the other entry points return the same error.
			_, perr := daemon.NewPlanner().Compute(tt.in.ds, tt.in.nodes, tt.in.pods, tt.in.opts)
			if diff := cmp.Diff(tt.want, shapeOf(perr)); diff != "" {
				t.Errorf("Planner.Compute error (-want,+got):\n%s", diff)
			}
			// With the standing, the same error.
			ro := tt.in.opts
			ro.ReportStanding = true
			if _, rerr := daemon.Compute(tt.in.ds, tt.in.nodes, tt.in.pods, ro); cmp.Diff(tt.want, shapeOf(rerr)) != "" {
				t.Errorf("Compute with ReportStanding error = %v, want %+v", rerr, tt.want)
			}
		})
	}
}

// errorShape is what a caller reads of an error of the planner.
type errorShape struct {
	// Text is Error(); Message the text without the DaemonSet.
	Text, Message string
	DaemonSet     string
	Stage         daemon.Stage
	// Invalid is errors.Is(err, daemon.ErrInvalidInput).
	Invalid bool
	// Keys counts how often the text names a DaemonSet.
	Keys int
}

// shapeOf reads err as a caller does: with errors.As and errors.Is. Message
// and Keys are checked here, and left out of the shape when right, so that
// the tables need not repeat the text.
func shapeOf(err error) errorShape {
	if err == nil {
		return errorShape{}
	}
	s := errorShape{Text: err.Error(), Invalid: errors.Is(err, daemon.ErrInvalidInput), Keys: strings.Count(err.Error(), `daemonset "`)}
	var de *daemon.Error
	if !errors.As(err, &de) {
		s.Message = "not a *daemon.Error"
		return s
	}
	s.DaemonSet, s.Stage = de.DaemonSet, de.Stage
	if s.Keys <= 1 {
		s.Keys = 0
	}
	if want := strings.TrimPrefix(s.Text, `daemonset "`+de.DaemonSet+`": `); de.Message() != want {
		s.Message = de.Message()
	}
	if de.Err != nil && strings.Contains(de.Err.Error(), `daemonset "`) {
		s.Message = "the cause names a DaemonSet: " + de.Err.Error()
	}
	return s
}

// emptySpecDiff is how a collision error names the first difference when
// the revision's data is {"spec":{}}: the template is missing from it.
const emptySpecDiff = `; first difference: spec.template: the revision has nothing, the DaemonSet's patch has {"$patch":"replace","metadata":{"labels":{"app":"x"}},"spec":{"c…`

func asField(err error) bool {
	var fe *field.Error
	return errors.As(err, &fe)
}

// TestError pins Error's text, Message, Unwrap and its match of
// ErrInvalidInput, and NewError.
func TestError(t *testing.T) {
	required := field.Required(field.NewPath("spec", "selector"), "")
	budget := field.Invalid(field.NewPath("spec", "updateStrategy", "rollingUpdate", "maxSurge"), "x", "bad")
	collision := &rollout.CollisionError{Name: "x-1", CollisionCount: 1}
	tests := []struct {
		name string
		err  *daemon.Error
		want errorShape
	}{
		{name: "DaemonSet, stage and cause",
			err:  &daemon.Error{DaemonSet: "ns/x", Stage: daemon.StageInput, Err: required},
			want: errorShape{Text: `daemonset "ns/x": invalid input: spec.selector: Required value`, DaemonSet: "ns/x", Stage: daemon.StageInput, Invalid: true}},
		{name: "no DaemonSet: the stage and the cause",
			err:  &daemon.Error{Stage: daemon.StageHistory, Err: collision},
			want: errorShape{Text: `revision history: ` + collision.Error(), Stage: daemon.StageHistory}},
		{name: "no stage: the cause alone after the DaemonSet",
			err:  &daemon.Error{DaemonSet: "ns/x", Err: collision},
			want: errorShape{Text: `daemonset "ns/x": ` + collision.Error(), DaemonSet: "ns/x"}},
		{name: "a nil cause does not panic",
			err:  &daemon.Error{DaemonSet: "ns/x", Stage: daemon.StageRollingUpdate},
			want: errorShape{Text: `daemonset "ns/x": rolling update: <nil>`, DaemonSet: "ns/x", Stage: daemon.StageRollingUpdate}},
		{name: "a field error in a later stage is invalid input",
			err:  &daemon.Error{DaemonSet: "ns/x", Stage: daemon.StageRollingUpdate, Err: budget},
			want: errorShape{Text: `daemonset "ns/x": rolling update: ` + budget.Error(), DaemonSet: "ns/x", Stage: daemon.StageRollingUpdate, Invalid: true}},
		{name: "a joined field error is found",
			err:  &daemon.Error{DaemonSet: "ns/x", Stage: daemon.StageHistory, Err: errors.Join(collision, budget)},
			want: errorShape{Text: `daemonset "ns/x": revision history: ` + collision.Error() + "\n" + budget.Error(), DaemonSet: "ns/x", Stage: daemon.StageHistory, Invalid: true}},
		{name: "a policy error is invalid input whatever its cause",
			err:  &daemon.Error{DaemonSet: "ns/x", Stage: daemon.StagePolicy, Err: errors.New("boom")},
			want: errorShape{Text: `daemonset "ns/x": rollout policy: boom`, DaemonSet: "ns/x", Stage: daemon.StagePolicy, Invalid: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, shapeOf(tt.err)); diff != "" {
				t.Errorf("(-want,+got):\n%s", diff)
			}
			if errors.Unwrap(tt.err) != tt.err.Err {
				t.Errorf("Unwrap() = %v, want the cause", errors.Unwrap(tt.err))
			}
		})
	}
	t.Run("NewError", func(t *testing.T) {
		ds := dt.DaemonSet("x")
		if diff := cmp.Diff(error(&daemon.Error{DaemonSet: "default/x", Stage: daemon.StageInput, Err: required}), daemon.NewError(ds, daemon.StageInput, required)); diff != "" {
			t.Errorf("NewError(ds) (-want,+got):\n%s", diff)
		}
		if diff := cmp.Diff(error(&daemon.Error{Stage: daemon.StageInput, Err: required}), daemon.NewError(nil, daemon.StageInput, required)); diff != "" {
			t.Errorf("NewError(nil) (-want,+got):\n%s", diff)
		}
		if err := daemon.NewError(ds, daemon.StageInput, nil); err != nil {
			t.Errorf("NewError(nil error) = %#v, want nil", err)
		}
	})
}
