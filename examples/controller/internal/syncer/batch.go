package syncer

import "sync"

// SlowStartBatch calls fn for the indexes 0..n-1 in batches of growing size,
// first 1, then twice the previous batch, never more than limit at once, and
// the calls of one batch concurrently. It stops after the first batch in which
// a call failed: a request that fails once (a quota, an admission webhook)
// most likely fails for all, and the API server is spared the rest. It
// returns the number of calls made and their errors, in index order.
func SlowStartBatch(n, limit int, fn func(i int) error) (calls int, errs []error) {
	limit = max(limit, 1)
	for size := 1; calls < n; size = min(2*size, limit) {
		batch := min(size, n-calls)
		batchErrs := make([]error, batch)
		var wg sync.WaitGroup
		for j := range batch {
			wg.Go(func() { batchErrs[j] = fn(calls + j) })
		}
		wg.Wait()
		calls += batch
		failed := false
		for _, err := range batchErrs {
			if err != nil {
				errs = append(errs, err)
				failed = true
			}
		}
		if failed {
			break
		}
	}
	return calls, errs
}

// parallel calls fn for the indexes 0..n-1, at most limit at once, and
// returns the errors in index order.
func parallel(n, limit int, fn func(i int) error) []error {
	limit = max(limit, 1)
	all := make([]error, n)
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			all[i] = fn(i)
		})
	}
	wg.Wait()
	var errs []error
	for _, err := range all {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
