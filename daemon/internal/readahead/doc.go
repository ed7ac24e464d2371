// Package readahead reads a batch of nodes or pods ahead of deciding
// them, so that the planner's passes over a large cluster wait on memory
// once per batch instead of once per object. It changes no result: it is
// the planner's speed code, kept apart from what the planner decides. It
// performs no I/O.
//
// In a large cluster the nodes and pods a plan reads have left the CPU
// caches, and deciding one object takes a chain of dependent reads: the
// object, then what it points to (its label map, its name's bytes, its
// conditions), then the map's entries. Read one object at a time, each
// link waits for the one before, and the memory system serves one read
// at a time. So the passes over nodes and pods read a batch of objects
// ahead of deciding them, one link at a time: first a field of every
// object of the batch, then what each points to, then the map entries.
// The reads of one link are independent of each other, so the memory
// system serves them together; when the batch is then decided, what it
// needs is in the nearest caches.
//
// The functions return a number that depends on what they read, which
// the caller adds to a sink it keeps, so that the compiler keeps the
// reads. They read only objects the planner has accepted (none is nil).
package readahead
