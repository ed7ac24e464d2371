package fastjson

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

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

// CompactText is Compact by jsontext, held to encoding/json by
// FuzzCompact like Compact. The fast path uses Compact, which costs less
// (see CompactValue); CompactText, CompactValueText and ItemTypeText are
// kept so that the paired benchmarks can be re-run.
func CompactText(out, src []byte, depth int, drop bool) ([]byte, bool) {
	got, n, st := CompactValueText(out, src, depth, drop, true)
	if st != Done || len(bytes.TrimLeft(src[n:], " \t\r\n")) != 0 {
		return out, false
	}
	return got, true
}

// CompactValueText is CompactValue by jsontext: it reads the value with a
// jsontext.Decoder and writes it with a jsontext.Encoder, walking the
// top-level object, its metadata and managedFields token by token when it
// drops fieldsV1.
func CompactValueText(out, src []byte, depth int, drop, eof bool) ([]byte, int, Status) {
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

// ItemTypeText is ItemType by jsontext: the reading BenchmarkItemType
// pairs ItemType with, kept so that the pairing can be re-run (see
// ItemType for the figures). The fast path calls ItemType.
func ItemTypeText(js []byte) (apiVersion, kind string, ok bool) {
	c := textCoders.Get().(*textCoder)
	defer textCoders.Put(c)
	c.in = *bytes.NewBuffer(js)
	defer func() { c.in = bytes.Buffer{} }()
	d := &c.dec
	d.Reset(&c.in, textOptions...)
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return "", "", false
	}
	var haveVersion, haveKind bool
	for d.PeekKind() != '}' {
		name, err := d.ReadValue()
		if err != nil || !PlainKey(name) || string(name) == `"items"` {
			return "", "", false
		}
		var dst *string
		switch string(name) {
		case `"apiVersion"`:
			if haveVersion {
				return "", "", false
			}
			haveVersion, dst = true, &apiVersion
		case `"kind"`:
			if haveKind {
				return "", "", false
			}
			haveKind, dst = true, &kind
		}
		if dst == nil {
			if d.SkipValue() != nil {
				return "", "", false
			}
			continue
		}
		v, err := d.ReadValue()
		if err != nil {
			return "", "", false
		}
		if *dst, ok = PlainString(v); !ok {
			return "", "", false
		}
	}
	return apiVersion, kind, true
}
