package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// table is a text table whose columns text/tabwriter aligns, so that a
// long node, wave or DaemonSet name widens its column rather than
// shifting the rest of its row. Lines put between rows (group headings,
// "... more") are printed where they were put and take no part in the
// alignment.
type table struct {
	indent  string
	buf     bytes.Buffer
	tw      *tabwriter.Writer
	rows    int
	between map[int][]string
}

// newTable starts a table with the header cells; each line is indented.
func newTable(indent string, header ...string) *table {
	t := &table{indent: indent, between: map[int][]string{}}
	t.tw = tabwriter.NewWriter(&t.buf, 0, 8, 2, ' ', 0)
	t.row(anys(header)...)
	return t
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// row adds a row of cells, each printed with %v.
func (t *table) row(cells ...any) {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = fmt.Sprint(c)
	}
	fmt.Fprintln(t.tw, strings.Join(parts, "\t"))
	t.rows++
}

// line puts a line before the next row.
func (t *table) line(s string) {
	t.between[t.rows] = append(t.between[t.rows], s)
}

// flush writes the table to w.
func (t *table) flush(w io.Writer) error {
	if err := t.tw.Flush(); err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(t.buf.String(), "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		for _, s := range t.between[i] {
			b.WriteString(s + "\n")
		}
		b.WriteString(strings.TrimRight(t.indent+l, " ") + "\n")
	}
	for _, s := range t.between[len(lines)] {
		b.WriteString(s + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
