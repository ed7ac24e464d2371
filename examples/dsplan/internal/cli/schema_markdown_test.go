package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// renderJSONMarkdown is JSON.md: the documents and every definition of the
// schemas, once each, as tables.
func renderJSONMarkdown(t *testing.T, files []*jsonSchema) string {
	var b strings.Builder
	b.WriteString(`# dsplan's JSON output

This page is generated from the JSON Schemas (draft 2020-12) in
[schema/](schema/), which are generated from the Go types of the output
(examples/dsplan/internal/cli) by TestJSONSchema; it fails when the three
differ: run ` + "`go test ./internal/cli -run TestJSONSchema -update`" + ` in
examples/dsplan after changing the output. TestGoldenOutputsMatchSchemas
validates the -o json and -o yaml outputs of the golden cases against the
schemas with a JSON Schema library.

Every document carries ` + "`apiVersion: " + jsonAPIVersion + "`" + ` and its
` + "`kind`" + `. Fields are added, never renamed or removed, under the same
apiVersion; lists are never null (an empty list is ` + "`[]`" + `); a field marked
"omitted when empty" is left out rather than written empty. Durations are
Go durations (` + "`\"1m30s\"`" + `), times RFC 3339.

| command | document | schema |
|---|---|---|
`)
	for i, f := range files {
		d := schemaDocs[i]
		shape := fmt.Sprintf("one [%s](#%s)", d.kind, strings.ToLower(d.kind))
		if d.list {
			shape = fmt.Sprintf("a list of [%s](#%s), one per DaemonSet, sorted by namespace/name", d.kind, strings.ToLower(d.kind))
		}
		fmt.Fprintf(&b, "| `%s` | %s | [%s](schema/%s) |\n", f.Title, shape, d.file, d.file)
	}
	seen := map[string]*jsonSchema{}
	for _, f := range files {
		for _, def := range f.Defs {
			if prev, ok := seen[def.name]; ok {
				a, _ := json.Marshal(prev)
				c, _ := json.Marshal(def.schema)
				if string(a) != string(c) {
					t.Errorf("$defs.%s differs between the schemas", def.name)
				}
				continue
			}
			seen[def.name] = def.schema
			fmt.Fprintf(&b, "\n## %s\n\n", def.name)
			if def.schema.Description != "" {
				fmt.Fprintf(&b, "%s\n\n", def.schema.Description)
			}
			b.WriteString("| field | type | required | meaning |\n|---|---|---|---|\n")
			for _, p := range def.schema.Properties {
				req := ""
				if slices.Contains(def.schema.Required, p.name) {
					req = "yes"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.name, describeSchema(p.schema), req, strings.ReplaceAll(p.schema.Description, "|", "\\|"))
			}
		}
	}
	return b.String()
}

// describeSchema is a property's type in words.
func describeSchema(s *jsonSchema) string {
	var out string
	switch {
	case s.Ref != "":
		name := strings.TrimPrefix(s.Ref, "#/$defs/")
		out = fmt.Sprintf("[%s](#%s)", name, strings.ToLower(name))
	case s.Const != nil:
		out = fmt.Sprintf("`%q`", *s.Const)
	case slices.Contains(s.Type, "array"):
		out = "list of " + describeSchema(s.Items)
	case slices.Contains(s.Type, "object") && s.AdditionalProperties != nil:
		out = "object of " + describeSchema(s.AdditionalProperties)
	case s.Format == "date-time":
		out = "time (RFC 3339)"
	case s.Pattern == durationPattern:
		out = "string (Go duration)"
	case s.Pattern == namespacedPattern:
		out = `string ("namespace/name")`
	case len(s.Enum) > 0:
		var q []string
		for _, e := range s.Enum {
			q = append(q, fmt.Sprintf("`%q`", e))
		}
		out = "string: " + strings.Join(q, ", ")
	case slices.Contains(s.Type, "object"):
		out = "object"
		if s.Title != "" {
			out = s.Title
		}
	default:
		out = s.Type[0]
	}
	if slices.Contains(s.Type, "null") {
		out += " or null"
	}
	return out
}
