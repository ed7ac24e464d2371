// Package affinity binds DaemonSet pods to nodes and decides whether a node
// satisfies a pod template's nodeSelector and required node affinity. It
// performs no I/O.
package affinity
