package fastjson

import "bytes"

// Status is what a scan of the bytes at hand found.
type Status uint8

// The statuses of a scan.
const (
	// Done: the unit ends within the bytes at hand.
	Done Status = iota
	// More: the unit runs past the bytes at hand.
	More
	// Bad: not a unit of this kind (the input is not what the fast
	// path reads).
	Bad
)

// scanComposite returns the length of the object or array at the start of
// b by counting brackets outside strings, without validating it (the
// compactor does).
func scanComposite(b []byte) (int, Status) {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			n, st := ScanString(b[i:])
			if st != Done {
				return 0, st
			}
			i += n - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, Done
			}
		}
	}
	return 0, More
}

// ScanString returns the length of the string at the start of b
// (b[0] is its quote), unvalidated.
func ScanString(b []byte) (int, Status) {
	for j := 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, More
		}
		j += k
		// An odd run of backslashes before the quote escapes it.
		bs := 0
		for bs < j-1 && b[j-1-bs] == '\\' {
			bs++
		}
		if bs%2 == 0 {
			return j + 1, Done
		}
		j++
	}
}

// ScanValue returns the length of the value at the start of b,
// unvalidated: an object, array or string by its end, a number or literal
// up to the next delimiter or the end of b.
func ScanValue(b []byte) (int, Status) {
	switch b[0] {
	case '{', '[':
		return scanComposite(b)
	case '"':
		return ScanString(b)
	}
	for i, ch := range b {
		switch ch {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i, Done
		}
	}
	return len(b), Done
}

// ItemType reads the apiVersion and kind of the compact JSON object js as
// sigs.k8s.io/json's Unmarshal into a struct of those two fields would
// (keys match exactly: "Kind" is another key), or returns ok false when it
// cannot say so cheaply or the object needs the caller's other rules: a
// top-level key that is escaped, items itself (a list in a list), a
// repeated apiVersion or kind, or one that is not a plain string. js must
// be valid JSON.
//
// It is hand-written because that pays (issue 38): reading the 35,023
// items of the generated 5,000-node capture (as kubectl prints it,
// compacted) takes 124 ms of CPU (median of 5; 245–374 ms wall on the
// loaded machine) against 277 ms (535–648 ms wall) for ItemTypeText, the
// same reading with jsontext, which validates every value it skips: 2.2×
// in time; memory is the same (233 KB and 70,046 allocations per pass,
// the strings returned):
//
//	go test -run '^$' -bench BenchmarkItemType -capture-nodes 5000 -benchmem -count 5 ./internal/snapshot/internal/fastjson
func ItemType(js []byte) (apiVersion, kind string, ok bool) {
	if len(js) < 2 || js[0] != '{' {
		return "", "", false
	}
	var haveVersion, haveKind bool
	i := 1
	for i < len(js) && js[i] != '}' {
		if js[i] == ',' {
			i++
		}
		n, st := ScanString(js[i:])
		if st != Done {
			return "", "", false
		}
		key := js[i+1 : i+n-1]
		i += n + 1 // the colon
		if i >= len(js) {
			return "", "", false
		}
		if !PlainKey(key) || string(key) == "items" {
			return "", "", false
		}
		var dst *string
		switch string(key) {
		case "apiVersion":
			if haveVersion {
				return "", "", false
			}
			haveVersion, dst = true, &apiVersion
		case "kind":
			if haveKind {
				return "", "", false
			}
			haveKind, dst = true, &kind
		}
		n, st = ScanValue(js[i:])
		if st != Done {
			return "", "", false
		}
		if dst != nil {
			if *dst, ok = PlainString(js[i : i+n]); !ok {
				return "", "", false
			}
		}
		i += n
	}
	return apiVersion, kind, true
}

// PlainKey reports whether the fast path may match the top-level key
// name as the general path does (sigs.k8s.io/json matches keys to field
// names exactly, case included): any key without an escape; an escaped
// one might spell apiVersion, kind or items and is left to the general
// path.
func PlainKey(name []byte) bool {
	return bytes.IndexByte(name, '\\') < 0
}

// PlainString returns the value of the JSON string v when it has no
// escape and no byte that encoding/json would replace.
func PlainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	for _, ch := range v[1 : len(v)-1] {
		if ch == '\\' || ch >= 0x80 || ch < 0x20 {
			return "", false
		}
	}
	return string(v[1 : len(v)-1]), true
}
