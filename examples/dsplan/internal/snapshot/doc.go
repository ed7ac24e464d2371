// Package snapshot reads what people have of a cluster — the YAML or JSON
// that `kubectl get daemonsets,nodes,pods,controllerrevisions -A -o yaml`
// prints, multi-document files, single objects — into a Snapshot, and
// selects for one DaemonSet exactly the inputs daemon.Compute takes.
//
// It performs no I/O: callers pass the bytes of each file, or an
// io.ReaderAt over them (DecodeFrom reads a capture of thousands of nodes a
// few megabytes at a time), with its name, which errors carry with the
// line of the document at fault. Objects are decoded with
// sigs.k8s.io/json, whose keys match field names exactly, as the API
// server's do: a miscased key is an unknown field, and unknown fields (a
// newer cluster's) are ignored.
//
// It is dsplan's own reader (until issue 38 the library's daemon/snapshot):
// the library takes objects, not files.
//
// The speed code is fenced under internal/, apart from what the package
// decides: fastread cuts kubectl's Lists into items read a slab at a time
// and decoded by workers, fastjson compacts and scans JSON as
// encoding/json would, yamljson converts kubectl's block YAML as
// sigs.k8s.io/yaml would, share lets decoded pods and nodes share equal
// strings, and parallel spreads independent decodes over the CPUs. Every
// object is still decoded by this package's rules; where the fast path
// cannot read a file exactly as the general path would, it declines and
// the general path reads it (FuzzFastDecode holds the two together).
package snapshot
