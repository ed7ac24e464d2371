// Package selector validates a DaemonSet's label selector and decides which
// pods and ControllerRevisions the DaemonSet owns, adopts, releases or
// ignores, as upstream's ControllerRefManager does. It performs no I/O.
package selector
