// Package namesort sorts and compares names (of nodes, of pods) by radix,
// reading each name's bytes from memory as few times as it can: in a large
// cluster those bytes have left the CPU caches by the time they are
// sorted. It is the planner's speed code, kept apart from what the planner
// decides: its order is the order comparing the names gives. It performs
// no I/O.
package namesort
