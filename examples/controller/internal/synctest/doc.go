// Package synctest runs a mode built on syncer.Syncer (the companion, the
// replace controller) on a kubetest.Cluster, for the modes' unit tests. It
// is imported by tests only; syncer's own tests cannot import it (it
// imports syncer) and keep their harness.
package synctest
