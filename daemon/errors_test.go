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

// TestComputeErrorText pins the exact text of Compute's error paths: each
// names the DaemonSet once, then the stage, then the cause, and errors.Is
// and errors.As still reach the cause.
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
	tests := []struct {
		name string
		in   input
		want string
		// is is an error errors.Is must find; as a target errors.As must fill.
		is error
		as func(error) bool
	}{
		{
			name: "nil daemonset",
			in:   input{},
			want: `invalid input: daemonSet: Required value: a DaemonSet is required`,
			is:   daemon.ErrInvalidInput,
			as:   asField,
		},
		{
			name: "missing identity",
			in:   base(func(in *input) { in.ds.UID = "" }),
			want: `daemonset "default/x": invalid input: metadata.uid: Required value: ownership is decided by UID`,
			is:   daemon.ErrInvalidInput,
			as:   asField,
		},
		{
			name: "nil node",
			in:   base(func(in *input) { in.nodes = append(in.nodes, nil) }),
			want: `daemonset "default/x": invalid input: nodes[2]: Required value: nil node`,
			is:   daemon.ErrInvalidInput,
			as:   asField,
		},
		{
			name: "duplicate node",
			in:   base(func(in *input) { in.nodes = append(in.nodes, dt.Node("a")) }),
			want: `daemonset "default/x": invalid input: nodes[0] and nodes[2] are both named "a"`,
			is:   daemon.ErrInvalidInput,
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
			want: `daemonset "default/x": invalid input: revisions[1].metadata.name: Duplicate value: "default/` + "x-" + dt.Hash(dt.DaemonSet("x")) + `"`,
			is:   daemon.ErrInvalidInput,
			as:   asField,
		},
		{
			name: "invalid selector",
			in: base(func(in *input) {
				in.ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Near"}}
			}),
			want: `daemonset "default/x": spec.selector.matchExpressions[0].operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist"`,
			as: func(err error) bool {
				var s *selector.Error
				return errors.As(err, &s)
			},
		},
		{
			name: "collision",
			in: base(func(in *input) {
				rev := dt.Revision(in.ds, 1)
				rev.Data.Raw = []byte(`{"spec":{}}`)
				in.opts.Revisions = []*appsv1.ControllerRevision{rev}
			}),
			want: `daemonset "default/x": revision history: controllerrevision "x-` + dt.Hash(dt.DaemonSet("x")) + `" already exists with different data; status.collisionCount must become 1` + emptySpecDiff,
			as: func(err error) bool {
				var c *rollout.CollisionError
				return errors.As(err, &c)
			},
		},
		{
			name: "maxUnavailable not a number",
			in:   base(withPods, func(in *input) { in.ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = budget("one") }),
			want: `daemonset "default/x": rolling update: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "one": must be an integer or a percentage such as "25%"`,
			as:   asField,
		},
		{
			name: "maxUnavailable nil",
			in:   base(withPods, func(in *input) { in.ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = nil }),
			want: `daemonset "default/x": rolling update: spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: required when rollingUpdate is set`,
			as:   asField,
		},
		{
			name: "maxSurge malformed percent",
			in:   base(withPods, func(in *input) { in.ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = budget("1.5%") }),
			want: `daemonset "default/x": rolling update: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "1.5%": must be an integer or a percentage such as "25%"`,
			as:   asField,
		},
		{
			name: "surge over a pod on a missing node",
			in: base(func(in *input) {
				in.ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = budget("1")
				in.ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = budget("0")
				in.pods = []*corev1.Pod{
					dt.Pod(in.ds, "pa", "a"), dt.Pod(in.ds, "pb", "b"),
					dt.Pod(in.ds, "gone", "ghost", dt.WithHash("old")),
				}
			}),
			want: `daemonset "default/x": rolling update: pod "gone" targets node "ghost", which does not exist`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := daemon.Compute(tt.in.ds, tt.in.nodes, tt.in.pods, tt.in.opts)
			if err == nil {
				t.Fatal("Compute: no error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error text (-want,+got):\n%s", diff)
			}
			if n := strings.Count(err.Error(), `daemonset "`); n > 1 {
				t.Errorf("error names a DaemonSet %d times: %s", n, err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v) = false", tt.is)
			}
			if tt.as != nil && !tt.as(err) {
				t.Errorf("errors.As failed on %v", err)
			}
		})
	}
}

// emptySpecDiff is how a collision error names the first difference when
// the revision's data is {"spec":{}}: the template is missing from it.
const emptySpecDiff = `; first difference: spec.template: the revision has nothing, the DaemonSet's patch has {"$patch":"replace","metadata":{"labels":{"app":"x"}},"spec":{"c…`

func asField(err error) bool {
	var fe *field.Error
	return errors.As(err, &fe)
}
