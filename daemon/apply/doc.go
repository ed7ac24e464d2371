// Package apply computes the DaemonSet the API server stores when a
// manifest is written to it: the defaults it fills in (Defaults, as
// kube-apiserver v1.37 defaults an apps/v1 DaemonSet and its pod
// template), and what a create or an update does to the object (Create,
// Update): its identity, generation, template generation and status. It
// performs no I/O.
//
// It answers "what if I apply this?": a manifest from git, written over
// the DaemonSet a cluster runs, becomes the object the controller plans
// with, with the generation and the deprecated.daemonset.template.generation
// annotation the API server would give it, so that the plan sees a
// template change exactly when the API server would record one. Apply
// writes a manifest as kubectl apply does (client-side, its default): a
// three-way strategic merge of the manifest, the last-applied
// configuration annotation and the stored object, so that a field another
// writer set and the manifest does not own (a hostPort an older API
// server defaulted into the template, kubectl rollout restart's
// restartedAt annotation) is kept. Server-side apply is not modelled: it
// needs the managed fields and the structured schema of apps/v1, which
// live outside the libraries this module may use, and a capture carries
// the annotation client-side apply reads. Update is a replace (PUT): the
// manifest's spec, labels and annotations replace the stored object's,
// and Change.Dropped lists what another writer set and the replace drops.
// TemplateDiff lists the template fields a write changes, and SetImages
// sets images as kubectl set image does.
//
// Validation is not repeated here: call validation.Validate on the manifest
// first, as the API server validates before it stores.
package apply
