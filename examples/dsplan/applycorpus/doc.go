// Package applycorpus is the corpus of the apply differential (issue 37):
// mutations of real DaemonSet manifests (testdata/bases), one per row of
// the table testdata/mutations.yaml (empty, missing and null fields, zero
// values, wrong types, old apiVersions, unknown fields, duplicates, bad
// selectors, quantities and labels, negative numbers, unsupported values),
// each a manifest to apply as a create and over the stored base.
//
// The end-to-end suite (examples/controller/e2e) sends every case to a
// real kube-apiserver with server-side dry-run, as kubectl apply would
// send it, and to dsplan's layered path, and counts the disagreements on
// accept or reject and on the fields named; it records the API server's
// answers in testdata/outcomes.json, which dsplan's unit tests replay
// without a cluster. Generate is deterministic: the same cases, in the
// same order, with the same bytes.
package applycorpus
