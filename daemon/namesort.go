package daemon

import (
	"cmp"
	"slices"
)

// nameKey is one name to sort and the index, in the caller's slice, of
// what it names. The sort works on chunk, eight bytes of the name at a
// time, so that it moves and compares small values that sit together in
// memory instead of following every name to its bytes.
type nameKey struct {
	name  string
	chunk uint64 // the name's bytes [depth, depth+8), big-endian, zero-padded
	i     int32
	rest  uint8 // len(name)-depth, capped at 9: how the name goes on past depth
}

// smallRun is the length up to which a run of keys is sorted by comparing
// names: below it, a radix pass costs more than the compares it saves.
const smallRun = 48

// nameKeyOf returns the key of name at index i, ready for sortByName.
func nameKeyOf(name string, i int) nameKey {
	k := nameKey{name: name, i: int32(i)}
	k.chunk, k.rest = chunkAt(name, 0)
	return k
}

// sortByName sorts keys by name, then by index: the order
// cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.i, b.i)) gives, for
// any names. keys must come from nameKeyOf, in index order. buf is working memory of at
// least len(keys) keys; sortByName returns it, grown if it had to be.
//
// It is a most-significant-chunk-first radix sort: the keys are sorted by
// their first eight bytes with stable byte-wise counting passes (a pass is
// skipped when every key has the same byte), and each run of keys that
// agree there and go on is sorted the same way by the next eight bytes.
// Its cost grows with the number of keys and the bytes that tell them
// apart, not with log n, and its passes read the keys in order.
func sortByName(keys, buf []nameKey) []nameKey {
	if cap(buf) < len(keys) {
		buf = make([]nameKey, len(keys))
	}
	sortChunks(keys, buf[:len(keys)], 0)
	return buf
}

func sortChunks(keys, buf []nameKey, depth int) {
	if len(keys) <= smallRun {
		slices.SortFunc(keys, func(a, b nameKey) int {
			return cmp.Or(cmp.Compare(a.name[depth:], b.name[depth:]), cmp.Compare(a.i, b.i))
		})
		return
	}
	// One read of the keys counts every digit: the rest (digit 8), then
	// the chunk's bytes from last (digit 0) to first (digit 7).
	var count [9][256]int
	for k := range keys {
		key := &keys[k]
		if depth > 0 { // nameKeyOf did depth 0
			key.chunk, key.rest = chunkAt(key.name, depth)
		}
		for d := range 8 {
			count[d][uint8(key.chunk>>(8*d))]++
		}
		count[8][key.rest]++
	}
	// Least significant first: rest, then the chunk's bytes from last to
	// first. Each pass is stable, so keys equal in everything stay in index
	// order. The passes go back and forth between keys and buf; the keys
	// are copied back once, at the end, if the last pass left them in buf.
	src, dst := keys, buf
	if radixPass(src, dst, &count[8], func(k *nameKey) uint8 { return k.rest }) {
		src, dst = dst, src
	}
	for d := range 8 {
		if radixPass(src, dst, &count[d], func(k *nameKey) uint8 { return uint8(k.chunk >> (8 * d)) }) {
			src, dst = dst, src
		}
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
	for start := 0; start < len(keys); {
		end := start + 1
		for end < len(keys) && keys[end].chunk == keys[start].chunk && keys[end].rest == keys[start].rest {
			end++
		}
		if end-start > 1 && keys[start].rest > 8 {
			// Equal so far and longer than this chunk: the next chunk
			// decides. Equal names are already in index order.
			sortChunks(keys[start:end], buf[start:end], depth+8)
		}
		start = end
	}
}

// radixPass stably sorts src by digit into dst and reports true, or, when
// every key has the same digit, does nothing and reports false. count holds
// how many keys have each digit.
func radixPass(src, dst []nameKey, count *[256]int, digit func(*nameKey) uint8) bool {
	if count[digit(&src[0])] == len(src) {
		return false
	}
	var next [256]int
	pos := 0
	for d, c := range count {
		next[d] = pos
		pos += c
	}
	for k := range src {
		d := digit(&src[k])
		dst[next[d]] = src[k]
		next[d]++
	}
	return true
}

// chunkAt returns name's bytes [depth, depth+8) as a big-endian number,
// zero-padded, and how many bytes of name are left from depth, capped at
// 9. Two names equal before depth compare as their (chunk, rest) pairs
// when those differ: where the chunks agree, a name that ends within the
// chunk is a prefix of the other.
func chunkAt(name string, depth int) (uint64, uint8) {
	n := len(name) - depth
	if n >= 8 {
		b := name[depth : depth+8]
		c := uint64(b[7]) | uint64(b[6])<<8 | uint64(b[5])<<16 | uint64(b[4])<<24 |
			uint64(b[3])<<32 | uint64(b[2])<<40 | uint64(b[1])<<48 | uint64(b[0])<<56
		return c, uint8(min(n, 9))
	}
	var c uint64
	for j := range 8 {
		c <<= 8
		if j < n {
			c |= uint64(name[depth+j])
		}
	}
	return c, uint8(max(n, 0))
}
