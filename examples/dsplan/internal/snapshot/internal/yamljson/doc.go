// Package yamljson is the snapshot package's speed code for YAML: it converts
// the block YAML kubectl prints to the JSON sigs.k8s.io/yaml.YAMLToJSON
// returns for it, byte for byte and many times faster (ToJSON,
// Parser.Convert), optionally dropping metadata.managedFields[*].fieldsV1.
// It decides nothing about objects: for anything outside kubectl's subset
// it declines (ok false), and the caller converts with YAMLToJSON.
// FuzzToJSON holds the two to the same output. It performs no I/O.
//
// It is kept because it buys far more than the 1.5x issue 38 asks of
// hand-written code: BenchmarkItemToJSON, every item of a 5,000-node
// capture on all cores, takes 1.25 s, 522 MB and 5.4 M allocations by
// ToJSON against 6.46 s, 6.03 GB and 112 M by YAMLToJSON (5.2x the time,
// 11.5x the memory; BENCHMARKS.md, issue 38).
package yamljson
