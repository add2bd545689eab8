package parallel

import (
	"sync"
	"testing"
)

// Every item is visited exactly once, in chunks of at least minChunk (but
// the last), at most workers of them.
func TestChunks(t *testing.T) {
	for _, tc := range []struct{ n, workers, minChunk, wantChunks int }{
		{0, 4, 1, 0},
		{1, 4, 1, 1},
		{10, 4, 1, 4},
		{10, 4, 5, 2},
		{10, 4, 100, 1},
		{1000, 3, 7, 3},
		{5, 0, 0, 1},
	} {
		var mu sync.Mutex
		seen := make([]int, tc.n)
		chunks := 0
		Chunks(tc.n, tc.workers, tc.minChunk, func(lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			chunks++
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		if chunks != tc.wantChunks {
			t.Errorf("%+v: %d chunks, want %d", tc, chunks, tc.wantChunks)
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("%+v: item %d visited %d times", tc, i, c)
			}
		}
	}
}
