package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// doc is one document of a file and the line it starts on.
type doc struct {
	data []byte
	line int
	// json is set when data is known to be one valid JSON object.
	json bool
}

// split cuts data into documents: a JSON stream when it starts with '{' or
// '[', else YAML documents separated by lines that start with "---".
func split(data []byte) ([]doc, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return splitJSON(data)
	}
	if bytes.IndexByte(data, '\r') < 0 {
		return splitYAML(data), nil
	}
	var docs []doc
	var cur bytes.Buffer
	start, line := 1, 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if bytes.HasPrefix(text, []byte("---")) && strings.TrimSpace(string(text[3:])) == "" {
			docs = append(docs, doc{data: bytes.Clone(cur.Bytes()), line: start})
			cur.Reset()
			start = line + 1
			continue
		}
		cur.Write(text)
		cur.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	docs = append(docs, doc{data: bytes.Clone(cur.Bytes()), line: start})
	return docs, nil
}

// splitYAML cuts data, which has no carriage return, into documents
// without copying them.
func splitYAML(data []byte) []doc {
	var docs []doc
	start, startLine, line := 0, 1, 0
	for i := 0; i < len(data); {
		line++
		e := bytes.IndexByte(data[i:], '\n')
		if e < 0 {
			e = len(data)
		} else {
			e += i
		}
		text := data[i:e]
		if bytes.HasPrefix(text, []byte("---")) && len(bytes.TrimSpace(text[3:])) == 0 {
			docs = append(docs, doc{data: data[start:i], line: startLine})
			start, startLine = min(e+1, len(data)), line+1
		}
		i = e + 1
	}
	return append(docs, doc{data: data[min(start, len(data)):], line: startLine})
}

// splitJSON cuts a stream of JSON values; a top-level array is a list of
// documents.
func splitJSON(data []byte) ([]doc, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' && t[len(t)-1] == '}' && json.Valid(t) {
		// One object, the usual case: read in place.
		line := 1 + bytes.Count(data[:bytes.IndexByte(data, '{')], []byte("\n"))
		return []doc{{data: t, line: line, json: true}}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []doc
	for {
		off := dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return docs, nil
		}
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		// The value starts after the whitespace the decoder skipped.
		if i := bytes.IndexAny(data[off:], "{[\"tfn0123456789-"); i > 0 {
			line += bytes.Count(data[off:off+int64(i)], []byte("\n"))
		}
		if err != nil {
			return nil, jsonError(data, 0, line, err) // the decoder's offsets are the stream's
		}
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, jsonError(data, off, line, err)
			}
			for _, it := range items {
				docs = append(docs, doc{data: it, line: line, json: len(it) > 0 && it[0] == '{'})
			}
			continue
		}
		docs = append(docs, doc{data: raw, line: line, json: len(raw) > 0 && raw[0] == '{'})
	}
}

// lineError is an error of split at a line of the file.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return e.err.Error() }
func (e *lineError) Unwrap() error { return e.err }

// jsonError is the error of a JSON value of data that starts on line
// start, its syntax error offsets counted from byte off: a syntax error
// at the line it names; a value cut short
// (the file ends inside it) at the file's last line, as ErrTruncated.
func jsonError(data []byte, off int64, start int, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		last := 1 + bytes.Count(bytes.TrimRight(data, " \t\r\n"), []byte("\n"))
		return &lineError{last, fmt.Errorf("%w: the JSON value that starts on line %d ends with the file", ErrTruncated, start)}
	}
	line := start
	var se *json.SyntaxError
	if errors.As(err, &se) {
		end := min(off+se.Offset, int64(len(data)))
		line = 1 + bytes.Count(data[:end], []byte("\n"))
	}
	return &lineError{line, fmt.Errorf("invalid JSON: %w", err)}
}
