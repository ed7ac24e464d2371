package cli

import (
	"encoding/json"
	"strings"
)

// jsonSchema is the part of JSON Schema draft 2020-12 the documents use, in
// the order the files list it.
type jsonSchema struct {
	Schema               string      `json:"$schema,omitempty"`
	ID                   string      `json:"$id,omitempty"`
	Title                string      `json:"title,omitempty"`
	Description          string      `json:"description,omitempty"`
	Ref                  string      `json:"$ref,omitempty"`
	Type                 schemaType  `json:"type,omitempty"`
	Const                *string     `json:"const,omitempty"`
	Enum                 []string    `json:"enum,omitempty"`
	Format               string      `json:"format,omitempty"`
	Pattern              string      `json:"pattern,omitempty"`
	Items                *jsonSchema `json:"items,omitempty"`
	Properties           namedList   `json:"properties,omitempty"`
	Required             []string    `json:"required,omitempty"`
	AdditionalProperties *jsonSchema `json:"additionalProperties,omitempty"`
	Defs                 namedList   `json:"$defs,omitempty"`
	// Closed writes "additionalProperties": false (Properties lists every
	// property); it is read back from that.
	Closed bool `json:"-"`
	// goType and goField name the Go type or field the schema was made
	// from, for the messages.
	goType, goField string
}

// MarshalJSON writes additionalProperties false for a closed object.
func (s *jsonSchema) MarshalJSON() ([]byte, error) {
	type plain jsonSchema
	data, err := json.Marshal((*plain)(s))
	if err != nil || !s.Closed {
		return data, err
	}
	return append(data[:len(data)-1], []byte(`,"additionalProperties":false}`)...), nil
}

// UnmarshalJSON reads additionalProperties false as Closed.
func (s *jsonSchema) UnmarshalJSON(data []byte) error {
	type plain jsonSchema
	var aux struct {
		plain
		AdditionalProperties json.RawMessage `json:"additionalProperties,omitempty"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*s = jsonSchema(aux.plain)
	switch raw := strings.TrimSpace(string(aux.AdditionalProperties)); raw {
	case "":
	case "false":
		s.Closed = true
	default:
		s.AdditionalProperties = &jsonSchema{}
		return json.Unmarshal(aux.AdditionalProperties, s.AdditionalProperties)
	}
	return nil
}

// schemaType is "type": one name, or a list of them.
type schemaType []string

func (t schemaType) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}

func (t *schemaType) UnmarshalJSON(data []byte) error {
	var one string
	if json.Unmarshal(data, &one) == nil {
		*t = schemaType{one}
		return nil
	}
	return json.Unmarshal(data, (*[]string)(t))
}

// namedList is a JSON object of schemas that keeps its order.
type namedList []named

type named struct {
	name   string
	schema *jsonSchema
}

func (l namedList) get(name string) *jsonSchema {
	for _, n := range l {
		if n.name == name {
			return n.schema
		}
	}
	return nil
}

func (l namedList) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n.name)
		v, err := json.Marshal(n.schema)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func (l *namedList) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		s := &jsonSchema{}
		if err := dec.Decode(s); err != nil {
			return err
		}
		*l = append(*l, named{tok.(string), s})
	}
	return nil
}
