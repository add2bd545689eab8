// Package parallel splits a range of work items into contiguous chunks run
// on goroutines: the host-side parallelism of the cpu backend and of the
// suites' input generation, which must give the same bytes however many
// goroutines run (each item is computed by itself; only the split varies).
package parallel

import "sync"

// Chunks runs fn over [0, n) split into at most workers contiguous chunks
// of at least minChunk items each (the last may be shorter), one goroutine
// per chunk, and returns when all are done. With one chunk it runs fn on
// the calling goroutine; with n <= 0 it does nothing.
func Chunks(n, workers, minChunk int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	minChunk = max(1, minChunk)
	k := min(max(1, workers), (n+minChunk-1)/minChunk)
	if k <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range k {
		lo, hi := n*w/k, n*(w+1)/k
		wg.Go(func() { fn(lo, hi) })
	}
	wg.Wait()
}
