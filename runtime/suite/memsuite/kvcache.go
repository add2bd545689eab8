package memsuite

import (
	"errors"
	"fmt"
	"math/bits"
	"time"
	"unsafe"

	"github.com/rocmforge/forge/runtime/device/devmem"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/workloads"
)

// kvShape is a model's key/value cache shape.
type kvShape struct {
	layers, heads, headDim, elem int
}

// rowBytes is one token's keys (or values) of one layer: heads·head_dim
// elements.
func (s kvShape) rowBytes() uint64 { return uint64(s.heads * s.headDim * s.elem) }

// tokenBytes is one token's keys and values of every layer:
// 2·layers·heads·head_dim·bytes.
func (s kvShape) tokenBytes() uint64 { return 2 * uint64(s.layers) * s.rowBytes() }

// kvCache is a contiguous KV cache of one sequence, laid out
// [layer][k|v][token][heads·head_dim]: each layer's keys, then its
// values, capacity rows each, so that attention reads a layer's keys (or
// values) as one [token][heads·head_dim] matrix. An append writes
// 2·layers rows of rowBytes, one per layer and k|v; growing copies the
// 2·layers used regions into a buffer of the new capacity.
type kvCache struct {
	shape    kvShape
	buf      buffer
	capacity int
	tokens   int
	copied   uint64 // bytes moved by appends and growth
}

// offset is where row token of layer's keys (kv 0) or values (kv 1) lies
// in a cache of capacity tokens.
func (s kvShape) offset(layer, kv, token, capacity int) uint64 {
	return (uint64(layer*2+kv)*uint64(capacity) + uint64(token)) * s.rowBytes()
}

// newKVCache allocates a cache of capacity tokens.
func newKVCache(pl *platform, a allocator, s kvShape, capacity int) (*kvCache, error) {
	b, err := pl.alloc(a, uint64(capacity)*s.tokenBytes())
	if err != nil {
		return nil, err
	}
	return &kvCache{shape: s, buf: b, capacity: capacity}, nil
}

// stagingBytes is the staging buffer of one token: [layer][k|v][heads·head_dim].
func (s kvShape) stagingBytes() uint64 { return s.tokenBytes() }

// appendToken writes the next token's keys and values from the staging
// buffer, growing the cache (doubling its capacity, as a Go slice grows)
// when it is full and grow is set.
func (c *kvCache) appendToken(pl *platform, a allocator, staging buffer, grow bool) error {
	if c.tokens == c.capacity {
		if !grow {
			return fmt.Errorf("memsuite: appending token %d to a preallocated cache of %d", c.tokens+1, c.capacity)
		}
		if err := c.grow(pl, a, max(1, 2*c.capacity)); err != nil {
			return err
		}
	}
	s, row := c.shape, c.shape.rowBytes()
	for l := range s.layers {
		for kv := range 2 {
			if err := pl.copy(c.buf, s.offset(l, kv, c.tokens, c.capacity), staging, uint64(l*2+kv)*row, row); err != nil {
				return err
			}
		}
	}
	c.copied += 2 * uint64(s.layers) * row
	c.tokens++
	return nil
}

// grow moves the cache to a new buffer of capacity tokens: allocate,
// copy each layer's keys and values, free the old buffer.
func (c *kvCache) grow(pl *platform, a allocator, capacity int) error {
	s := c.shape
	nb, err := pl.alloc(a, uint64(capacity)*s.tokenBytes())
	if err != nil {
		return err
	}
	if n := uint64(c.tokens) * s.rowBytes(); n > 0 {
		for l := range s.layers {
			for kv := range 2 {
				if err := pl.copy(nb, s.offset(l, kv, 0, capacity), c.buf, s.offset(l, kv, 0, c.capacity), n); err != nil {
					return errors.Join(err, a.Free(nb.p))
				}
			}
		}
		c.copied += 2 * uint64(s.layers) * n
	}
	// The copies must finish before the old block goes back to the
	// allocator, which may hand it out at once (devmem's rule).
	if err := pl.sync(); err != nil {
		return err
	}
	if c.buf.p != 0 {
		if err := a.Free(c.buf.p); err != nil {
			return err
		}
	}
	c.buf, c.capacity = nb, capacity
	return nil
}

func (c *kvCache) free(a allocator) error {
	if c == nil || c.buf.p == 0 {
		return nil
	}
	err := a.Free(c.buf.p)
	c.buf = buffer{}
	return err
}

// check verifies, after appends from a staging buffer whose row of
// (layer, kv) holds byte layer*2+kv+1, that the first, middle and last
// token rows of every layer's keys and values hold their staging row.
func (c *kvCache) check(pl *platform) error {
	if c.tokens == 0 {
		return nil
	}
	s, row := c.shape, c.shape.rowBytes()
	for l := range s.layers {
		for kv := range 2 {
			want := byte(l*2 + kv + 1)
			for _, t := range []int{0, c.tokens / 2, c.tokens - 1} {
				got, err := pl.download(c.buf, s.offset(l, kv, t, c.capacity), row)
				if err != nil {
					return err
				}
				for i, x := range got {
					if x != want {
						return fmt.Errorf("kv cache of %d tokens (capacity %d): layer %d %s, token %d, byte %d is %#x, want %#x",
							c.tokens, c.capacity, l, [2]string{"keys", "values"}[kv], t, i, x, want)
					}
				}
			}
		}
	}
	return nil
}

// newStaging allocates and fills the staging buffer: the row of layer l,
// keys (kv 0) or values (kv 1), holds byte l*2+kv+1.
func newStaging(pl *platform, a allocator, s kvShape) (buffer, error) {
	b, err := pl.alloc(a, s.stagingBytes())
	if err != nil {
		return buffer{}, err
	}
	row := s.rowBytes()
	for i := range 2 * s.layers {
		if err := pl.fill(b, uint64(i)*row, row, byte(i+1)); err != nil {
			return buffer{}, errors.Join(err, a.Free(b.p))
		}
	}
	return b, nil
}

// growthAllocs is how many allocations growing one token at a time from
// an empty cache to tokens takes: capacities 1, 2, 4, … up to the first
// power of two ≥ tokens.
func growthAllocs(tokens int) int64 { return int64(bits.Len(uint(tokens-1))) + 1 }

// KVCache is the key/value cache scenario of spec s (see package doc and
// workloads.KVCache). Cases, for each capacity t (QuickTokens when quick):
//
//   - alloc/t<t>: allocating the cache (one buffer of t·2·layers·heads·
//     head_dim·bytes, from a new caching allocator, so a device
//     allocation); bytes_per_token and total from the allocator's
//     Requested growth, checked to equal the formula exactly; reserved
//     (the size class, InUse), rounding_waste.
//   - grow/t<t>/grown and grow/t<t>/prealloc: appending t tokens one at a
//     time, timed as a whole run (host clock, to a device synchronise),
//     into a cache grown by doubling from capacity 1 (allocate, copy,
//     free) or allocated at t up front: allocs (Stats.Allocs),
//     bytes_per_append (bytes the copies moved, appends and growth, per
//     append), alloc_per_append (Stats.Allocated per append), appends_per_s,
//     peak_in_use and peak_reserved; the counts are checked (1 for
//     prealloc, one per doubling for grown) and so are sampled rows of the
//     cache's contents.
//   - paged/p<P>/t<t>: a paged cache of t tokens in pages of P tokens
//     (see pagedCache), the pages of one page size from one caching
//     allocator (a page pool): pages, total (the pages' payload, the
//     allocator's Requested), meta (the device page table, from the
//     allocator's Requested, plus the host bookkeeping the structure
//     keeps), meta_ratio (meta over payload, a plain ratio),
//     last_page_waste (payload not holding tokens), and waste_next, the
//     last-page waste of a cache of t+1 tokens (a new page, P-1 tokens
//     empty: the worst case). The page count, payload and table size are
//     checked against the allocator's figures.
//   - agreement: the largest capacity's caches (≥ 256 MiB) against the
//     device's free-memory report or Go's heap accounting.
func KVCache(spec workloads.KVCache) *suite.Scenario {
	doc := spec.Doc
	if doc == "" {
		doc = "KV cache: allocation, growth (doubling vs preallocated), paged metadata"
	}
	return &suite.Scenario{Doc: doc, Run: func(env *suite.Env) (err error) {
		s := kvShape{layers: spec.Layers, heads: spec.Heads, headDim: spec.HeadDim, elem: spec.ElemBytes}
		if s.layers <= 0 || s.heads <= 0 || s.headDim <= 0 || s.elem <= 0 {
			return fmt.Errorf("kv cache %s: layers, heads, head dim and element bytes must be positive: %+v", spec.Name, spec)
		}
		pl, err := newPlatform(env.Backend)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, pl.close()) }()
		tokens := quickOr(env, spec.Tokens, spec.QuickTokens)
		for _, t := range tokens {
			if t <= 0 {
				return fmt.Errorf("kv cache %s: capacity %d", spec.Name, t)
			}
			if err := kvAlloc(env, pl, s, t); err != nil || stopped(env) {
				return err
			}
		}
		for _, t := range tokens {
			for _, grow := range []bool{true, false} {
				if err := kvGrowth(env, pl, s, t, grow); err != nil || stopped(env) {
					return err
				}
			}
		}
		for _, p := range spec.PageTokens {
			if err := kvPaged(env, pl, s, p, tokens); err != nil || stopped(env) {
				return err
			}
		}
		largest := tokens[0]
		for _, t := range tokens {
			largest = max(largest, t)
		}
		return pl.agreement(env, fmt.Sprintf("%d-token KV caches", largest), func(a allocator) ([]buffer, error) {
			var bufs []buffer
			for total := uint64(0); total < minAgreementBytes; {
				c, err := newKVCache(pl, a, s, largest)
				if err != nil {
					return bufs, err
				}
				bufs = append(bufs, c.buf)
				total += c.buf.n
			}
			return bufs, nil
		})
	}}
}

// kvAlloc is the alloc/t<t> case.
func kvAlloc(env *suite.Env, pl *platform, s kvShape, t int) error {
	var first devmem.Stats
	var g0 goMem
	n := 0
	samples, err := env.Sample(func() (time.Duration, error) {
		a := pl.caching()
		if n == 0 {
			g0 = readGoMem()
		}
		var c *kvCache
		dt, err := timeHost(func() (err error) {
			c, err = newKVCache(pl, a, s, t)
			return err
		})
		if err != nil {
			return 0, err
		}
		if n == 0 {
			first = a.Stats()
		}
		n++
		if err := c.free(a); err != nil {
			return 0, err
		}
		return dt, a.Release()
	})
	if err != nil || samples == nil {
		return err
	}
	want := s.tokenBytes()
	perToken := first.Requested / uint64(t)
	if first.Requested != uint64(t)*want || perToken != want || first.DeviceAllocs != 1 {
		return fmt.Errorf("kv cache of %d tokens: the allocator holds %d bytes requested in %d device allocations (%d per token), want %d = 2·%d layers·%d heads·%d dims·%d bytes per token in one",
			t, first.Requested, first.DeviceAllocs, perToken, want, s.layers, s.heads, s.headDim, s.elem)
	}
	m := suite.Measurement{Case: fmt.Sprintf("alloc/t%d", t), Shape: []int{s.layers, s.heads, s.headDim, t}, Samples: samples}
	m.Add("bytes_per_token", float64(perToken), "B").
		Add("total", float64(first.Requested), "B").
		Add("reserved", float64(first.InUse), "B").
		Add("rounding_waste", 100*first.RoundingWaste(), "%")
	if !pl.onDevice() {
		// Go's bytes per cache allocation: the whole run's over its allocations.
		g := readGoMem()
		m.Add("go_alloc", float64(g.allocBytes-g0.allocBytes)/float64(n), "B")
	}
	env.Report(m)
	return nil
}

// kvGrowth is the grow/t<t>/grown (grow) or grow/t<t>/prealloc case.
func kvGrowth(env *suite.Env, pl *platform, s kvShape, t int, grow bool) (err error) {
	stage := pl.caching()
	staging, err := newStaging(pl, stage, s)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stage.Free(staging.p), stage.Release()) }()
	var st devmem.Stats
	var copied uint64
	checked := false
	g0 := readGoMem()
	runs := 0
	samples, err := env.Sample(func() (time.Duration, error) {
		a := pl.caching()
		var c *kvCache
		dt, err := timeHost(func() error {
			if grow {
				c = &kvCache{shape: s}
			} else {
				var err error
				if c, err = newKVCache(pl, a, s, t); err != nil {
					return err
				}
			}
			for range t {
				if err := c.appendToken(pl, a, staging, grow); err != nil {
					return err
				}
			}
			return pl.sync()
		})
		if err != nil {
			return 0, errors.Join(err, c.free(a), a.Release())
		}
		runs++
		st, copied = a.Stats(), c.copied
		if !checked {
			checked = true
			if err := c.check(pl); err != nil {
				return 0, errors.Join(err, c.free(a), a.Release())
			}
		}
		return dt, errors.Join(c.free(a), a.Release())
	})
	if err != nil || samples == nil {
		return err
	}
	kind := "prealloc"
	wantAllocs := int64(1)
	if grow {
		kind, wantAllocs = "grown", growthAllocs(t)
	}
	if st.Allocs != wantAllocs || st.LiveBlocks != 1 || st.Frees != wantAllocs-1 {
		return fmt.Errorf("kv cache grown to %d tokens (%s): %d allocations, %d frees, %d live blocks; want %d, %d, 1",
			t, kind, st.Allocs, st.Frees, st.LiveBlocks, wantAllocs, wantAllocs-1)
	}
	m := suite.Measurement{Case: fmt.Sprintf("grow/t%d/%s", t, kind), Shape: []int{s.layers, s.heads, s.headDim, t},
		Elements: int64(t), BytesRead: int64(copied), BytesWritten: int64(copied), Samples: samples}
	m.Add("allocs", float64(st.Allocs), "").
		Add("bytes_per_append", float64(copied)/float64(t), "B").
		Add("alloc_per_append", float64(st.Allocated)/float64(t), "B").
		Add("appends_per_s", float64(t)/seconds(median(samples)), "1/s").
		Add("peak_in_use", float64(st.PeakInUse), "B").
		Add("peak_reserved", float64(st.PeakReserved), "B")
	if !pl.onDevice() && runs > 0 {
		g := readGoMem()
		m.Add("go_alloc", float64(g.allocBytes-g0.allocBytes)/float64(runs), "B")
	}
	env.Report(m)
	return nil
}

// pageInfo is the host's bookkeeping of one page of a paged cache.
type pageInfo struct {
	ptr    uintptr // the page's device address
	tokens int32   // tokens written into it
	refs   int32   // sequences sharing it (prefix sharing)
}

// pagedCache is a paged KV cache of one sequence: fixed pages of
// pageTokens tokens, each its own allocation laid out [layer][k|v][token]
// [heads·head_dim] (a page holds its tokens' keys and values of every
// layer), the host's bookkeeping of each page (pageInfo), and the
// sequence's page table, logical page → page index, int32 as vLLM's
// block tables, kept on the host and uploaded to a device buffer of its
// own for the kernels. Its metadata is the device page table, the host
// copy of it and the pages' pageInfo.
type pagedCache struct {
	shape      kvShape
	pageTokens int
	pages      []pageInfo
	bufs       []buffer
	table      []int32
	devTable   buffer
}

// pageBytes is one page's payload.
func (s kvShape) pageBytes(pageTokens int) uint64 { return uint64(pageTokens) * s.tokenBytes() }

// newPagedCache allocates pages for tokens tokens and the page table.
func newPagedCache(pl *platform, a allocator, s kvShape, pageTokens, tokens int) (*pagedCache, devmem.Stats, error) {
	c := &pagedCache{shape: s, pageTokens: pageTokens}
	n := (tokens + pageTokens - 1) / pageTokens
	for i := range n {
		b, err := pl.alloc(a, s.pageBytes(pageTokens))
		if err != nil {
			return c, devmem.Stats{}, err
		}
		filled := min(pageTokens, tokens-i*pageTokens)
		c.bufs = append(c.bufs, b)
		c.pages = append(c.pages, pageInfo{ptr: uintptr(b.p), tokens: int32(filled), refs: 1})
		c.table = append(c.table, int32(i))
	}
	afterPages := a.Stats()
	var err error
	if c.devTable, err = pl.alloc(a, uint64(len(c.table))*4); err != nil {
		return c, afterPages, err
	}
	raw := make([]byte, 4*len(c.table))
	for i, x := range c.table {
		raw[4*i], raw[4*i+1], raw[4*i+2], raw[4*i+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
	return c, afterPages, pl.upload(c.devTable, 0, raw)
}

// hostMetaBytes is the host memory the cache's bookkeeping holds.
func (c *pagedCache) hostMetaBytes() uint64 {
	return uint64(cap(c.pages))*uint64(unsafe.Sizeof(pageInfo{})) + uint64(cap(c.table))*uint64(unsafe.Sizeof(int32(0)))
}

func (c *pagedCache) free(a allocator) error {
	var errs []error
	for _, b := range c.bufs {
		errs = append(errs, a.Free(b.p))
	}
	errs = append(errs, a.Free(c.devTable.p))
	c.bufs, c.devTable = nil, buffer{}
	return errors.Join(errs...)
}

// kvPaged is the paged/p<P>/t<t> cases of one page size: one caching
// allocator for them all (a page pool: a capacity's pages return to it
// and serve the next).
func kvPaged(env *suite.Env, pl *platform, s kvShape, pageTokens int, tokens []int) (err error) {
	if pageTokens <= 0 {
		return fmt.Errorf("page of %d tokens", pageTokens)
	}
	a := pl.caching()
	defer func() { err = errors.Join(err, a.Release()) }()
	for _, t := range tokens {
		pr, err := pagedFigures(pl, a, s, pageTokens, t)
		if err != nil {
			return err
		}
		// One token more starts a new page: the worst last-page waste.
		next, err := pagedFigures(pl, a, s, pageTokens, t+1)
		if err != nil {
			return err
		}
		m := suite.Measurement{Case: fmt.Sprintf("paged/p%d/t%d", pageTokens, t), Shape: []int{pageTokens, t}}
		m.Add("pages", float64(pr.pages), "").
			Add("total", float64(pr.payload), "B").
			Add("meta", float64(pr.meta), "B").
			Add("meta_ratio", float64(pr.meta)/float64(pr.payload), "").
			Add("last_page_waste", float64(pr.waste), "B").
			Add("waste_next", float64(next.waste), "B")
		env.Report(m)
	}
	return nil
}

// pagedResult is what one paged cache holds, from the allocator's stats.
type pagedResult struct {
	pages, payload, meta, waste uint64
}

// pagedFigures builds a paged cache of tokens tokens from a, checks it
// against the allocator's stats, frees it and returns its figures.
func pagedFigures(pl *platform, a allocator, s kvShape, pageTokens, tokens int) (pagedResult, error) {
	before := a.Stats()
	c, afterPages, err := newPagedCache(pl, a, s, pageTokens, tokens)
	if err != nil {
		return pagedResult{}, errors.Join(err, c.free(a))
	}
	after := a.Stats()
	payload := afterPages.Requested - before.Requested
	table := after.Requested - afterPages.Requested
	pages := uint64(len(c.pages))
	var errs []error
	if want := pages * s.pageBytes(pageTokens); payload != want || pages != uint64((tokens+pageTokens-1)/pageTokens) {
		errs = append(errs, fmt.Errorf("paged cache (%d-token pages, %d tokens): the allocator holds %d bytes of pages, want %d pages of %d", pageTokens, tokens, payload, pages, s.pageBytes(pageTokens)))
	}
	if table != 4*pages || after.Allocs-before.Allocs != int64(pages)+1 {
		errs = append(errs, fmt.Errorf("paged cache (%d-token pages, %d tokens): a page table of %d bytes in %d allocations, want %d bytes for %d pages",
			pageTokens, tokens, table, after.Allocs-before.Allocs, 4*pages, pages))
	}
	var written uint64
	for _, p := range c.pages {
		written += uint64(p.tokens) * s.tokenBytes()
	}
	if written != uint64(tokens)*s.tokenBytes() {
		errs = append(errs, fmt.Errorf("paged cache (%d-token pages, %d tokens): pages record %d tokens", pageTokens, tokens, written/s.tokenBytes()))
	}
	r := pagedResult{pages: pages, payload: payload, meta: table + c.hostMetaBytes(), waste: payload - written}
	return r, errors.Join(append(errs, c.free(a))...)
}
