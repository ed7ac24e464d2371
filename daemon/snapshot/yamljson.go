package snapshot

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// fastYAMLToJSON converts the block YAML that kubectl prints (sorted block
// mappings, compact block sequences, plain, quoted and literal scalars,
// empty flow collections) to the JSON sigs.k8s.io/yaml.YAMLToJSON returns
// for it, byte for byte, about thirty times faster. It returns ok false for
// anything outside that subset (anchors, tags, flow collections, multi-line
// plain or quoted scalars, comments, tabs, non-ASCII text, duplicate
// keys, numbers other than plain decimal integers, ...); the caller then
// converts with YAMLToJSON. FuzzFastYAMLToJSON compares the two.
//
// With dropFieldsV1 it leaves out metadata.managedFields[*].fieldsV1 of
// the top-level object (still reading it), as if deleted from the JSON.
func fastYAMLToJSON(src []byte, dropFieldsV1 bool) (out []byte, ok bool) {
	var p yparser
	return p.convert(make([]byte, 0, len(src)), src, dropFieldsV1)
}

// convert is fastYAMLToJSON appending to out, reusing p's scratch space:
// a worker converts many items with one yparser. The result does not
// refer to src.
func (p *yparser) convert(out, src []byte, dropFieldsV1 bool) ([]byte, bool) {
	for _, c := range src {
		if c >= 0x7f || c < 0x20 && c != '\n' {
			return nil, false
		}
	}
	*p = yparser{src: src, dropFieldsV1: dropFieldsV1, out: out, entries: p.entries[:0], scratch: p.scratch[:0]}
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

// yparser is the state of one fastYAMLToJSON: pos is where the current
// line (or the rest of it, after a sequence's "- ") starts.
type yparser struct {
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
func (p *yparser) lineEnd(i int) int {
	if j := bytes.IndexByte(p.src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(p.src)
}

// indent returns the number of spaces at pos.
func (p *yparser) indent() int {
	n := 0
	for p.pos+n < len(p.src) && p.src[p.pos+n] == ' ' {
		n++
	}
	return n
}

// skipBlank moves pos past empty and all-space lines.
func (p *yparser) skipBlank() {
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
func (p *yparser) mapping(col, first, path int) bool {
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
func (p *yparser) blockValue(col, path int) bool {
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
func (p *yparser) sequence(col, path int) bool {
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

// scalarValue reads the value after "key: " or "- ": a scalar on the rest
// of the line (or a literal block after it); col is the column of the key
// or "- ", beyond which no later line may be indented.
func (p *yparser) scalarValue(rest []byte, col int) bool {
	if len(rest) == 0 {
		return false
	}
	switch rest[0] {
	case '"', '\'':
		s, n, ok := quoted(p.scratch[:0], rest)
		if !ok || n != len(rest) {
			return false
		}
		p.scratch = s
		p.out = appendJSONString(p.out, s)
	case '|':
		return p.literal(rest, col)
	case '{', '[':
		if string(rest) != "{}" && string(rest) != "[]" {
			return false
		}
		p.out = append(p.out, rest...)
	default:
		if !plainStart(rest) || rest[len(rest)-1] == ' ' || rest[len(rest)-1] == ':' ||
			bytes.Contains(rest, []byte(": ")) || bytes.Contains(rest, []byte(" #")) {
			return false
		}
		lit, isStr := resolvePlain(rest)
		switch {
		case isStr:
			p.out = appendJSONString(p.out, rest)
		case lit == "":
			return false
		default:
			p.out = append(p.out, lit...)
		}
	}
	// A later line indented past col would continue the scalar.
	p.skipBlank()
	return p.pos >= len(p.src) || p.indent() <= col
}

// literal reads a literal block scalar ("|", "|-" or "|+" and the lines
// after it) of a key at column col.
func (p *yparser) literal(header []byte, col int) bool {
	switch string(header) {
	case "|", "|-", "|+":
	default:
		return false
	}
	var b strings.Builder
	ind := -1
	trailing := 0 // empty lines not yet written
	for p.pos < len(p.src) {
		e := p.lineEnd(p.pos)
		line := p.src[p.pos:e]
		if len(line) == 0 {
			trailing++
			p.pos = min(e+1, len(p.src))
			continue
		}
		n := 0
		for n < len(line) && line[n] == ' ' {
			n++
		}
		if n == len(line) {
			return false // an all-space line: not in the subset
		}
		if ind < 0 {
			if n <= col || trailing > 0 {
				return false
			}
			ind = n
		}
		if n < ind {
			break
		}
		if e == len(p.src) {
			return false // no final line break
		}
		for ; trailing > 0; trailing-- {
			b.WriteByte('\n')
		}
		b.Write(line[ind:])
		b.WriteByte('\n')
		p.pos = min(e+1, len(p.src))
	}
	if ind < 0 {
		return false
	}
	s := b.String()
	switch string(header) {
	case "|-":
		s = strings.TrimRight(s, "\n")
	case "|+":
		s += strings.Repeat("\n", trailing)
	}
	p.out = appendJSONString(p.out, []byte(s))
	return true
}

// quoted reads a single- or double-quoted scalar that closes on its line:
// its value, appended to buf, and the length read.
func quoted(buf, line []byte) (s []byte, n int, ok bool) {
	q := line[0]
	b := buf
	for i := 1; i < len(line); i++ {
		c := line[i]
		switch {
		case c == q && q == '\'' && i+1 < len(line) && line[i+1] == '\'':
			b = append(b, '\'')
			i++
		case c == q:
			return b, i + 1, true
		case c == '\\' && q == '"':
			if i+1 >= len(line) {
				return nil, 0, false
			}
			i++
			switch e := line[i]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'n':
				b = append(b, '\n')
			case 't':
				b = append(b, '\t')
			case 'r':
				b = append(b, '\r')
			case '0':
				b = append(b, 0)
			case 'x':
				if i+2 >= len(line) {
					return nil, 0, false
				}
				v, err := strconv.ParseUint(string(line[i+1:i+3]), 16, 8)
				if err != nil || v >= 0x80 {
					return nil, 0, false
				}
				b = append(b, byte(v))
				i += 2
			default:
				return nil, 0, false
			}
		default:
			b = append(b, c)
		}
	}
	return nil, 0, false
}

// resolvePlain resolves a plain scalar as yaml.v2 does for an untyped
// value: isStr with lit "" for a string; else lit is the JSON of the
// value, or "" when the subset leaves it out (floats, other bases, merge
// keys, ...).
func resolvePlain(b []byte) (lit string, isStr bool) {
	switch string(b) {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return "true", false
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return "false", false
	case "", "~", "null", "Null", "NULL":
		return "null", false
	case "<<", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return "", false
	}
	switch c := b[0]; {
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return "", true // not a number, a timestamp or a special value
	case c == '.':
		s := string(b)
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return "", false
		}
		return "", true
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		s := string(b)
		if timestamp(s) {
			return "", true // yaml.v2 gives an untyped timestamp its text
		}
		plain := strings.ReplaceAll(s, "_", "")
		if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
			if decimal(s) {
				return s, false
			}
			return "", false
		}
		if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return "", false
		}
		if _, err := strconv.ParseFloat(plain, 64); err == nil || strings.HasPrefix(plain, "0b") || strings.HasPrefix(plain, "-0b") {
			return "", false // a float, or maybe one (yaml.v2's regexp is narrower), or binary
		}
		return "", true
	}
	return "", true
}

// decimal reports whether s is an integer JSON writes the same way:
// "0" or an optional "-" and digits without a leading zero, short enough
// not to overflow.
func decimal(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if d == "" || len(d) > 18 || d[0] == '0' && (len(d) > 1 || s[0] == '-') {
		return false
	}
	for i := range len(d) {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// timestamp reports whether yaml.v2 resolves s as a timestamp.
func timestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, f := range []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"} {
		if _, err := time.Parse(f, s); err == nil {
			return true
		}
	}
	return false
}

// appendJSONString appends s as encoding/json writes it.
func appendJSONString(out, s []byte) []byte {
	for _, c := range s {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(string(s)) // a string always encodes
			return append(out, b...)
		}
	}
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"')
}
