package affinity_test

import (
	"errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/daemonplan/daemonplan/affinity"
)

// helpersMatch is the oracle: component-helpers' verdict for a pod with
// spec, ignoring parse errors as the DaemonSet controller does.
func helpersMatch(spec *corev1.PodSpec, n *corev1.Node) bool {
	pod := &corev1.Pod{}
	if spec != nil {
		pod.Spec = *spec
	}
	ok, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(n)
	return ok
}

// checkAgainstHelpers compiles the spec encoded in specData and compares
// its verdict with component-helpers' for every node encoded in nodeData
// (at least one).
func checkAgainstHelpers(t *testing.T, specData, nodeData []byte) {
	t.Helper()
	spec := decodeSpec(&reader{data: specData})
	before := spec.DeepCopy()
	m := affinity.NewNodeMatcher(spec)
	if diff := cmp.Diff(before, spec); diff != "" {
		t.Fatalf("NewNodeMatcher modified the spec (-want +got):\n%s", diff)
	}
	var wantErr error
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		_, wantErr = nodeaffinity.NewNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	if (m.Err() == nil) != (wantErr == nil) {
		t.Fatalf("Err() = %v, component-helpers' NewNodeSelector says %v\nspec: %+v", m.Err(), wantErr, spec)
	}
	r := &reader{data: nodeData}
	for i := 0; i == 0 || len(r.data) > 0; i++ {
		n := decodeNode(r)
		got, want := m.Match(n), helpersMatch(spec, n)
		if got != want {
			t.Fatalf("Match() = %v, component-helpers says %v\nspec: %+v\nnode: %q %v", got, want, spec, n.Name, n.Labels)
		}
		if once := affinity.MatchNode(spec, n); once != want {
			t.Fatalf("MatchNode() = %v, component-helpers says %v\nspec: %+v\nnode: %q %v", once, want, spec, n.Name, n.Labels)
		}
		if mismatch, ok := m.Explain(n); ok != got || (n != nil && ok != mismatch.IsZero()) {
			t.Fatalf("Explain() = %+v, %v; Match() = %v", mismatch, ok, got)
		}
		if got && n.Name != "" && validLabels(n) && neverMatches(m.Unsatisfiable()) {
			t.Fatalf("Unsatisfiable() = %v, yet node %q %v matches\nspec: %+v", m.Unsatisfiable(), n.Name, n.Labels, spec)
		}
	}
}

// validLabels reports whether every label of n is one the API server
// accepts.
func validLabels(n *corev1.Node) bool {
	for k, v := range n.Labels {
		if len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(v)) > 0 {
			return false
		}
	}
	return true
}

// neverMatches reports whether err, from Unsatisfiable, says that no node
// at all can match: a whole required affinity or a nodeSelector entry.
func neverMatches(err error) bool {
	if err == nil {
		return false
	}
	for _, line := range strings.Split(err.Error(), ", ") {
		if strings.Contains(line, "nodeSelectorTerms: Invalid") || strings.Contains(line, "spec.nodeSelector[") {
			return true
		}
	}
	return false
}

func FuzzNodeMatcher(f *testing.F) {
	for _, tt := range matchCases {
		if tt.node == nil {
			continue
		}
		w := &writer{tb: f}
		encodeSpec(w, specOrEmpty(tt.spec))
		nw := &writer{tb: f}
		encodeNode(nw, tt.node)
		f.Add(w.out, nw.out)
	}
	f.Fuzz(checkAgainstHelpers)
}

func specOrEmpty(s *corev1.PodSpec) *corev1.PodSpec {
	if s == nil {
		return &corev1.PodSpec{}
	}
	return s
}

// TestNodeMatcherAgreesWithHelpers runs the differential check of
// FuzzNodeMatcher on many pseudo-random inputs in every plain test run.
func TestNodeMatcherAgreesWithHelpers(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 0))
	random := func() []byte {
		b := make([]byte, rng.IntN(60))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return b
	}
	for range 2000 {
		checkAgainstHelpers(t, random(), random())
	}
}

func FuzzReplaceNodeAffinity(f *testing.F) {
	for _, tt := range replaceCases {
		w := &writer{tb: f}
		encodeAffinity(w, tt.affinity)
		f.Add(w.out, tt.nodeName, "node-b")
	}
	f.Fuzz(func(t *testing.T, data []byte, nodeName, otherName string) {
		in := decodeAffinity(&reader{data: data})
		before := in.DeepCopy()
		got := affinity.ReplaceDaemonSetPodNodeNameNodeAffinity(in, nodeName)
		if diff := cmp.Diff(before, in); diff != "" {
			t.Fatalf("argument modified (-want +got):\n%s", diff)
		}
		if got == nil || got.NodeAffinity == nil || got.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
			t.Fatalf("result has no required node affinity: %+v", got)
		}
		if in != nil && aliases(in, got) {
			t.Fatalf("result shares memory with its argument")
		}

		pod := &corev1.Pod{Spec: corev1.PodSpec{Affinity: got}}
		required := nodeaffinity.GetRequiredNodeAffinity(pod)
		named := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}}
		if ok, err := required.Match(named); !ok || err != nil {
			t.Fatalf("result does not match node %q: %v, %v", nodeName, ok, err)
		}
		if otherName != "" && otherName != nodeName {
			other := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: otherName}}
			if ok, _ := required.Match(other); ok {
				t.Fatalf("result for %q matches node %q", nodeName, otherName)
			}
		}

		var wantPreferred []corev1.PreferredSchedulingTerm
		if in != nil && in.NodeAffinity != nil {
			wantPreferred = in.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
		}
		if diff := cmp.Diff(wantPreferred, got.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution); diff != "" {
			t.Fatalf("preferred terms changed (-want +got):\n%s", diff)
		}
		var wantPod *corev1.PodAffinity
		var wantAnti *corev1.PodAntiAffinity
		if in != nil {
			wantPod, wantAnti = in.PodAffinity, in.PodAntiAffinity
		}
		if diff := cmp.Diff(wantPod, got.PodAffinity); diff != "" {
			t.Fatalf("pod affinity changed (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantAnti, got.PodAntiAffinity); diff != "" {
			t.Fatalf("pod anti-affinity changed (-want +got):\n%s", diff)
		}

		// Round trip: the rewritten pod targets nodeName.
		target, err := affinity.GetTargetNodeName(pod)
		if err != nil || target != nodeName {
			t.Fatalf("GetTargetNodeName(rewritten pod) = %q, %v; want %q", target, err, nodeName)
		}
	})
}

func FuzzGetTargetNodeName(f *testing.F) {
	for _, tt := range targetCases {
		if tt.pod == nil {
			continue
		}
		w := &writer{tb: f}
		encodeAffinity(w, tt.pod.Spec.Affinity)
		f.Add(w.out, tt.pod.Spec.NodeName)
	}
	f.Fuzz(func(t *testing.T, data []byte, nodeName string) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
		pod.Spec.NodeName = nodeName
		pod.Spec.Affinity = decodeAffinity(&reader{data: data})
		before := pod.DeepCopy()

		got, err := affinity.GetTargetNodeName(pod)
		if diff := cmp.Diff(before, pod); diff != "" {
			t.Fatalf("GetTargetNodeName modified the pod (-want +got):\n%s", diff)
		}
		if err != nil {
			if !errors.Is(err, affinity.ErrNoTargetNode) {
				t.Fatalf("error %v does not wrap ErrNoTargetNode", err)
			}
			if got != "" {
				t.Fatalf("GetTargetNodeName() = %q with error %v, want empty", got, err)
			}
			return
		}
		if nodeName != "" {
			if got != nodeName {
				t.Fatalf("GetTargetNodeName() = %q, want spec.nodeName %q", got, nodeName)
			}
			return
		}
		// Found through the affinity: rewriting the affinity for the same
		// node keeps the answer.
		rewritten := pod.DeepCopy()
		rewritten.Spec.Affinity = affinity.ReplaceDaemonSetPodNodeNameNodeAffinity(pod.Spec.Affinity, got)
		again, err := affinity.GetTargetNodeName(rewritten)
		if err != nil || again != got {
			t.Fatalf("GetTargetNodeName(rewritten) = %q, %v; want %q", again, err, got)
		}
	})
}
