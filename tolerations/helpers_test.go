package tolerations_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The pools below are the alphabet of the fuzz targets: a fuzz input is a
// byte string whose bytes pick entries from these pools, so the fuzzer
// explores combinations of meaningful values rather than random text. Every
// value a table case uses must appear here, so that the table cases can be
// encoded as seeds.

var keyPool = []string{
	"",
	corev1.TaintNodeNotReady,
	corev1.TaintNodeUnreachable,
	corev1.TaintNodeDiskPressure,
	corev1.TaintNodeMemoryPressure,
	corev1.TaintNodePIDPressure,
	corev1.TaintNodeUnschedulable,
	corev1.TaintNodeNetworkUnavailable,
	"example.com/dedicated",
	"gpu",
}

var tolerationOpPool = []corev1.TolerationOperator{
	"",
	corev1.TolerationOpExists,
	corev1.TolerationOpEqual,
	corev1.TolerationOpLt,
	corev1.TolerationOpGt,
	"exists", // wrong case: an unknown operator
}

var valuePool = []string{
	"",
	"true",
	"infra",
	"1",
	"10",
	"-3",
	"+5",
	"007",
	"abc",
	"9223372036854775807",  // math.MaxInt64
	"9223372036854775808",  // math.MaxInt64+1: not an int64
	"-9223372036854775808", // math.MinInt64
	"1_000",
	" 1",
}

var effectPool = []corev1.TaintEffect{
	"",
	corev1.TaintEffectNoSchedule,
	corev1.TaintEffectPreferNoSchedule,
	corev1.TaintEffectNoExecute,
	"Bogus",
}

var secondsPool = []*int64{nil, int64Ptr(0), int64Ptr(300)}

// pick returns the entry of pool that b selects.
func pick[T any](pool []T, b byte) T { return pool[int(b)%len(pool)] }

// index returns the position of v in pool, failing tb when v is missing.
func index[T comparable](tb testing.TB, pool []T, v T) byte {
	tb.Helper()
	for i := range pool {
		if pool[i] == v {
			return byte(i)
		}
	}
	tb.Fatalf("value %v is not in its fuzz pool", v)
	return 0
}

const tolerationWidth = 5

// decodeTolerations turns data into tolerations, tolerationWidth bytes
// each; trailing bytes are ignored. Empty data gives nil.
func decodeTolerations(data []byte) []corev1.Toleration {
	var out []corev1.Toleration
	for ; len(data) >= tolerationWidth; data = data[tolerationWidth:] {
		t := corev1.Toleration{
			Key:      pick(keyPool, data[0]),
			Operator: pick(tolerationOpPool, data[1]),
			Value:    pick(valuePool, data[2]),
			Effect:   pick(effectPool, data[3]),
		}
		if s := pick(secondsPool, data[4]); s != nil {
			t.TolerationSeconds = int64Ptr(*s)
		}
		out = append(out, t)
	}
	return out
}

// encodeTolerations is the inverse of decodeTolerations.
func encodeTolerations(tb testing.TB, tols []corev1.Toleration) []byte {
	tb.Helper()
	var out []byte
	for _, t := range tols {
		sec := byte(0)
		if t.TolerationSeconds != nil {
			sec = 1
			if *t.TolerationSeconds != 0 {
				sec = 2
			}
		}
		out = append(out,
			index(tb, keyPool, t.Key),
			index(tb, tolerationOpPool, t.Operator),
			index(tb, valuePool, t.Value),
			index(tb, effectPool, t.Effect),
			sec)
	}
	return out
}

const taintWidth = 3

// decodeTaints turns data into taints, taintWidth bytes each.
func decodeTaints(data []byte) []corev1.Taint {
	var out []corev1.Taint
	for ; len(data) >= taintWidth; data = data[taintWidth:] {
		out = append(out, corev1.Taint{
			Key:    pick(keyPool, data[0]),
			Value:  pick(valuePool, data[1]),
			Effect: pick(effectPool, data[2]),
		})
	}
	return out
}

// encodeTaints is the inverse of decodeTaints.
func encodeTaints(tb testing.TB, taints []corev1.Taint) []byte {
	tb.Helper()
	var out []byte
	for _, t := range taints {
		out = append(out, index(tb, keyPool, t.Key), index(tb, valuePool, t.Value), index(tb, effectPool, t.Effect))
	}
	return out
}

// tol and taint keep the tables short.
func tol(key string, op corev1.TolerationOperator, value string, effect corev1.TaintEffect) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
}

func taint(key, value string, effect corev1.TaintEffect) corev1.Taint {
	return corev1.Taint{Key: key, Value: value, Effect: effect}
}

func withSeconds(t corev1.Toleration, s int64) corev1.Toleration {
	t.TolerationSeconds = int64Ptr(s)
	return t
}

func int64Ptr(v int64) *int64 { return &v }
