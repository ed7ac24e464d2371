package namesort

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// byNameThenIndex is the order Sort promises.
func byNameThenIndex(names []string) func(a, b Key) int {
	return func(a, b Key) int {
		return cmp.Or(cmp.Compare(names[a.i], names[b.i]), cmp.Compare(a.i, b.i))
	}
}

// keysOf returns the keys of names and their NameOf.
func keysOf(names []string) ([]Key, NameOf) {
	keys := make([]Key, len(names))
	for i, n := range names {
		keys[i] = KeyOf(n, i)
	}
	return keys, func(i int32) string { return names[i] }
}

func namesAndIndexes(keys []Key, name NameOf) []string {
	out := make([]string, len(keys))
	for k, key := range keys {
		out[k] = fmt.Sprintf("%q#%d", name(key.i), key.i)
	}
	return out
}

// checkComparisons checks Compare and Same against comparing the
// names themselves, on every pair of keys when there are few, else on
// neighbours and pairs some way apart.
func checkComparisons(t *testing.T, keys []Key, name NameOf) {
	t.Helper()
	check := func(a, b Key) {
		an, bn := name(a.i), name(b.i)
		if got, want := Compare(a, name, b, name), cmp.Compare(an, bn); got != want {
			t.Fatalf("Compare(%q, %q) = %d, want %d", an, bn, got, want)
		}
		if got, want := Same(a, name, b, name), an == bn; got != want {
			t.Fatalf("Same(%q, %q) = %v, want %v", an, bn, got, want)
		}
	}
	for x := range keys {
		if len(keys) <= 64 {
			for y := range keys {
				check(keys[x], keys[y])
			}
			continue
		}
		for _, d := range []int{1, 7, 61} {
			check(keys[x], keys[(x+d)%len(keys)])
		}
	}
}

func TestCompareNames(t *testing.T) {
	names := []string{
		"", "a", "ab", "ab\x00", "ab\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
		"ab\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", "abcdefghijklmnop",
		"abcdefghijklmnopq", "abcdefghijklmnopr", "abcdefghijklmnopqr", "abcdefghijklmno", "abcdefghijklmnoq",
		"abcdefgh", "abcdefghi", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
		"gke-prod-cluster-default-pool-7c9d0001-x1", "gke-prod-cluster-default-pool-7c9d0001-x2",
	}
	keys, name := keysOf(names)
	checkComparisons(t, keys, name)
}

func TestSortByName(t *testing.T) {
	tests := []struct {
		name  string
		names []string
	}{
		{"empty", nil},
		{"one", []string{"a"}},
		{"shared prefix longer than a chunk", []string{"node-0000000010", "node-0000000002", "node-0000000001", "node-000000001"}},
		{"prefixes of each other", []string{"abcdefghij", "abcdefgh", "abcdefghi", "abc", "", "abcdefgh"}},
		{"NUL bytes against the padding", []string{"ab\x00", "ab", "ab\x00\x00\x00\x00\x00\x00", "ab\x00\x00\x00\x00\x00\x00\x00", "ab\x00\x00\x00\x00\x00\x00\x01"}},
		{"duplicates keep their input order", []string{"b", "a", "b", "a", "b"}},
		{"long names", []string{"gke-cluster-default-pool-1234abcd-zz01", "gke-cluster-default-pool-1234abcd-zz00", "gke-cluster-default-pool-1234abcd-zz0", "gke-cluster-default-pool-0234abcd-zz01"}},
		{"high bytes", []string{"\xff\xfe", "\xff", "\x7f", "\x80abcdefgh"}},
		{"many, past the small-run cut", manyNames()},
		{"tens of thousands", largeNames()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, name := keysOf(tt.names)
			slices.SortFunc(want, byNameThenIndex(tt.names))
			got, _ := keysOf(tt.names)
			Sort(got, nil, name)
			if diff := gocmp.Diff(namesAndIndexes(want, name), namesAndIndexes(got, name)); diff != "" {
				t.Errorf("Sort order (-want +got):\n%s", diff)
			}
			checkComparisons(t, got, name)
		})
	}
}

// manyNames are enough names for the radix passes, with shared prefixes,
// prefixes of each other, duplicates and NUL bytes.
func manyNames() []string {
	var out []string
	for i := range 300 {
		out = append(out,
			fmt.Sprintf("node-%05d", (i*7919)%301),
			fmt.Sprintf("gke-cluster-default-pool-%08x-%d", (i*104729)%97, i%3),
			fmt.Sprintf("n%d", i%11),
			fmt.Sprintf("ab\x00%d", i%5),
		)
	}
	return out
}

// largeNames are tens of thousands of names of several shapes, with long
// runs at depth 0 and past the sixteen bytes of the head.
func largeNames() []string {
	const n = 24_000
	var out []string
	for i := range n {
		j := (i * 7919) % n
		out = append(out,
			fmt.Sprintf("node-%05d", j%(2*n/3)),
			fmt.Sprintf("gke-prod-cluster-default-pool-%08x-%d", j%(n/3+7), j%3),
		)
		if i%5 == 0 {
			out = append(out, fmt.Sprintf("n%d", j%13), "")
		}
	}
	return out
}

// FuzzSortByName checks Sort against the plain comparison sort, and
// the sorted keys' Compare and Same against comparing their
// names, on names cut from the fuzzer's bytes, duplicates and shared
// prefixes included.
func FuzzSortByName(f *testing.F) {
	f.Add([]byte("node-1\x00node-10\x00node-2\x00node-1"), uint8(3))
	f.Add([]byte("abcdefghijklmnop\x00abcdefghijklmnoq\x00abcdefgh"), uint8(0))
	f.Add([]byte("ab\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00,ab,ab\x00,abcdefghijklmnopqrs,abcdefghijklmnopqrt"), uint8(','))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		var names []string
		start := 0
		for i, b := range data {
			if b == cut {
				names = append(names, string(data[start:i]))
				start = i + 1
			}
		}
		names = append(names, string(data[start:]))
		// Past the small-run cut, so that the radix passes run too: copies,
		// and copies with a byte more.
		for n := len(names); len(names) <= 2*smallRun; {
			for j, name := range names[:n] {
				names = append(names, name, name+string(rune('a'+j%3)))
			}
		}
		want, name := keysOf(names)
		slices.SortFunc(want, byNameThenIndex(names))
		got, _ := keysOf(names)
		Sort(got, nil, name)
		if diff := gocmp.Diff(namesAndIndexes(want, name), namesAndIndexes(got, name)); diff != "" {
			t.Fatalf("Sort order (-want +got):\n%s", diff)
		}
		// The keys' comparisons, after the sort has worked on them.
		checkComparisons(t, got, name)
	})
}

// BenchmarkSortByName sorts shuffled node names of two shapes against the
// comparison sort it replaces; the names' bytes are far from the keys, as
// an informer's objects are.
func BenchmarkSortByName(b *testing.B) {
	shapes := map[string]string{"short": "node-%05d", "long": "gke-prod-cluster-default-pool-7c9d%06d-x1"}
	for _, shape := range []string{"short", "long"} {
		for _, n := range []int{5_000, 50_000} {
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf(shapes[shape], (i*7919)%n)
			}
			orig, name := keysOf(names)
			keys := make([]Key, n)
			b.Run(fmt.Sprintf("sort=radix/names=%s/n=%d", shape, n), func(b *testing.B) {
				var buf []Key
				for b.Loop() {
					copy(keys, orig)
					buf = Sort(keys, buf, name)
				}
			})
			b.Run(fmt.Sprintf("sort=compare/names=%s/n=%d", shape, n), func(b *testing.B) {
				for b.Loop() {
					copy(keys, orig)
					slices.SortFunc(keys, byNameThenIndex(names))
				}
			})
		}
	}
}
