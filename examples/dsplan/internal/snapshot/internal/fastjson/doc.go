// Package fastjson is the snapshot package's speed code for JSON: it validates
// and compacts JSON exactly as encoding/json would accept and json.Compact
// would write it (Compact, CompactValue; optionally dropping
// metadata.managedFields[*].fieldsV1), finds where a value or string ends
// without decoding it (ScanValue, ScanString), and reads an item's
// apiVersion and kind where the general path's sigs.k8s.io/json, which
// matches keys exactly, would read the same (ItemType, PlainKey,
// PlainString). The compactor and ItemType are hand-written, for the
// figures in their doc comments; CompactText, CompactValueText and
// ItemTypeText do the same with go-json-experiment's jsontext, for the
// paired benchmarks. It decides nothing about objects: whatever it cannot
// say as encoding/json would, it declines (ok false, Bad), and the caller
// reads the input the general way. Fuzz targets hold it to encoding/json.
// It performs no I/O.
package fastjson
