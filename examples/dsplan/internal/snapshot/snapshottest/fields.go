package snapshottest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// managed returns a managedFields entry of manager (an Update of
// subresource, "" for the object) at t, owning the fields of fieldsV1.
func (g *gen) managed(manager, subresource string, t time.Time, apiVersion, fieldsV1 string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{
		Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: apiVersion,
		Time: &metav1.Time{Time: t.Truncate(time.Second)}, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(fieldsV1)}, Subresource: subresource,
	}
}

// fieldsOf returns the FieldsV1 set of obj's top-level fields keys.
func fieldsOf(obj any, keys ...string) string {
	sub := map[string][]string{}
	for _, k := range keys {
		sub[k] = nil
	}
	return fieldsOfSub(obj, sub)
}

// fieldsOfSub returns the FieldsV1 set of obj's fields named by sub: for
// each top-level key, its fields sub[key] (all of them when nil).
func fieldsOfSub(obj any, sub map[string][]string) string {
	data, err := json.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("snapshottest: %v", err))
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		panic(fmt.Sprintf("snapshottest: %v", err))
	}
	out := map[string]any{}
	for top, fields := range sub {
		v, ok := m[top].(map[string]any)
		if !ok {
			continue
		}
		if fields != nil {
			picked := map[string]any{}
			for _, f := range fields {
				if x, ok := v[f]; ok {
					picked[f] = x
				}
			}
			v = picked
		}
		if len(v) > 0 {
			out["f:"+top] = fieldSet(v, false)
		}
	}
	data, err = json.Marshal(out)
	if err != nil {
		panic(fmt.Sprintf("snapshottest: %v", err))
	}
	return string(data)
}

// listKeys are the keys of the list elements that server-side apply keys
// its sets by.
var listKeys = []string{"name", "type", "mountPath", "containerPort", "ip", "uid"}

// fieldSet returns the field set of v, as server-side apply writes it: a
// field "f:name", a keyed list element "k:{...}", "." for a field that is
// itself owned.
func fieldSet(v any, owned bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		if owned {
			out["."] = map[string]any{}
		}
		for k, x := range v {
			out["f:"+k] = fieldSet(x, true)
		}
		return out
	case []any:
		out := map[string]any{}
		for _, e := range v {
			em, ok := e.(map[string]any)
			if !ok {
				return map[string]any{}
			}
			var parts []string
			for _, k := range listKeys {
				if x, ok := em[k]; ok {
					b, _ := json.Marshal(x)
					parts = append(parts, fmt.Sprintf("%q:%s", k, b))
				}
				if len(parts) > 0 && k != "containerPort" {
					break
				}
			}
			if len(parts) == 0 {
				return map[string]any{}
			}
			slices.Sort(parts)
			if em["protocol"] != nil && strings.HasPrefix(parts[0], `"containerPort"`) {
				parts = append(parts, fmt.Sprintf(`"protocol":%q`, em["protocol"]))
			}
			out["k:{"+strings.Join(parts, ",")+"}"] = fieldSet(em, true)
		}
		return out
	default:
		return map[string]any{}
	}
}
