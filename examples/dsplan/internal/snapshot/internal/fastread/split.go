package fastread

import (
	"bytes"
	"strings"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/fastjson"
)

// jsonDoc reads one top-level JSON object at pos: a List, whose items go
// to the workers as they come, or another object, read whole. It returns
// false to decline the input.
func (sp *splitter[T]) jsonDoc() bool {
	d := sp.newDoc()
	sp.pos++ // '{'
	hdr := []byte{'{'}
	var version, kind string
	var haveVersion, haveKind, haveItems bool
	c, ok := sp.skipWS()
	if !ok {
		return false
	}
	if c == '}' {
		sp.pos++
	} else {
		for {
			if c != '"' {
				return false
			}
			before := len(hdr)
			if len(hdr) > 1 {
				hdr = append(hdr, ',')
			}
			keyAt := len(hdr)
			if hdr, ok = sp.compact(hdr, 1, false); !ok {
				return false
			}
			name := string(hdr[keyAt+1 : len(hdr)-1])
			if !fastjson.PlainKey(hdr[keyAt+1 : len(hdr)-1]) {
				return false
			}
			if c, ok = sp.skipWS(); !ok || c != ':' {
				return false
			}
			sp.pos++
			if c, ok = sp.skipWS(); !ok {
				return false
			}
			if name == "items" {
				hdr = hdr[:before] // items stay out of the header
				if haveItems || c != '[' {
					return false
				}
				haveItems = true
				if !sp.jsonItems(d) {
					return false
				}
			} else {
				hdr = append(hdr, ':')
				valueAt := len(hdr)
				if hdr, ok = sp.compact(hdr, 1, false); !ok {
					return false
				}
				switch name {
				case "apiVersion":
					if haveVersion {
						return false
					}
					haveVersion = true
					if version, ok = fastjson.PlainString(hdr[valueAt:]); !ok {
						return false
					}
				case "kind":
					if haveKind {
						return false
					}
					haveKind = true
					if kind, ok = fastjson.PlainString(hdr[valueAt:]); !ok {
						return false
					}
				}
			}
			if c, ok = sp.skipWS(); !ok {
				return false
			}
			if c == '}' {
				sp.pos++
				break
			}
			if c != ',' {
				return false
			}
			sp.pos++
			if c, ok = sp.skipWS(); !ok {
				return false
			}
		}
	}
	sp.flush()
	if !haveItems {
		// One object, read as the general path reads it.
		objs, err := sp.dec.Object(append(hdr, '}'), "", "")
		if err != nil {
			return false
		}
		d.objs = objs
		return true
	}
	// The general path's rules for an object with items: a List when its
	// kind ends in List; truncated, invalid or another object otherwise,
	// which the general path says.
	if kind == "" || version == "" || !strings.HasSuffix(kind, "List") {
		return false
	}
	if kind != "List" {
		d.version, d.itemKind = version, kind[:len(kind)-len("List")]
	}
	return true
}

// compact appends the compact form of the JSON value at pos to out and
// moves past it, reading more input as long as the value needs it; depth
// is its nesting, drop drops fieldsV1 as fastjson.Compact does.
func (sp *splitter[T]) compact(out []byte, depth int, drop bool) ([]byte, bool) {
	sp.mark = sp.pos
	for {
		got, n, st := fastjson.CompactValue(out, sp.w.buf[sp.pos:], depth, drop, sp.w.eof())
		switch st {
		case fastjson.Done:
			sp.pos += n
			return got, true
		case fastjson.Bad:
			return out, false
		}
		if !sp.refill() {
			return out, false
		}
	}
}

// jsonItems reads the items array at pos, handing each item to the
// workers.
func (sp *splitter[T]) jsonItems(d *fastDoc[T]) bool {
	sp.pos++ // '['
	c, ok := sp.skipWS()
	if !ok {
		return false
	}
	if c == ']' {
		sp.pos++
		return true
	}
	for {
		if c != '{' {
			return false // null, or not an object: the general path says so
		}
		b := sp.batch(d, false)
		if b.data, ok = sp.compact(b.data, 2, true); !ok {
			return false
		}
		sp.endItem()
		if c, ok = sp.skipWS(); !ok {
			return false
		}
		switch c {
		case ',':
			sp.pos++
			if c, ok = sp.skipWS(); !ok {
				return false
			}
		case ']':
			sp.pos++
			return true
		default:
			return false
		}
	}
}

// yamlState is where a YAML document is: before the items of a List,
// among them, after them, or read whole.
type yamlState uint8

const (
	yamlHead yamlState = iota
	yamlItems
	yamlTail
	yamlWhole
)

// yamlDoc reads one YAML document at pos: a document of kubectl's List
// shape ("items:" at the top level, each item a "- " block), whose items go to the workers as they
// come, or another document, read whole. more says that a "---" line ended
// it; ok false declines the input.
func (sp *splitter[T]) yamlDoc() (more, ok bool) {
	d := sp.newDoc()
	var text []byte // the document but the items
	state := yamlHead
	blank := true // no content yet
	at := 0       // where "items:\n" starts in text
	inItem := false
	for {
		sp.mark = sp.pos
		line, nl, ok := sp.nextLine()
		if !ok {
			break
		}
		if bytes.IndexByte(line, '\r') >= 0 {
			return false, false // the general path splits such lines its way
		}
		if bytes.HasPrefix(line, []byte("---")) && len(bytes.TrimSpace(line[3:])) == 0 {
			more = true
			break
		}
		switch state {
		case yamlHead:
			if blank {
				if t := bytes.TrimLeft(line, " \t"); len(t) > 0 {
					blank = false
					if t[0] == '{' || t[0] >= 0x80 || t[0] == '\v' || t[0] == '\f' {
						state = yamlWhole // JSON, maybe: Decoder.Document decides
					}
				}
			}
			if state == yamlHead && nl && string(line) == "items:" {
				state, at = yamlItems, len(text)
			}
		case yamlItems:
			starts := bytes.HasPrefix(line, []byte("- "))
			if starts || inItem && (len(line) == 0 || bytes.HasPrefix(line, []byte("  "))) {
				if !nl {
					return false, false // the general path wants the item's line break
				}
				if starts && inItem {
					sp.endItem()
				}
				b := sp.batch(d, true)
				if len(line) >= 2 {
					b.data = append(b.data, line[2:]...)
				}
				b.data = append(b.data, '\n')
				inItem = true
				continue
			}
			if inItem {
				sp.endItem()
				inItem = false
				state = yamlTail
			} else {
				state = yamlWhole // "items:" without items
			}
		}
		text = append(text, line...)
		if nl {
			text = append(text, '\n')
		}
	}
	if inItem {
		sp.endItem()
	}
	sp.flush()
	if state == yamlHead || state == yamlWhole || state == yamlItems && len(d.batches) == 0 {
		objs, err := sp.dec.Document(text)
		if err != nil {
			return false, false
		}
		d.objs = objs
		return more, true
	}
	header := append(text[:at:at], text[at+len("items:\n"):]...)
	version, itemKind, ok, err := sp.dec.ListHeader(header)
	if !ok || err != nil {
		return false, false
	}
	d.version, d.itemKind = version, itemKind
	return more, true
}

// nextLine returns the line at pos without its line break (nl says whether
// it had one) and moves past it; ok is false at the end of the input.
func (sp *splitter[T]) nextLine() (line []byte, nl, ok bool) {
	for {
		b := sp.w.buf
		if e := bytes.IndexByte(b[sp.pos:], '\n'); e >= 0 {
			line = b[sp.pos : sp.pos+e]
			sp.pos += e + 1
			return line, true, true
		}
		if !sp.refill() {
			b = sp.w.buf
			if sp.pos == len(b) {
				return nil, false, false
			}
			line = b[sp.pos:]
			sp.pos = len(b)
			return line, false, true
		}
	}
}
