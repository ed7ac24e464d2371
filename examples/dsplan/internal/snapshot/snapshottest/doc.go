// Package snapshottest generates kubectl captures of large, realistic
// clusters, for the benchmarks and tests of package snapshot and of the
// programs that read captures. It performs no I/O, and all its randomness
// comes from the *rand.Rand it is given.
//
// Generate builds the objects of a cluster of N nodes as the API server
// returns them: defaulted DaemonSets modelled on kube-proxy, cilium, the EBS
// CSI node plugin, node-local-dns, node-exporter and fluent-bit (one of them
// mid-rollout), their ControllerRevisions, nodes with the labels, taints,
// conditions, images and managedFields real nodes carry, and one pod of
// each DaemonSet on each node with the controller-revision-hash and
// pod-template-generation labels, owner references, default tolerations,
// node affinity, managedFields and status. YAML and JSON render it as
// `kubectl get ds,nodes,pods,controllerrevisions -A -o yaml
// --show-managed-fields` (and -o json) print it: one List, items in that
// order, each kind by namespace and name. DropManagedFields makes it what
// kubectl prints without --show-managed-fields, its default.
package snapshottest
