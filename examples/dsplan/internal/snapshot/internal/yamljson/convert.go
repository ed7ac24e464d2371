package yamljson

import (
	"bytes"
	"slices"
)

// ToJSON converts the block YAML that kubectl prints (sorted block
// mappings, compact block sequences, plain, quoted and literal scalars,
// empty flow collections) to the JSON sigs.k8s.io/yaml.YAMLToJSON returns
// for it, byte for byte, about thirty times faster. It returns ok false for
// anything outside that subset (anchors, tags, flow collections, multi-line
// plain or quoted scalars, comments, tabs, non-ASCII text, duplicate
// keys, numbers other than plain decimal integers, ...); the caller then
// converts with YAMLToJSON. FuzzToJSON compares the two.
//
// With dropFieldsV1 it leaves out metadata.managedFields[*].fieldsV1 of
// the top-level object (still reading it), as if deleted from the JSON.
func ToJSON(src []byte, dropFieldsV1 bool) (out []byte, ok bool) {
	var p Parser
	return p.Convert(make([]byte, 0, len(src)), src, dropFieldsV1)
}

// Convert is ToJSON appending to out, reusing p's scratch space: a
// worker converts many items with one Parser. The result does not
// refer to src.
func (p *Parser) Convert(out, src []byte, dropFieldsV1 bool) ([]byte, bool) {
	for _, c := range src {
		if c >= 0x7f || c < 0x20 && c != '\n' {
			return nil, false
		}
	}
	*p = Parser{src: src, dropFieldsV1: dropFieldsV1, out: out, entries: p.entries[:0], scratch: p.scratch[:0]}
	p.skipBlank()
	if p.pos >= len(p.src) || p.indent() != 0 {
		return nil, false
	}
	if !p.mapping(0, 0, 0) {
		return nil, false
	}
	p.skipBlank()
	if p.pos != len(p.src) {
		return nil, false
	}
	return p.out, true
}

// Parser converts as ToJSON does, keeping its scratch space from one
// Convert to the next; the zero Parser is ready. pos is where the current
// line (or the rest of it, after a sequence's "- ") starts.
type Parser struct {
	src          []byte
	pos          int
	out          []byte
	dropFieldsV1 bool
	// entries is scratch space for sorting mapping keys.
	entries []yentry
	// scratch holds a quoted scalar's value while it is written.
	scratch []byte
	// depth counts the open collections (yaml.v2 refuses too many).
	depth int
}

// yentry is one key of a mapping and where its `"key":value` lies in out.
type yentry struct {
	key        []byte
	start, end int
}

// lineEnd returns the end of the line at i (the index of its '\n' or
// len(src)).
func (p *Parser) lineEnd(i int) int {
	if j := bytes.IndexByte(p.src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(p.src)
}

// indent returns the number of spaces at pos.
func (p *Parser) indent() int {
	n := 0
	for p.pos+n < len(p.src) && p.src[p.pos+n] == ' ' {
		n++
	}
	return n
}

// skipBlank moves pos past empty and all-space lines.
func (p *Parser) skipBlank() {
	for p.pos < len(p.src) {
		e := p.lineEnd(p.pos)
		if len(bytes.TrimLeft(p.src[p.pos:e], " ")) != 0 {
			return
		}
		p.pos = min(e+1, len(p.src))
	}
}

// mapping reads a block mapping whose keys stand at column col; its first
// key starts at pos+first (after a sequence's "- " the line is already
// partly read). depth counts the nesting: path is 1 in the top-level
// object's metadata, 2 in its managedFields entries.
func (p *Parser) mapping(col, first, path int) bool {
	if p.depth++; p.depth > 1000 {
		return false
	}
	defer func() { p.depth-- }()
	base := len(p.entries)
	start := len(p.out)
	p.out = append(p.out, '{')
	lineStart := true
	for {
		if !lineStart {
			p.skipBlank()
			if p.pos >= len(p.src) || p.indent() != col {
				break
			}
			first = col
		}
		lineStart = false
		e := p.lineEnd(p.pos)
		line := p.src[p.pos+first : e]
		if first == 0 && (bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("..."))) {
			return false // a document marker
		}
		key, rest, ok := splitKey(line)
		if !ok {
			return false
		}
		if len(p.entries) > base {
			p.out = append(p.out, ',')
		}
		entryStart := len(p.out)
		p.out = appendJSONString(p.out, key)
		p.out = append(p.out, ':')
		p.pos = min(e+1, len(p.src))
		childPath := 0
		switch {
		case path == 0 && col == 0 && string(key) == "metadata":
			childPath = 1
		case path == 1 && string(key) == "managedFields":
			childPath = 2
		}
		if len(rest) == 0 {
			if !p.blockValue(col, childPath) {
				return false
			}
		} else if !p.scalarValue(rest, col) {
			return false
		}
		if path == 3 && string(key) == "fieldsV1" && p.dropFieldsV1 {
			p.out = p.out[:entryStart]
			if len(p.entries) > base {
				p.out = p.out[:entryStart-1] // the comma
			}
			continue
		}
		p.entries = append(p.entries, yentry{key: key, start: entryStart, end: len(p.out)})
	}
	ents := p.entries[base:]
	defer func() { p.entries = p.entries[:base] }()
	sorted := true
	for i := 1; i < len(ents); i++ {
		switch c := bytes.Compare(ents[i-1].key, ents[i].key); {
		case c == 0:
			return false
		case c > 0:
			sorted = false
		}
	}
	if !sorted {
		tmp := slices.Clone(p.out[start+1:])
		off := start + 1
		slices.SortFunc(ents, func(a, b yentry) int { return bytes.Compare(a.key, b.key) })
		for i := 1; i < len(ents); i++ {
			if bytes.Equal(ents[i-1].key, ents[i].key) {
				return false
			}
		}
		p.out = p.out[:start+1]
		for i, en := range ents {
			if i > 0 {
				p.out = append(p.out, ',')
			}
			p.out = append(p.out, tmp[en.start-off:en.end-off]...)
		}
	}
	p.out = append(p.out, '}')
	return true
}

// blockValue reads the value of a key whose line ends after the colon: a
// nested mapping or sequence, or null.
func (p *Parser) blockValue(col, path int) bool {
	p.skipBlank()
	if p.pos >= len(p.src) {
		p.out = append(p.out, "null"...)
		return true
	}
	ind := p.indent()
	rest := p.src[p.pos+ind:]
	isSeq := len(rest) >= 2 && rest[0] == '-' && rest[1] == ' '
	switch {
	case ind == col && isSeq, ind > col && isSeq:
		return p.sequence(ind, path)
	case ind > col:
		if path == 2 {
			return false // managedFields is a list
		}
		return p.mapping(ind, ind, path)
	default:
		p.out = append(p.out, "null"...)
		return true
	}
}

// sequence reads a block sequence whose "- " stand at column col.
func (p *Parser) sequence(col, path int) bool {
	if p.depth++; p.depth > 1000 {
		return false
	}
	defer func() { p.depth-- }()
	p.out = append(p.out, '[')
	for n := 0; ; n++ {
		p.skipBlank()
		if p.pos >= len(p.src) || p.indent() != col {
			break
		}
		e := p.lineEnd(p.pos)
		line := p.src[p.pos+col : e]
		if len(line) < 2 || line[0] != '-' || line[1] != ' ' {
			break
		}
		if n > 0 {
			p.out = append(p.out, ',')
		}
		item := line[2:]
		if len(item) == 0 {
			return false
		}
		if _, _, ok := splitKey(item); ok {
			itemPath := 0
			if path == 2 {
				itemPath = 3
			}
			if !p.mapping(col+2, col+2, itemPath) {
				return false
			}
			continue
		}
		if path == 2 {
			return false
		}
		p.pos = min(e+1, len(p.src))
		if !p.scalarValue(item, col) {
			return false
		}
	}
	p.out = append(p.out, ']')
	return true
}

// splitKey splits a "key: value" or "key:" line into its key (unquoted)
// and the rest, or returns ok false when line is not such a line of the
// subset. A plain key is a slice of line.
func splitKey(line []byte) (key, rest []byte, ok bool) {
	if len(line) == 0 {
		return nil, nil, false
	}
	var k []byte
	var i int
	switch c := line[0]; c {
	case '"', '\'':
		s, n, ok := quoted(nil, line)
		if !ok {
			return nil, nil, false
		}
		k, i = s, n
		if i >= len(line) || line[i] != ':' || i+1 < len(line) && line[i+1] != ' ' {
			return nil, nil, false // "key":value is a plain scalar to yaml.v2
		}
	default:
		if !plainStart(line) {
			return nil, nil, false
		}
		for i = 0; i < len(line); i++ {
			if line[i] == ':' && (i+1 == len(line) || line[i+1] == ' ') {
				break
			}
			if line[i] == '#' && line[i-1] == ' ' {
				return nil, nil, false
			}
		}
		if i == len(line) || line[i-1] == ' ' {
			return nil, nil, false
		}
		plain := line[:i]
		if v, isStr := resolvePlain(plain); !isStr || v != "" {
			return nil, nil, false
		}
		k = plain
	}
	// line[i] is the colon.
	if i+1 == len(line) {
		return k, nil, true
	}
	if i+2 == len(line) || line[i+2] == ' ' {
		return nil, nil, false // trailing or double space
	}
	return k, line[i+2:], true
}

// plainStart reports whether a plain scalar of the subset may start s.
func plainStart(s []byte) bool {
	if s[0] == '-' {
		return len(s) > 1 && s[1] != ' '
	}
	switch s[0] {
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		return false
	}
	return true
}
