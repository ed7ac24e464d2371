package syncer

// HasSynced reports whether the caches of the four informers the
// syncer reads (DaemonSets, nodes, pods, ControllerRevisions) have
// synced: each has delivered its initial list. False until Run has started
// them and they have; the workers start then. Safe to call
// from any goroutine, as the informers' HasSynced are.
func (s *Syncer) HasSynced() bool {
	for _, synced := range s.synced {
		if !synced() {
			return false
		}
	}
	return true
}
