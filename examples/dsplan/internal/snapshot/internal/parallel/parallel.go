package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ForEach calls f(i) for every i < n, on up to GOMAXPROCS goroutines,
// and returns when all calls have returned. f must only write what
// belongs to i; the caller reads the results in index order, so the
// outcome is the same as a loop's.
func ForEach(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}
