package yamljson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// scalarValue reads the value after "key: " or "- ": a scalar on the rest
// of the line (or a literal block after it); col is the column of the key
// or "- ", beyond which no later line may be indented.
func (p *Parser) scalarValue(rest []byte, col int) bool {
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
func (p *Parser) literal(header []byte, col int) bool {
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
