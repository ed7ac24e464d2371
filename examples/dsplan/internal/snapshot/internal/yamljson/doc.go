// Package yamljson is the snapshot package's speed code for YAML: it converts
// the block YAML kubectl prints to the JSON sigs.k8s.io/yaml.YAMLToJSON
// returns for it, byte for byte and many times faster (ToJSON,
// Parser.Convert), optionally dropping metadata.managedFields[*].fieldsV1.
// It decides nothing about objects: for anything outside kubectl's subset
// it declines (ok false), and the caller converts with YAMLToJSON.
// FuzzToJSON holds the two to the same output. It performs no I/O.
package yamljson
