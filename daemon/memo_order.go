package daemon

import (
	"cmp"
	"slices"

	"github.com/daemonplan/daemonplan/daemon/internal/namesort"
)

// The orders a memo keeps: sorted index lists of its entries, by name.

// insertSorted returns kept (sorted by name) with added inserted in name
// order; it sorts added and reuses kept's memory when it can.
func insertSorted(kept, added []int32, name func(int32) string) []int32 {
	if len(added) == 0 {
		return kept
	}
	sortByName(added, name)
	if len(kept) == 0 {
		return append(kept, added...)
	}
	out := make([]int32, 0, len(kept)+len(added))
	from := 0
	for _, a := range added {
		n := name(a)
		at, _ := slices.BinarySearchFunc(kept[from:], n, func(k int32, n string) int { return cmp.Compare(name(k), n) })
		out = append(out, kept[from:from+at]...)
		out = append(out, a)
		from += at
	}
	return append(out, kept[from:]...)
}

// resize returns s with length n, keeping its elements (a positional
// lookup checks what it reads, so stale ones past the old length do no
// harm).
func resize(s []int32, n int) []int32 {
	if cap(s) < n {
		return append(s[:cap(s)], make([]int32, n-cap(s))...)
	}
	return s[:n]
}

// sortByName sorts the entries idx by name. A long list (a first plan's)
// goes through namesort, which reads each name once into its key instead
// of at every comparison.
func sortByName(idx []int32, name func(int32) string) {
	if len(idx) <= 64 {
		slices.SortFunc(idx, func(a, b int32) int { return cmp.Compare(name(a), name(b)) })
		return
	}
	keys := make([]namesort.Key, len(idx))
	for k, i := range idx {
		keys[k] = namesort.KeyOf(name(i), k)
	}
	orig := slices.Clone(idx)
	namesort.Sort(keys, nil, func(k int32) string { return name(orig[k]) })
	for k, key := range keys {
		idx[k] = orig[key.Index()]
	}
}
