// Package tolerations decides which tolerations a DaemonSet pod carries and
// which of a node's taints such a pod does not tolerate. It performs no I/O.
//
// # Default tolerations
//
// DaemonTolerations lists the tolerations the DaemonSet controller adds to
// every daemon pod so that node conditions (not ready, unreachable, disk,
// memory or PID pressure, cordoned, and for host-network pods an unavailable
// network) neither evict it nor keep it off a node. AddOrUpdateDaemonPodTolerations
// merges them into a pod spec with upstream's exact result, and
// WithDaemonTolerations is its pure sibling. Upstream's merge has a quirk
// that is kept: a user toleration with the same key, operator, value and
// effect as a default is replaced by the default, so its tolerationSeconds
// is dropped. FuzzMerge checks the merge against a literal re-implementation
// of upstream's pass-per-default loop.
//
// # Taints
//
// FindUntoleratedTaint delegates the matching of one toleration against one
// taint to k8s.io/component-helpers, so it agrees with the scheduler; this
// package only chooses which taints to look at (an EffectSet) and avoids
// allocating while it does. FuzzFindUntoleratedTaint checks it against
// component-helpers' FindMatchingUntoleratedTaint.
package tolerations
