package affinity_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/affinity"
)

// bound is the required node affinity of a pod bound to name.
func bound(name string) *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
		fieldTerm(expr(metav1.ObjectNameField, corev1.NodeSelectorOpIn, name)),
	}}
}

var preferredZoneA = []corev1.PreferredSchedulingTerm{{Weight: 10, Preference: exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a"))}}

// replaceCases seed FuzzReplaceNodeAffinity too.
var replaceCases = []struct {
	name     string
	affinity *corev1.Affinity
	nodeName string
	want     *corev1.Affinity
}{
	{
		name:     "a nil affinity gets only the node term",
		nodeName: "node-a",
		want:     &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: bound("node-a")}},
	},
	{
		name:     "pod affinity and anti-affinity are kept when node affinity is missing",
		affinity: &corev1.Affinity{PodAffinity: podAffinity(), PodAntiAffinity: podAntiAffinity()},
		nodeName: "node-a",
		want: &corev1.Affinity{
			PodAffinity:     podAffinity(),
			PodAntiAffinity: podAntiAffinity(),
			NodeAffinity:    &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: bound("node-a")},
		},
	},
	{
		name:     "preferred terms are kept when required terms are missing",
		affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferredZoneA}},
		nodeName: "node-a",
		want: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution:  bound("node-a"),
			PreferredDuringSchedulingIgnoredDuringExecution: preferredZoneA,
		}},
	},
	{
		name: "every required term is replaced by the node term",
		affinity: &corev1.Affinity{
			PodAntiAffinity: podAntiAffinity(),
			PodAffinity:     podAffinity(),
			NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
					exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a", "b")),
					fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-b")),
				}},
				PreferredDuringSchedulingIgnoredDuringExecution: preferredZoneA,
			},
		},
		nodeName: "node-a",
		want: &corev1.Affinity{
			PodAffinity:     podAffinity(),
			PodAntiAffinity: podAntiAffinity(),
			NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  bound("node-a"),
				PreferredDuringSchedulingIgnoredDuringExecution: preferredZoneA,
			},
		},
	},
	{
		name:     "required node affinity without terms gets the node term",
		affinity: terms(),
		nodeName: "node-b",
		want:     &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: bound("node-b")}},
	},
	{
		name:     "an empty node name is not validated",
		affinity: terms(corev1.NodeSelectorTerm{}),
		want:     &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: bound("")}},
	},
}

func TestReplaceDaemonSetPodNodeNameNodeAffinity(t *testing.T) {
	for _, tt := range replaceCases {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.affinity.DeepCopy()
			got := affinity.ReplaceDaemonSetPodNodeNameNodeAffinity(in, tt.nodeName)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReplaceDaemonSetPodNodeNameNodeAffinity() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.affinity, in); diff != "" {
				t.Errorf("argument modified (-want +got):\n%s", diff)
			}
			if in != nil && aliases(in, got) {
				t.Errorf("result shares memory with its argument")
			}
		})
	}
}

// aliases reports whether b reaches a pointer, slice backing array or map
// that a also reaches.
func aliases(a, b any) bool {
	seen := map[uintptr]bool{}
	walk(reflect.ValueOf(a), func(p uintptr) { seen[p] = true })
	shared := false
	walk(reflect.ValueOf(b), func(p uintptr) { shared = shared || seen[p] })
	return shared
}

func walk(v reflect.Value, visit func(uintptr)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		visit(v.Pointer())
		walk(v.Elem(), visit)
	case reflect.Slice:
		if v.Cap() > 0 {
			visit(v.Pointer())
		}
		for i := range v.Len() {
			walk(v.Index(i), visit)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		visit(v.Pointer())
		for it := v.MapRange(); it.Next(); {
			walk(it.Value(), visit)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			walk(v.Field(i), visit)
		}
	case reflect.Interface:
		if !v.IsNil() {
			walk(v.Elem(), visit)
		}
	}
}

func pod(nodeName string, a *corev1.Affinity) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent-x7k2p"},
		Spec:       corev1.PodSpec{NodeName: nodeName, Affinity: a},
	}
}

// targetCases seed FuzzGetTargetNodeName too.
var targetCases = []struct {
	name      string
	pod       *corev1.Pod
	want      string
	wantField *fieldErr // nil: no field error expected
	wantErr   bool
}{
	{
		name:    "a nil pod is an error",
		wantErr: true,
	},
	{
		name: "spec.nodeName wins over the affinity",
		pod:  pod("node-a", &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: bound("node-b")}}),
		want: "node-a",
	},
	{
		name:      "no affinity is an error",
		pod:       pod("", nil),
		wantErr:   true,
		wantField: &fieldErr{field.ErrorTypeRequired, reqPath},
	},
	{
		name:      "affinity without node affinity is an error",
		pod:       pod("", &corev1.Affinity{PodAffinity: podAffinity(), PodAntiAffinity: podAntiAffinity()}),
		wantErr:   true,
		wantField: &fieldErr{field.ErrorTypeRequired, reqPath},
	},
	{
		name:      "node affinity without required terms is an error",
		pod:       pod("", &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferredZoneA}}),
		wantErr:   true,
		wantField: &fieldErr{field.ErrorTypeRequired, reqPath},
	},
	{
		name:      "required node affinity without terms is an error",
		pod:       pod("", terms()),
		wantErr:   true,
		wantField: &fieldErr{field.ErrorTypeRequired, reqPath + ".nodeSelectorTerms"},
	},
	{
		name: "the node term of a bound pod names the node",
		pod:  pod("", &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: bound("node-a")}}),
		want: "node-a",
	},
	{
		name: "the first metadata.name In requirement wins, across terms",
		pod: pod("", terms(
			exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a")),
			fieldTerm(
				expr("metadata.namespace", corev1.NodeSelectorOpIn, "node-a"),
				expr("metadata.name", corev1.NodeSelectorOpNotIn, "node-a"),
				expr("metadata.name", corev1.NodeSelectorOpIn, "node-b"),
			),
			fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-a")),
		)),
		want: "node-b",
	},
	{
		name: "an empty single value is returned as is",
		pod:  pod("", terms(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "")))),
		want: "",
	},
	{
		name: "two values in the first requirement is an error, whatever follows",
		pod: pod("", terms(
			fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-a", "node-b")),
			fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-a")),
		)),
		wantErr:   true,
		wantField: &fieldErr{field.ErrorTypeInvalid, reqPath + ".nodeSelectorTerms[0].matchFields[0].values"},
	},
	{
		name:      "no values is an error",
		pod:       pod("", terms(exprTerm(expr("zone", corev1.NodeSelectorOpExists)), fieldTerm(expr("spec.nodeName", corev1.NodeSelectorOpIn, "node-a"), expr("metadata.name", corev1.NodeSelectorOpIn)))),
		wantErr:   true,
		wantField: &fieldErr{field.ErrorTypeInvalid, reqPath + ".nodeSelectorTerms[1].matchFields[1].values"},
	},
	{
		name:      "a metadata.name matchExpression does not count",
		pod:       pod("", terms(exprTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-a")))),
		wantErr:   true,
		wantField: &fieldErr{field.ErrorTypeRequired, reqPath + ".nodeSelectorTerms"},
	},
}

func TestGetTargetNodeName(t *testing.T) {
	for _, tt := range targetCases {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.pod.DeepCopy()
			got, err := affinity.GetTargetNodeName(tt.pod)
			if diff := cmp.Diff(before, tt.pod); diff != "" {
				t.Errorf("pod modified (-want +got):\n%s", diff)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("GetTargetNodeName() error = %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("GetTargetNodeName() = %q, want %q", got, tt.want)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, affinity.ErrNoTargetNode) {
				t.Errorf("error %v does not wrap ErrNoTargetNode", err)
			}
			var gotField *fieldErr
			var fe *field.Error
			if errors.As(err, &fe) {
				gotField = &fieldErr{Type: fe.Type, Field: fe.Field}
			}
			if diff := cmp.Diff(tt.wantField, gotField); diff != "" {
				t.Errorf("field error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGetTargetNodeNameMessages(t *testing.T) {
	tests := []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{
			name: "a nil pod",
			want: "nil pod: no target node",
		},
		{
			name: "missing required affinity names the pod and the field",
			pod:  pod("", nil),
			want: `pod "kube-system/agent-x7k2p": no target node: ` + reqPath + `: Required value: needed when spec.nodeName is empty`,
		},
		{
			name: "a pod without namespace keeps the slash",
			pod:  &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Affinity: terms()}},
			want: `pod "/p": no target node: ` + reqPath + `.nodeSelectorTerms: Required value: needs a term when spec.nodeName is empty`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := affinity.GetTargetNodeName(tt.pod)
			if err == nil {
				t.Fatalf("GetTargetNodeName() error = nil, want %q", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("GetTargetNodeName() error\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
