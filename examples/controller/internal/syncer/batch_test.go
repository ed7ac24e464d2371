package syncer

import (
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSlowStartBatch(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name      string
		n, limit  int
		failAt    map[int]bool
		wantCalls int
		// wantBatches are the indexes called, grouped by batch.
		wantBatches [][]int
		wantErrs    int
	}{
		{name: "none", n: 0, limit: 4, wantCalls: 0},
		{name: "one", n: 1, limit: 4, wantCalls: 1, wantBatches: [][]int{{0}}},
		{
			name: "doubling up to the limit", n: 12, limit: 4, wantCalls: 12,
			wantBatches: [][]int{{0}, {1, 2}, {3, 4, 5, 6}, {7, 8, 9, 10}, {11}},
		},
		{
			name: "limit below one means one", n: 3, limit: 0, wantCalls: 3,
			wantBatches: [][]int{{0}, {1}, {2}},
		},
		{
			name: "a failure stops after its batch", n: 10, limit: 8, failAt: map[int]bool{2: true}, wantCalls: 3,
			wantBatches: [][]int{{0}, {1, 2}}, wantErrs: 1,
		},
		{
			name: "the first call failing stops everything", n: 10, limit: 8, failAt: map[int]bool{0: true}, wantCalls: 1,
			wantBatches: [][]int{{0}}, wantErrs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			seen := map[int]bool{}
			var batches [][]int
			calls, errs := SlowStartBatch(tt.n, tt.limit, func(i int) error {
				mu.Lock()
				defer mu.Unlock()
				seen[i] = true
				if tt.failAt[i] {
					return boom
				}
				return nil
			})
			// Rebuild the batches from the indexes: batch k covers
			// [start, start+size) with sizes 1, 2, 4, ... capped at limit.
			for start, size := 0, 1; start < calls; size = min(2*size, max(tt.limit, 1)) {
				var b []int
				for i := start; i < min(start+size, calls); i++ {
					if !seen[i] {
						t.Errorf("index %d not called", i)
					}
					b = append(b, i)
				}
				batches = append(batches, b)
				start += size
			}
			if calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", calls, tt.wantCalls)
			}
			if len(seen) != calls {
				t.Errorf("%d distinct indexes called, reported %d", len(seen), calls)
			}
			if diff := cmp.Diff(tt.wantBatches, batches); diff != "" {
				t.Errorf("batches (-want,+got):\n%s", diff)
			}
			if len(errs) != tt.wantErrs {
				t.Errorf("%d errors, want %d", len(errs), tt.wantErrs)
			}
		})
	}
}

func TestSlowStartBatchConcurrencyBound(t *testing.T) {
	for _, limit := range []int{1, 3, 16} {
		var mu sync.Mutex
		running, peak := 0, 0
		gate := make(chan struct{})
		close(gate)
		SlowStartBatch(100, limit, func(int) error {
			mu.Lock()
			running++
			peak = max(peak, running)
			mu.Unlock()
			<-gate
			mu.Lock()
			running--
			mu.Unlock()
			return nil
		})
		if peak > limit {
			t.Errorf("limit %d: %d calls ran at once", limit, peak)
		}
	}
}

func TestParallel(t *testing.T) {
	boom := errors.New("boom")
	var mu sync.Mutex
	running, peak, called := 0, 0, 0
	errs := parallel(20, 3, func(i int) error {
		mu.Lock()
		running++
		called++
		peak = max(peak, running)
		mu.Unlock()
		mu.Lock()
		running--
		mu.Unlock()
		if i%5 == 0 {
			return boom
		}
		return nil
	})
	if called != 20 {
		t.Errorf("called %d times, want 20 (one failure must not stop the others)", called)
	}
	if peak > 3 {
		t.Errorf("%d calls ran at once, limit 3", peak)
	}
	if len(errs) != 4 {
		t.Errorf("%d errors, want 4", len(errs))
	}
}
