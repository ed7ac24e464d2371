// Package share is the snapshot package's speed code for memory: it makes the
// strings of a decoded pod or node share the bytes of the equal strings of
// the like object decoded before (the pods of one controller repeat their
// template, nodes their images and conditions). It changes no value,
// strings being immutable, and decides nothing. Uniquer does the same job
// with unique.Make, for the paired benchmark that keeps Sharer. It performs
// no I/O.
package share
