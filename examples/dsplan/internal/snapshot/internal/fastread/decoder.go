package fastread

import "io"

// Decoder is what the fast path asks of its caller: to decode, by the
// general path's rules, what it has cut from the input. An error from any
// method makes Read decline the input (ok false), so that the general
// path reads it and reports the error its way.
type Decoder[T any] interface {
	// Document decodes a YAML document read whole: one that is not a
	// kubectl List, or one whose items the fast path did not cut.
	Document(yaml []byte) ([]T, error)
	// Object decodes a JSON object read whole (version and kind "") or an
	// item, as compact JSON, that omits its apiVersion or kind (version
	// and kind those of its typed List, "" for kind List).
	Object(js []byte, version, kind string) ([]T, error)
	// ListHeader judges a kubectl List in YAML, its items left out: ok
	// false for a document of another shape, else the apiVersion and kind
	// that its items which omit theirs take.
	ListHeader(header []byte) (version, itemKind string, ok bool, err error)
	// Worker returns the decoder of one worker goroutine: it decodes an
	// item, compact JSON valid only during the call, whose own apiVersion
	// and kind are given. Each worker calls only its own.
	Worker() func(js []byte, apiVersion, kind string) (T, error)
}

// Input is what Read reads: Buf whole, or, when R is not nil, Size bytes
// of R a slab at a time.
type Input struct {
	Buf  []byte
	R    io.ReaderAt
	Size int64
	// Slab is how many bytes of R a read takes at first, SlabSize when 0
	// (tests make it small); a unit longer than a slab grows it.
	Slab int
}
