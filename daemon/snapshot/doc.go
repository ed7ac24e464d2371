// Package snapshot reads what people have of a cluster — the YAML or JSON
// that `kubectl get daemonsets,nodes,pods,controllerrevisions -A -o yaml`
// prints, multi-document files, single objects — into a Snapshot, and
// selects for one DaemonSet exactly the inputs daemon.Compute takes.
//
// It performs no I/O: callers pass the bytes of each file, or an
// io.ReaderAt over them (DecodeFrom reads a capture of thousands of nodes a
// few megabytes at a time), with its name, which errors carry with the
// line of the document at fault.
package snapshot
