package controller

// HasSynced reports whether the caches of the four informers the
// controller reads (DaemonSets, nodes, pods, ControllerRevisions) have
// synced: each has delivered its initial list. False until Run has started
// them and they have; the controller then starts its workers. Safe to call
// from any goroutine, as the informers' HasSynced are.
func (c *Controller) HasSynced() bool {
	for _, synced := range c.synced {
		if !synced() {
			return false
		}
	}
	return true
}
