package fastjson

import "encoding/binary"

// eightSpaces is eight spaces read as one little-endian word.
const eightSpaces = 0x2020202020202020

// maxJSONDepth is how deeply encoding/json lets values nest: a document
// nested deeper is invalid JSON to it.
const maxJSONDepth = 10000

// jsonPath says where a compactor stands, for dropping
// metadata.managedFields[*].fieldsV1 of the object compacted.
type jsonPath uint8

const (
	pathOther jsonPath = iota
	// pathTop is the object compacted.
	pathTop
	// pathMeta is its metadata.
	pathMeta
	// pathManaged is metadata.managedFields.
	pathManaged
	// pathEntry is one of its entries.
	pathEntry
)

// compactor validates one JSON value and writes it to out without
// insignificant whitespace, as json.Compact does; with drop it leaves out
// the pairs "fieldsV1" of metadata.managedFields[*] of the top-level
// object (still validating their values), as if deleted. It accepts exactly
// what encoding/json accepts, nesting depth included: FuzzCompactJSON
// compares the two.
type compactor struct {
	src   []byte
	i     int
	out   []byte
	depth int
	// eof says that nothing follows src; short is set when the value runs
	// past the end of src that is not the end of the input.
	eof, short bool
}

// Compact appends the compact form of src, which must hold exactly one
// JSON value (whitespace around it allowed), to out. depth is the nesting
// of the value's surroundings (0 for a document); with drop the pairs
// "fieldsV1" of metadata.managedFields[*] of the top-level object are
// left out, as if deleted. ok is false when src is not such a value.
func Compact(out, src []byte, depth int, drop bool) ([]byte, bool) {
	c := compactor{src: src, out: out, depth: depth, eof: true}
	c.ws()
	if !c.value(startPath(drop)) {
		return out, false
	}
	c.ws()
	if c.i != len(src) {
		return out, false
	}
	return c.out, true
}

// CompactValue appends the compact form of the value at the start of src
// to out, as Compact does, and returns how many bytes of src it read.
// More says that the value runs past src, which is not the end of the
// input (eof false); Bad that src does not start with a valid value.
//
// The compactor is hand-written because that pays on the capture kubectl
// prints by default (issue 38): compacting the 35,023 items of the
// generated 5,000-node capture (JSON, managedFields dropped, 487 MB)
// takes 460 ms of CPU (median of 6 on a quiet machine; 454 ms wall)
// against 702 ms (706 ms wall) for CompactValueText, the same work by
// jsontext, which validates each value twice, reading and writing it:
// 1.53× in CPU, 1.56× wall (1.53× in a loaded run too). With
// managedFields (1,031 MB) the gain is 1.45× (859 against 1,244 ms),
// just short of the 1.5× that keeps hand-written code. Both allocate next
// to nothing (11–45 KB a pass).
//
//	go test -run '^$' -bench BenchmarkCompactItems -capture-nodes 5000 -benchmem -count 6 ./internal/snapshot/internal/fastjson
func CompactValue(out, src []byte, depth int, drop, eof bool) ([]byte, int, Status) {
	c := compactor{src: src, out: out, depth: depth, eof: eof}
	if !c.value(startPath(drop)) {
		if c.short {
			return out, 0, More
		}
		return out, 0, Bad
	}
	return c.out, c.i, Done
}

func startPath(drop bool) jsonPath {
	if drop {
		return pathTop
	}
	return pathOther
}

// end reports whether src ends at i, noting that the value runs short
// unless it is the end of the input.
func (c *compactor) end() bool {
	if c.i < len(c.src) {
		return false
	}
	c.short = !c.eof
	return true
}

// ws moves past whitespace, eight spaces at a time where it can (indented
// JSON is mostly spaces).
func (c *compactor) ws() {
	for c.i < len(c.src) {
		switch c.src[c.i] {
		case ' ':
			c.i++
			for c.i+8 <= len(c.src) && binary.LittleEndian.Uint64(c.src[c.i:]) == eightSpaces {
				c.i += 8
			}
		case '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *compactor) value(path jsonPath) bool {
	if c.end() {
		return false
	}
	switch ch := c.src[c.i]; ch {
	case '{':
		return c.object(path)
	case '[':
		return c.array(path)
	case '"':
		start := c.i
		if !c.str() {
			return false
		}
		c.out = append(c.out, c.src[start:c.i]...)
		return true
	case 't':
		return c.literal("true")
	case 'f':
		return c.literal("false")
	case 'n':
		return c.literal("null")
	default:
		if ch == '-' || ch >= '0' && ch <= '9' {
			return c.number()
		}
		return false
	}
}

func (c *compactor) literal(lit string) bool {
	rest := c.src[c.i:]
	if len(rest) < len(lit) {
		if string(rest) == lit[:len(rest)] {
			c.short = !c.eof
		}
		return false
	}
	if string(rest[:len(lit)]) != lit {
		return false
	}
	c.out = append(c.out, lit...)
	c.i += len(lit)
	return true
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; what
// follows it is the caller's to judge. A number that ends src runs short
// (more digits may follow) unless src is the end of the input.
func (c *compactor) number() bool {
	start := c.i
	if c.src[c.i] == '-' {
		c.i++
	}
	switch {
	case c.end():
		return false
	case c.src[c.i] == '0':
		c.i++
	case c.src[c.i] >= '1' && c.src[c.i] <= '9':
		c.digits()
	default:
		return false
	}
	if c.i < len(c.src) && c.src[c.i] == '.' {
		c.i++
		if c.digits() == 0 {
			c.end()
			return false
		}
	}
	if c.i < len(c.src) && (c.src[c.i] == 'e' || c.src[c.i] == 'E') {
		c.i++
		if c.i < len(c.src) && (c.src[c.i] == '+' || c.src[c.i] == '-') {
			c.i++
		}
		if c.digits() == 0 {
			c.end()
			return false
		}
	}
	if c.end() && c.short {
		return false
	}
	c.out = append(c.out, c.src[start:c.i]...)
	return true
}

func (c *compactor) digits() int {
	n := 0
	for c.i < len(c.src) && c.src[c.i] >= '0' && c.src[c.i] <= '9' {
		c.i++
		n++
	}
	return n
}

// str moves past a string, checking its escapes and that it holds no
// control character.
func (c *compactor) str() bool {
	n, st := validString(c.src[c.i:])
	c.i += n
	switch st {
	case Done:
		return true
	case More:
		c.short = !c.eof
	}
	return false
}

// validString returns the length of the JSON string at the start of b
// (b[0] is its quote) when it is valid: closed, no control character,
// only JSON's escapes; More when it runs past b. Bytes above 0x7f are
// taken as they are, as encoding/json takes them.
func validString(b []byte) (int, Status) {
	for i := 1; i < len(b); i++ {
		switch ch := b[i]; {
		case ch == '"':
			return i + 1, Done
		case ch < 0x20:
			return 0, Bad
		case ch == '\\':
			i++
			if i >= len(b) {
				return 0, More
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for k := 1; k <= 4; k++ {
					if i+k >= len(b) {
						return 0, More
					}
					if !isHex(b[i+k]) {
						return 0, Bad
					}
				}
				i += 4
			default:
				return 0, Bad
			}
		}
	}
	return 0, More
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// enter starts the object or array whose opening bracket is at i: it
// counts one more level of nesting, writes the bracket and moves past the
// whitespace after it. It reports false when the value nests deeper than
// maxJSONDepth.
func (c *compactor) enter(opening byte) bool {
	if c.depth++; c.depth > maxJSONDepth {
		return false
	}
	c.i++
	c.out = append(c.out, opening)
	c.ws()
	return true
}

// closes reports whether the object or array ends at i with closing; if
// it does, it leaves it.
func (c *compactor) closes(closing byte) bool {
	if c.end() || c.src[c.i] != closing {
		return false
	}
	c.leave(closing)
	return true
}

// leave moves past the closing bracket at i, writes it and counts the
// level of nesting left.
func (c *compactor) leave(closing byte) {
	c.i++
	c.out = append(c.out, closing)
	c.depth--
}

// next reads, at i, what follows a member of an object or array (a value,
// or a key and its value): a comma, which it moves past (more: another
// member follows), or the closing bracket, which it leaves. ok is false for
// anything else or the end of src. The caller moves past the whitespace
// around it (so that next stays small enough to inline).
func (c *compactor) next(closing byte) (more, ok bool) {
	if c.end() {
		return false, false
	}
	switch c.src[c.i] {
	case ',':
		c.i++
		return true, true
	case closing:
		c.leave(closing)
		return false, true
	}
	return false, false
}

func (c *compactor) object(path jsonPath) bool {
	if !c.enter('{') {
		return false
	}
	if c.closes('}') {
		return true
	}
	written := 0
	for {
		if c.end() || c.src[c.i] != '"' {
			return false
		}
		keyStart := c.i
		if !c.str() {
			return false
		}
		key := c.src[keyStart:c.i]
		c.ws()
		if c.end() || c.src[c.i] != ':' {
			return false
		}
		c.i++
		c.ws()
		child := pathOther
		switch {
		case path == pathTop && string(key) == `"metadata"`:
			child = pathMeta
		case path == pathMeta && string(key) == `"managedFields"`:
			child = pathManaged
		}
		if path == pathEntry && string(key) == `"fieldsV1"` {
			mark := len(c.out)
			if !c.value(pathOther) {
				return false
			}
			c.out = c.out[:mark]
		} else {
			if written > 0 {
				c.out = append(c.out, ',')
			}
			c.out = append(c.out, key...)
			c.out = append(c.out, ':')
			if !c.value(child) {
				return false
			}
			written++
		}
		c.ws()
		if more, ok := c.next('}'); !more {
			return ok
		}
		c.ws()
	}
}

func (c *compactor) array(path jsonPath) bool {
	if !c.enter('[') {
		return false
	}
	if c.closes(']') {
		return true
	}
	child := pathOther
	if path == pathManaged {
		child = pathEntry
	}
	for {
		if !c.value(child) {
			return false
		}
		c.ws()
		if more, ok := c.next(']'); !more {
			return ok
		}
		c.out = append(c.out, ',')
		c.ws()
	}
}
