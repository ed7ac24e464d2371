package fastjson

import "bytes"

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
