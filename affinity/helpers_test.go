package affinity_test

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The fuzz targets read their input as a stream of bytes, each byte picking a
// count or an entry of one of the pools below, so the fuzzer explores
// combinations of meaningful keys, operators and values. Every value the
// table cases use is in a pool, so the table cases encode to seeds.

var labelKeyPool = []string{
	"zone",
	"example.com/role",
	"gpu",
	"kubernetes.io/hostname",
	"",           // invalid: empty
	"bad key!",   // invalid: characters
	"-leading",   // invalid: must start with an alphanumeric
	"a/b/c",      // invalid: two slashes
	"node-count", // used with Gt and Lt
	"metadata.name",
}

var labelValuePool = []string{
	"",
	"a",
	"b",
	"1",
	"10",
	"-3",
	"+5",
	"007",
	"abc",
	"9223372036854775807",  // math.MaxInt64
	"9223372036854775808",  // math.MaxInt64+1: not an int64
	"-9223372036854775808", // math.MinInt64
	"bad value!",           // invalid label value
	"node-a",
}

var operatorPool = []corev1.NodeSelectorOperator{
	corev1.NodeSelectorOpIn,
	corev1.NodeSelectorOpNotIn,
	corev1.NodeSelectorOpExists,
	corev1.NodeSelectorOpDoesNotExist,
	corev1.NodeSelectorOpGt,
	corev1.NodeSelectorOpLt,
	"",       // invalid
	"Equals", // invalid for node selectors
	"in",     // invalid: operators are case-sensitive
}

var fieldKeyPool = []string{"metadata.name", "metadata.namespace", "spec.nodeName", ""}

// nodeNamePool holds the node names and the matchFields values.
var nodeNamePool = []string{"", "node-a", "node-b", "1"}

// The shape byte of an affinity.
const (
	hasAffinity     = 1 << iota // Affinity is non-nil
	hasNodeAffinity             // NodeAffinity is non-nil
	hasRequired                 // its required node selector is non-nil
	hasPreferred                // it has one preferred term
	hasPodAffinity              // PodAffinity and PodAntiAffinity are set
)

// podAffinity and podAntiAffinity are the fixed pod (anti-)affinity of a
// decoded affinity with hasPodAffinity.
func podAffinity() *corev1.PodAffinity {
	return &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "zone"}}}
}

func podAntiAffinity() *corev1.PodAntiAffinity {
	return &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 5, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname"}}}}
}

// reader yields the bytes of a fuzz input, then zeros.
type reader struct{ data []byte }

func (r *reader) next() byte {
	if len(r.data) == 0 {
		return 0
	}
	b := r.data[0]
	r.data = r.data[1:]
	return b
}

func (r *reader) count(max int) int { return int(r.next()) % (max + 1) }

func readPick[T any](r *reader, pool []T) T { return pool[int(r.next())%len(pool)] }

// writer is the inverse of reader; it fails tb when a value is not in its pool.
type writer struct {
	tb  testing.TB
	out []byte
}

func (w *writer) put(b int) { w.out = append(w.out, byte(b)) }

func writePick[T comparable](w *writer, pool []T, v T) {
	w.tb.Helper()
	for i := range pool {
		if pool[i] == v {
			w.put(i)
			return
		}
	}
	w.tb.Fatalf("value %q is not in its fuzz pool", any(v))
}

const (
	maxSelector = 3
	maxTerms    = 3
	maxReqs     = 3
	maxValues   = 3
	maxLabels   = 5
)

func decodeSpec(r *reader) *corev1.PodSpec {
	spec := &corev1.PodSpec{}
	if n := r.count(maxSelector); n > 0 {
		spec.NodeSelector = map[string]string{}
		for range n {
			k := readPick(r, labelKeyPool)
			spec.NodeSelector[k] = readPick(r, labelValuePool)
		}
	}
	spec.Affinity = decodeAffinity(r)
	return spec
}

func encodeSpec(w *writer, spec *corev1.PodSpec) {
	w.put(len(spec.NodeSelector))
	for _, k := range sortedKeys(spec.NodeSelector) {
		writePick(w, labelKeyPool, k)
		writePick(w, labelValuePool, spec.NodeSelector[k])
	}
	encodeAffinity(w, spec.Affinity)
}

func decodeAffinity(r *reader) *corev1.Affinity {
	shape := r.next()
	if shape&hasAffinity == 0 {
		return nil
	}
	a := &corev1.Affinity{}
	if shape&hasPodAffinity != 0 {
		a.PodAffinity, a.PodAntiAffinity = podAffinity(), podAntiAffinity()
	}
	if shape&hasNodeAffinity == 0 {
		return a
	}
	a.NodeAffinity = &corev1.NodeAffinity{}
	if shape&hasRequired != 0 {
		ns := &corev1.NodeSelector{}
		n := r.count(maxTerms)
		if n > 0 {
			ns.NodeSelectorTerms = []corev1.NodeSelectorTerm{}
		}
		for range n {
			ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, decodeTerm(r))
		}
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = ns
	}
	if shape&hasPreferred != 0 {
		a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.PreferredSchedulingTerm{
			{Weight: 10, Preference: decodeTerm(r)},
		}
	}
	return a
}

func encodeAffinity(w *writer, a *corev1.Affinity) {
	if a == nil {
		w.put(0)
		return
	}
	shape := hasAffinity
	if a.PodAffinity != nil || a.PodAntiAffinity != nil {
		shape |= hasPodAffinity
	}
	na := a.NodeAffinity
	if na != nil {
		shape |= hasNodeAffinity
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			shape |= hasRequired
		}
		if len(na.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
			shape |= hasPreferred
		}
	}
	w.put(shape)
	if shape&hasRequired != 0 {
		terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		w.put(len(terms))
		for i := range terms {
			encodeTerm(w, &terms[i])
		}
	}
	if shape&hasPreferred != 0 {
		encodeTerm(w, &na.PreferredDuringSchedulingIgnoredDuringExecution[0].Preference)
	}
}

func decodeTerm(r *reader) corev1.NodeSelectorTerm {
	var t corev1.NodeSelectorTerm
	for range r.count(maxReqs) {
		e := corev1.NodeSelectorRequirement{Key: readPick(r, labelKeyPool), Operator: readPick(r, operatorPool)}
		for range r.count(maxValues) {
			e.Values = append(e.Values, readPick(r, labelValuePool))
		}
		t.MatchExpressions = append(t.MatchExpressions, e)
	}
	for range r.count(maxReqs) {
		f := corev1.NodeSelectorRequirement{Key: readPick(r, fieldKeyPool), Operator: readPick(r, operatorPool)}
		for range r.count(maxValues) {
			f.Values = append(f.Values, readPick(r, nodeNamePool))
		}
		t.MatchFields = append(t.MatchFields, f)
	}
	return t
}

func encodeTerm(w *writer, t *corev1.NodeSelectorTerm) {
	w.put(len(t.MatchExpressions))
	for _, e := range t.MatchExpressions {
		writePick(w, labelKeyPool, e.Key)
		writePick(w, operatorPool, e.Operator)
		w.put(len(e.Values))
		for _, v := range e.Values {
			writePick(w, labelValuePool, v)
		}
	}
	w.put(len(t.MatchFields))
	for _, f := range t.MatchFields {
		writePick(w, fieldKeyPool, f.Key)
		writePick(w, operatorPool, f.Operator)
		w.put(len(f.Values))
		for _, v := range f.Values {
			writePick(w, nodeNamePool, v)
		}
	}
}

func decodeNode(r *reader) *corev1.Node {
	n := &corev1.Node{}
	n.Name = readPick(r, nodeNamePool)
	if c := r.count(maxLabels); c > 0 {
		n.Labels = map[string]string{}
		for range c {
			k := readPick(r, labelKeyPool)
			n.Labels[k] = readPick(r, labelValuePool)
		}
	}
	return n
}

func encodeNode(w *writer, n *corev1.Node) {
	writePick(w, nodeNamePool, n.Name)
	w.put(len(n.Labels))
	for _, k := range sortedKeys(n.Labels) {
		writePick(w, labelKeyPool, k)
		writePick(w, labelValuePool, n.Labels[k])
	}
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// Builders that keep the tables short.

func node(name string, kv ...string) *corev1.Node {
	n := &corev1.Node{}
	n.Name = name
	if len(kv) > 0 {
		n.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
	return n
}

func expr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func terms(ts ...corev1.NodeSelectorTerm) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: ts},
	}}
}

func exprTerm(es ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: es}
}

func fieldTerm(fs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchFields: fs}
}
