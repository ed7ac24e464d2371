// Package apply computes the DaemonSet the API server stores when a
// manifest is written to it: the defaults it fills in (Defaults, as
// kube-apiserver v1.36 defaults an apps/v1 DaemonSet and its pod
// template), and what a create or an update does to the object (Create,
// Update): its identity, generation, template generation and status. It
// performs no I/O.
//
// It answers "what if I apply this?": a manifest from git, written over
// the DaemonSet a cluster runs, becomes the object the controller plans
// with, with the generation and the deprecated.daemonset.template.generation
// annotation the API server would give it, so that the plan sees a
// template change exactly when the API server would record one. An update
// here is a replace (PUT): the manifest's spec, labels and annotations
// replace the stored object's, as kubectl apply does for the fields the
// manifest sets; a field that another writer set and the manifest leaves
// out (kubectl rollout restart's restartedAt template annotation, say) is
// dropped, where kubectl apply's three-way merge would keep it. Changes
// lists such fields, so that a caller can say so.
//
// Validation is not repeated here: call validation.Validate on the manifest
// first, as the API server validates before it stores.
package apply
