// Package tolerations decides which tolerations a DaemonSet pod carries and
// which of a node's taints such a pod does not tolerate. It performs no I/O.
//
// The taint checks delegate the matching of one toleration against one taint
// to k8s.io/component-helpers, so they agree with the scheduler; this package
// only chooses which taints to look at and avoids allocating while it does.
package tolerations
