// Package fastread is the snapshot package's speed code for whole files: it
// reads the files kubectl writes (one or several Lists of YAML in
// kubectl's block layout, or of JSON) one item at a time, from memory or
// from a reader a slab at a time, never holding a large file whole, and
// hands the items to GOMAXPROCS workers that convert (yamljson), compact
// (fastjson) and decode them, each item once. It decides nothing about
// objects: the caller's Decoder decodes every object by the general path's
// rules, and whatever fast reading would not cut exactly as the general
// path does (an input error, a document of another shape, an escaped
// key, ...) Read declines,
// and the caller reads the file the general way. The snapshot package's
// FuzzFastDecode holds the two paths to the same objects. Its only I/O is
// reading the io.ReaderAt it is given.
package fastread
