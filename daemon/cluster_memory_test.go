package daemon

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuffer: a buffer clears what earlier plans wrote past what the last
// plan wrote, including a plan that failed before putting its slice back,
// and nothing else.
func TestBuffer(t *testing.T) {
	one, two := new(int), new(int)
	// memory is the whole of b's memory, length and all.
	memory := func(b *buffer[*int]) []*int { return b.s[:cap(b.s)] }
	var b buffer[*int]

	if got := b.take(0); got != nil {
		t.Fatalf("take(0) of an empty buffer = %v, want nil", got)
	}
	s := b.take(4)
	if len(s) != 0 || cap(s) < 4 {
		t.Fatalf("take(4) = len %d cap %d, want len 0 and room for 4", len(s), cap(s))
	}
	b.put(append(s, one, one, one, one))

	// A plan writes two: the two others of the last plan go.
	b.put(append(b.take(2), two, two))
	if diff := cmp.Diff([]*int{two, two, nil, nil}, memory(&b)[:4]); diff != "" {
		t.Errorf("after a shorter plan (-want +got):\n%s", diff)
	}

	// A plan that fails after writing three and never puts its slice back:
	// the next plan, which writes one, clears them.
	_ = append(b.take(3), one, one, one)
	b.put(append(b.take(1), two))
	if diff := cmp.Diff([]*int{two, nil, nil, nil}, memory(&b)[:4]); diff != "" {
		t.Errorf("after a failed plan (-want +got):\n%s", diff)
	}

	// A plan that writes more than the buffer holds gets new memory.
	old := memory(&b)
	b.put(append(b.take(2*cap(old)), one))
	if cap(b.s) < 2*cap(old) {
		t.Fatalf("take(%d) kept cap %d", 2*cap(old), cap(b.s))
	}
	if diff := cmp.Diff([]*int{one}, memory(&b)[:1]); diff != "" {
		t.Errorf("after growing (-want +got):\n%s", diff)
	}

	// A slice grown by appending past what take gave is kept as it is.
	grown := append(b.take(1), make([]*int, cap(b.s)+1)...)
	grown[0] = two
	b.put(grown)
	if cap(b.s) != cap(grown) || b.dirty != len(grown) {
		t.Errorf("after put of a grown slice: cap %d dirty %d, want %d and %d", cap(b.s), b.dirty, cap(grown), len(grown))
	}
}
