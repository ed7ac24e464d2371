package fastjson

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

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

func startPath(drop bool) jsonPath {
	if drop {
		return pathTop
	}
	return pathOther
}

// textOptions make jsontext accept and write what encoding/json accepts
// and json.Compact writes: duplicate names, invalid UTF-8 and strings as
// they are.
var textOptions = []jsontext.Options{
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
	jsontext.PreserveRawStrings(true),
}

// textCoder is a jsontext decoder of the bytes at hand and an encoder
// appending to the caller's buffer, reused from call to call.
type textCoder struct {
	in, out bytes.Buffer
	dec     jsontext.Decoder
	enc     jsontext.Encoder
}

var textCoders = sync.Pool{New: func() any { return new(textCoder) }}

// Compact appends the compact form of src, which must hold exactly one
// JSON value (whitespace around it allowed), to out. depth is the nesting
// of the value's surroundings (0 for a document); with drop the pairs
// "fieldsV1" of metadata.managedFields[*] of the top-level object are
// left out, as if deleted (their values still validated). ok is false when
// src is not such a value. It accepts exactly what encoding/json accepts,
// nesting depth included, and writes what json.Compact writes:
// FuzzCompact compares them.
func Compact(out, src []byte, depth int, drop bool) ([]byte, bool) {
	got, n, st := CompactValue(out, src, depth, drop, true)
	if st != Done || len(bytes.TrimLeft(src[n:], " \t\r\n")) != 0 {
		return out, false
	}
	return got, true
}

// CompactValue appends the compact form of the value at the start of src
// to out, as Compact does, and returns how many bytes of src it read.
// More says that the value runs past src, which is not the end of the
// input (eof false); Bad that src does not start with a valid value.
//
// It reads the value with a jsontext.Decoder and writes it with a
// jsontext.Encoder, walking the top-level object, its metadata and
// managedFields token by token when it drops fieldsV1. The hand-written
// compactor it replaced (issue 38) was 1.42–1.53× faster at 5,000 nodes,
// short of the 1.5× in both captures that would have kept it: see
// BENCHMARKS.md, 2026-12-02.
func CompactValue(out, src []byte, depth int, drop, eof bool) ([]byte, int, Status) {
	c := textCoders.Get().(*textCoder)
	defer textCoders.Put(c)
	c.in = *bytes.NewBuffer(src)
	c.dec.Reset(&c.in, textOptions...)
	c.out = *bytes.NewBuffer(out)
	c.enc.Reset(&c.out, textOptions...)
	mark := len(out)
	err := c.value(startPath(drop))
	n := int(c.dec.InputOffset())
	got := c.out.Bytes()
	c.in, c.out = bytes.Buffer{}, bytes.Buffer{}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		if !eof {
			return out, 0, More
		}
		return out, 0, Bad
	case err != nil:
		return out, 0, Bad
	}
	if len(got) > mark && got[len(got)-1] == '\n' {
		got = got[:len(got)-1] // the encoder ends a top-level value with one
	}
	if !eof && n == len(src) && n > 0 && (src[n-1] >= '0' && src[n-1] <= '9') {
		return out, 0, More // more digits may follow
	}
	if depth > 0 && len(got)-mark >= 2*(maxJSONDepth-depth+1) && !shallowText(got[mark:], maxJSONDepth-depth) {
		return out, 0, Bad
	}
	return got, n, Done
}

// shallowText reports whether the compact JSON value v nests at most max
// levels deep (jsontext counts from v, encoding/json from the document).
func shallowText(v []byte, max int) bool {
	d := jsontext.NewDecoder(bytes.NewBuffer(v), textOptions...)
	for {
		if _, err := d.ReadToken(); err != nil {
			return err == io.EOF
		}
		if d.StackDepth() > max {
			return false
		}
	}
}

// value copies the next value, leaving out fieldsV1 below path as
// Compact does.
func (c *textCoder) value(path jsonPath) error {
	if path == pathOther {
		v, err := c.dec.ReadValue()
		if err != nil {
			return err
		}
		return c.enc.WriteValue(v)
	}
	switch c.dec.PeekKind() {
	case '{':
		return c.object(path)
	case '[':
		if path == pathManaged {
			return c.array(pathEntry)
		}
	}
	return c.value(pathOther)
}

func (c *textCoder) object(path jsonPath) error {
	if err := c.copyToken(); err != nil {
		return err
	}
	for c.dec.PeekKind() != '}' {
		name, err := c.dec.ReadValue()
		if err != nil {
			return err
		}
		child := pathOther
		switch {
		case path == pathTop && string(name) == `"metadata"`:
			child = pathMeta
		case path == pathMeta && string(name) == `"managedFields"`:
			child = pathManaged
		case path == pathEntry && string(name) == `"fieldsV1"`:
			if err := c.dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if err := c.enc.WriteValue(name); err != nil {
			return err
		}
		if err := c.value(child); err != nil {
			return err
		}
	}
	return c.copyToken()
}

func (c *textCoder) array(child jsonPath) error {
	if err := c.copyToken(); err != nil {
		return err
	}
	for c.dec.PeekKind() != ']' {
		if err := c.value(child); err != nil {
			return err
		}
	}
	return c.copyToken()
}

// copyToken copies an opening or closing bracket.
func (c *textCoder) copyToken() error {
	t, err := c.dec.ReadToken()
	if err != nil {
		return err
	}
	return c.enc.WriteToken(t)
}
