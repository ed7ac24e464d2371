package namesort

import (
	"cmp"
	"slices"
)

// Key is one name to sort and the index, in the caller's slice, of
// what it names. It carries the name's length and first sixteen bytes
// (head), so that the sort, and the comparisons after it, read the name's
// own bytes again only where two names agree on sixteen bytes and go on:
// in a large cluster, those bytes have left the CPU caches by the time the
// keys are sorted. A NameOf gives the name itself, by index, where it is
// needed. The sort works on eight bytes of the name at a time.
type Key struct {
	// head is the name's bytes [0, 16), big-endian, zero-padded. While
	// Sort runs, head[1] may hold later bytes (see sortChunks).
	head [2]uint64
	n    uint32 // the name's length
	i    int32
}

// Index returns the index, in the caller's slice, of what k names: the i
// given to KeyOf.
func (k Key) Index() int32 { return k.i }

// NameOf returns the name of the thing at index i of the caller's slice:
// the name a Key with that index was made from.
type NameOf func(i int32) string

// headBytes is how many bytes of its name a Key carries.
const headBytes = 16

// smallRun is the length up to which a run of keys is sorted by comparing
// names: below it, a radix pass costs more than the compares it saves.
const smallRun = 48

// KeyOf returns the key of name at index i, ready for Sort.
func KeyOf(name string, i int) Key {
	return Key{head: [2]uint64{chunkAt(name, 0), chunkAt(name, 8)}, n: uint32(len(name)), i: int32(i)}
}

// Compare orders a, named by an, and b, named by bn, as comparing
// their names does, reading the names' bytes only past their heads, where
// both go on and the heads agree.
func Compare(a Key, an NameOf, b Key, bn NameOf) int {
	if c := cmp.Or(cmp.Compare(a.head[0], b.head[0]), cmp.Compare(a.head[1], b.head[1])); c != 0 {
		return c
	}
	// Equal heads: a name of up to headBytes bytes is a prefix of the
	// other name (the padding is zeros, and so are the bytes it stands
	// for), so the shorter name comes first.
	if a.n <= headBytes || b.n <= headBytes {
		return cmp.Compare(a.n, b.n)
	}
	return cmp.Compare(an(a.i)[headBytes:], bn(b.i)[headBytes:])
}

// Same reports whether a, named by an, and b, named by bn, have the
// same name, reading the names' bytes only past their heads, where both go
// on and the heads agree.
func Same(a Key, an NameOf, b Key, bn NameOf) bool {
	return a.n == b.n && a.head == b.head &&
		(a.n <= headBytes || an(a.i)[headBytes:] == bn(b.i)[headBytes:])
}

// Sort sorts keys by name, then by index: the order
// cmp.Or(cmp.Compare(name(a.i), name(b.i)), cmp.Compare(a.i, b.i)) gives,
// for any names. keys must come from KeyOf, in index order, and name
// must give the names they were made from. buf is working memory of at
// least len(keys) keys; Sort returns it, grown if it had to be.
//
// It is a most-significant-chunk-first radix sort: the keys are sorted by
// their first eight bytes with stable byte-wise counting passes (a pass is
// skipped when every key has the same byte), and each run of keys that
// agree there and go on is sorted the same way by the next eight bytes.
// Its cost grows with the number of keys and the bytes that tell them
// apart, not with log n, and its passes read the keys in order.
func Sort(keys, buf []Key, name NameOf) []Key {
	if cap(buf) < len(keys) {
		buf = make([]Key, len(keys))
	}
	sortChunks(keys, buf[:len(keys)], 0, name)
	return buf
}

func sortChunks(keys, buf []Key, depth int, name NameOf) {
	if len(keys) <= smallRun {
		// The keys agree on their first depth bytes: comparing whole
		// names orders them as comparing the rest would.
		slices.SortFunc(keys, func(a, b Key) int {
			return cmp.Or(Compare(a, name, b, name), cmp.Compare(a.i, b.i))
		})
		return
	}
	// w is the head word that holds the bytes [depth, depth+8). Past the
	// head, the keys of one run agree on both head words: head[1] then
	// holds the bytes at depth while the run is sorted, and gets its common
	// value back after.
	w := min(depth/8, 1)
	if depth >= headBytes {
		common := keys[0].head[1]
		for k := range keys {
			keys[k].head[1] = chunkAt(name(keys[k].i), depth)
		}
		defer func() {
			for k := range keys {
				keys[k].head[1] = common
			}
		}()
	}
	// One read of the keys counts every digit: the rest (digit 8), then
	// the chunk's bytes from last (digit 0) to first (digit 7).
	var count [9][256]int
	for k := range keys {
		key := &keys[k]
		for d := range 8 {
			count[d][uint8(key.head[w]>>(8*d))]++
		}
		count[8][restAt(key.n, depth)]++
	}
	// Least significant first: rest, then the chunk's bytes from last to
	// first. Each pass is stable, so keys equal in everything stay in index
	// order. The passes go back and forth between keys and buf; the keys
	// are copied back once, at the end, if the last pass left them in buf.
	src, dst := keys, buf
	if radixPass(src, dst, &count[8], func(k *Key) uint8 { return restAt(k.n, depth) }) {
		src, dst = dst, src
	}
	for d := range 8 {
		if radixPass(src, dst, &count[d], func(k *Key) uint8 { return uint8(k.head[w] >> (8 * d)) }) {
			src, dst = dst, src
		}
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
	for start := 0; start < len(keys); {
		end := start + 1
		for end < len(keys) && keys[end].head[w] == keys[start].head[w] && restAt(keys[end].n, depth) == restAt(keys[start].n, depth) {
			end++
		}
		if end-start > 1 && restAt(keys[start].n, depth) > 8 {
			// Equal so far and longer than this chunk: the next chunk
			// decides. Equal names are already in index order.
			sortChunks(keys[start:end], buf[start:end], depth+8, name)
		}
		start = end
	}
}

// radixPass stably sorts src by digit into dst and reports true, or, when
// every key has the same digit, does nothing and reports false. count holds
// how many keys have each digit.
func radixPass(src, dst []Key, count *[256]int, digit func(*Key) uint8) bool {
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

// restAt returns how many bytes of a name of n bytes are left from
// depth, capped at 9. Two names equal before depth compare as their
// (chunk, rest) pairs when those differ: where the chunks agree, a name
// that ends within the chunk is a prefix of the other.
func restAt(n uint32, depth int) uint8 {
	return uint8(min(max(int(n)-depth, 0), 9))
}

// chunkAt returns name's bytes [depth, depth+8) as a big-endian number,
// zero-padded.
func chunkAt(name string, depth int) uint64 {
	if len(name) >= depth+8 {
		b := name[depth : depth+8]
		return uint64(b[7]) | uint64(b[6])<<8 | uint64(b[5])<<16 | uint64(b[4])<<24 |
			uint64(b[3])<<32 | uint64(b[2])<<40 | uint64(b[1])<<48 | uint64(b[0])<<56
	}
	var c uint64
	for j := range 8 {
		c <<= 8
		if depth+j < len(name) {
			c |= uint64(name[depth+j])
		}
	}
	return c
}
