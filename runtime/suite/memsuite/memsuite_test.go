package memsuite

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/device/devmem"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/workloads"
)

// Small specs for the tests: shapes whose caches and buffers are a few
// MiB, so that the agreement cases (256 MiB) stay cheap.
var (
	testKV = workloads.KVCache{
		Name: "memory/kv_test", Layers: 4, Heads: 8, HeadDim: 64, ElemBytes: 2, // 8 KiB per token
		Tokens: []int{16, 100, 256}, QuickTokens: []int{100}, PageTokens: []int{16, 64},
	}
	testScratch = workloads.Scratch{
		Name: "memory/scratch_test", Sizes: []int{1 << 20, 4 << 20}, QuickSizes: []int{1 << 20},
		FragmentTotal: 1 << 20, FragmentChunks: []int{64 << 10, 100 << 10}, Reuses: []int{3, 5}, QuickReuses: []int{3}, ReuseSize: 64 << 10,
	}
	testAlloc = workloads.Allocator{
		Name: "memory/alloc_test", Sizes: []int{4 << 10, 1000, 1 << 20, 3 << 20}, Rounds: 4, QuickRounds: 2,
		SeqLens: []int{128, 256, 512}, QuickSeqLens: []int{128, 256}, Steps: 6, QuickSteps: 3,
		Heads: 8, HeadDim: 64, ElemBytes: 2, TargetSpeedup: 10,
	}
)

// runScenario runs sc on backend b with n samples per case and returns
// the measurements by case.
func runScenario(t *testing.T, sc *suite.Scenario, b backend.Backend, quick bool, n int) map[string]suite.Measurement {
	t.Helper()
	got := map[string]suite.Measurement{}
	var order []string
	env := &suite.Env{
		Ctx: context.Background(), Backend: b, Quick: quick,
		Sample: func(once func() (time.Duration, error)) ([]time.Duration, error) {
			var out []time.Duration
			for range n {
				d, err := once()
				if err != nil {
					return nil, err
				}
				out = append(out, d)
			}
			return out, nil
		},
		Report: func(m suite.Measurement) {
			if _, dup := got[m.Case]; dup {
				t.Errorf("case %s reported twice", m.Case)
			}
			got[m.Case] = m
			order = append(order, m.Case)
		},
		Logf: t.Logf,
	}
	if err := sc.Run(env); err != nil {
		t.Fatal(err)
	}
	for _, m := range got {
		for _, x := range m.Metrics {
			if math.IsNaN(x.Value) || math.IsInf(x.Value, 0) || x.Value < 0 {
				t.Errorf("%s: %s = %v", m.Case, x.Name, x.Value)
			}
		}
	}
	t.Logf("cases: %s", strings.Join(order, " "))
	return got
}

func metric(t *testing.T, ms map[string]suite.Measurement, c, name string) float64 {
	t.Helper()
	m, ok := ms[c]
	if !ok {
		t.Fatalf("no case %s", c)
	}
	x, ok := m.Metric(name)
	if !ok {
		t.Fatalf("%s has no metric %s: %+v", c, name, m.Metrics)
	}
	return x.Value
}

func TestShapes(t *testing.T) {
	s := kvShape{layers: 32, heads: 32, headDim: 128, elem: 2}
	if got, want := s.tokenBytes(), uint64(2*32*32*128*2); got != want || got != 512<<10 {
		t.Errorf("7B bytes per token %d, want %d", got, want)
	}
	// [layer][k|v][token][heads·head_dim]: layer 1's values start after
	// layer 0's keys and values and layer 1's keys.
	if got, want := s.offset(1, 1, 5, 100), uint64(3*100+5)*s.rowBytes(); got != want {
		t.Errorf("offset = %d, want %d", got, want)
	}
	for tokens, want := range map[int]int64{1: 1, 2: 2, 3: 3, 4: 3, 5: 4, 100: 8, 512: 10, 4096: 13} {
		if got := growthAllocs(tokens); got != want {
			t.Errorf("growthAllocs(%d) = %d, want %d", tokens, got, want)
		}
	}
	if got := chunkSizes(1<<20, 100<<10); len(got) != 11 || got[10] != 24<<10 {
		t.Errorf("chunkSizes(1 MiB, 100 KiB) = %v", got)
	}
	b := make([]byte, 1000)
	fillBytes(b, 7)
	for i, x := range b {
		if x != 7 {
			t.Fatalf("fillBytes: byte %d is %d", i, x)
		}
	}
}

// checkKV checks the KV cache figures against the formulas.
func checkKV(t *testing.T, ms map[string]suite.Measurement, spec workloads.KVCache, tokens []int) {
	t.Helper()
	s := kvShape{spec.Layers, spec.Heads, spec.HeadDim, spec.ElemBytes}
	tb := float64(s.tokenBytes())
	for _, tk := range tokens {
		c := fmt.Sprintf("alloc/t%d", tk)
		if got := metric(t, ms, c, "bytes_per_token"); got != tb {
			t.Errorf("%s: bytes_per_token %v, want %v", c, got, tb)
		}
		if got, want := metric(t, ms, c, "reserved"), float64(devmem.RoundSize(uint64(tk)*s.tokenBytes())); got != want {
			t.Errorf("%s: reserved %v, want the size class %v", c, got, want)
		}
		grown, pre := fmt.Sprintf("grow/t%d/grown", tk), fmt.Sprintf("grow/t%d/prealloc", tk)
		if got := metric(t, ms, grown, "allocs"); got != float64(growthAllocs(tk)) {
			t.Errorf("%s: %v allocs, want %d", grown, got, growthAllocs(tk))
		}
		if got := metric(t, ms, pre, "allocs"); got != 1 {
			t.Errorf("%s: %v allocs", pre, got)
		}
		if got := metric(t, ms, pre, "bytes_per_append"); got != tb {
			t.Errorf("%s: %v bytes per append, want %v", pre, got, tb)
		}
		// Grown: every token is copied once on append and once per doubling
		// it lived through.
		var moved float64
		for c := 1; c < tk; c *= 2 {
			moved += float64(c) * tb
		}
		if got, want := metric(t, ms, grown, "bytes_per_append"), tb+moved/float64(tk); got != want {
			t.Errorf("%s: %v bytes per append, want %v", grown, got, want)
		}
		if g, p := metric(t, ms, grown, "peak_in_use"), metric(t, ms, pre, "peak_in_use"); g <= p || p != float64(devmem.RoundSize(uint64(tk)*s.tokenBytes())) {
			t.Errorf("peak in use: grown %v, preallocated %v", g, p)
		}
		for _, pt := range spec.PageTokens {
			c := fmt.Sprintf("paged/p%d/t%d", pt, tk)
			pages := (tk + pt - 1) / pt
			payload := float64(pages*pt) * tb
			if got := metric(t, ms, c, "pages"); got != float64(pages) {
				t.Errorf("%s: %v pages, want %d", c, got, pages)
			}
			if got := metric(t, ms, c, "total"); got != payload {
				t.Errorf("%s: payload %v, want %v", c, got, payload)
			}
			// Device table (int32 per page), host table, pageInfo per page.
			meta := metric(t, ms, c, "meta")
			if host := meta - float64(pages*4); host < float64(pages*(16+4)) {
				t.Errorf("%s: host metadata %v bytes for %d pages, want at least %d", c, host, pages, pages*20)
			}
			if got := metric(t, ms, c, "meta_ratio"); math.Abs(got-meta/payload) > 1e-15 {
				t.Errorf("%s: meta_ratio %v, want %v", c, got, meta/payload)
			}
			if got, want := metric(t, ms, c, "last_page_waste"), float64(pages*pt-tk)*tb; got != want {
				t.Errorf("%s: last-page waste %v, want %v", c, got, want)
			}
			nextPages := (tk + 1 + pt - 1) / pt
			if got, want := metric(t, ms, c, "waste_next"), float64(nextPages*pt-tk-1)*tb; got != want {
				t.Errorf("%s: waste_next %v, want %v", c, got, want)
			}
		}
	}
	if got := metric(t, ms, "agreement", "agreement_err"); got > 100*AgreementTolerance {
		t.Errorf("agreement %v%%", got)
	}
}

func TestKVCacheCPU(t *testing.T) {
	ms := runScenario(t, KVCache(testKV), cpu.New(0), false, 2)
	checkKV(t, ms, testKV, testKV.Tokens)
	for _, c := range []string{"agreement", "alloc/t16", "grow/t100/grown"} {
		if got := metric(t, ms, c, "go_alloc"); got <= 0 {
			t.Errorf("%s: Go allocated %v bytes", c, got)
		}
	}
	quick := runScenario(t, KVCache(testKV), cpu.New(0), true, 1)
	if _, ok := quick["alloc/t16"]; ok {
		t.Error("a quick run allocated a capacity QuickTokens lacks")
	}
	checkKV(t, quick, testKV, testKV.QuickTokens)
}

func TestScratchCPU(t *testing.T) {
	ms := runScenario(t, Scratch(testScratch), cpu.New(0), false, 3)
	for _, c := range []string{"single/1m", "single/4m", "fragmented/1m/64k", "fragmented/1m/100k", "fragmented/1m/1m", "reuse/n3", "reuse/n5", "agreement"} {
		if _, ok := ms[c]; !ok {
			t.Errorf("no case %s", c)
		}
	}
	if got := metric(t, ms, "fragmented/1m/100k", "chunks"); got != 11 {
		t.Errorf("1 MiB in 100 KiB chunks: %v chunks", got)
	}
	// 3 samples of the cached allocation, then the fill's: 1 miss in 4.
	if got := metric(t, ms, "single/4m", "hit_rate"); got != 75 {
		t.Errorf("hit rate %v%%, want 75%%", got)
	}
	// 100 KiB rounds up to the 112 KiB class: waste in the live chunks.
	if got := metric(t, ms, "fragmented/1m/100k", "rounding_waste"); got <= 0 {
		t.Errorf("100 KiB chunks: rounding waste %v", got)
	}
	if m := ms["reuse/n5"]; m.BytesWritten != 5*64<<10 || len(m.Samples) != 3 {
		t.Errorf("reuse/n5: %+v", m)
	}
	if got := metric(t, ms, "agreement", "agreement_err"); got > 1 {
		t.Errorf("agreement %v%%", got)
	}
	quick := runScenario(t, Scratch(testScratch), cpu.New(0), true, 1)
	if _, ok := quick["single/4m"]; ok {
		t.Error("a quick run kept a size QuickSizes lacks")
	}
	if _, ok := quick["reuse/n5"]; ok {
		t.Error("a quick run kept a reuse count QuickReuses lacks")
	}
}

func TestAllocatorCPU(t *testing.T) {
	ms := runScenario(t, Allocator(testAlloc), cpu.New(0), false, 3)
	perSample := float64(testAlloc.Rounds * len(testAlloc.Sizes))
	if got := metric(t, ms, "repeated/direct", "device_allocs"); got != 3*perSample {
		t.Errorf("direct: %v device allocations, want %v", got, 3*perSample)
	}
	if got := metric(t, ms, "repeated/caching", "device_allocs"); got != float64(len(testAlloc.Sizes)) {
		t.Errorf("caching: %v device allocations, want one per size", got)
	}
	if got, want := metric(t, ms, "repeated/caching", "hit_rate"), 100*(1-4/(3*perSample)); math.Abs(got-want) > 1e-9 {
		t.Errorf("hit rate %v, want %v", got, want)
	}
	if got := metric(t, ms, "repeated/direct", "peak_in_use"); got != float64(4<<10+1000+1<<20+3<<20) {
		t.Errorf("direct peak %v", got)
	}
	// Class rounding only: 1000 → 1024, 3 MiB → 4 MiB.
	var classes, asked uint64
	for _, n := range testAlloc.Sizes {
		classes, asked = classes+devmem.RoundSize(uint64(n)), asked+uint64(n)
	}
	if got, want := metric(t, ms, "repeated/caching", "peak_overhead"), 100*(float64(classes)/float64(asked)-1); math.Abs(got-want) > 1e-9 {
		t.Errorf("repeated peak overhead %v%%, want %v%%", got, want)
	}
	if got := metric(t, ms, "repeated/caching", "target"); got != 10 {
		t.Errorf("target %v", got)
	}
	if got := metric(t, ms, "varying/caching", "peak_overhead"); got <= 0 {
		t.Errorf("varying shapes: the cache costs no memory? %v%%", got)
	}
	if got := metric(t, ms, "varying/caching", "cached_frac"); got <= 0 || got >= 100 {
		t.Errorf("varying shapes: cached fraction %v%%", got)
	}
	if got := metric(t, ms, "varying/caching", "speedup"); got <= 1 {
		t.Logf("varying shapes: caching speedup %v on the cpu", got)
	}
	if a, d := metric(t, ms, "varying/caching", "allocs"), metric(t, ms, "varying/direct", "allocs"); a != d || a != 3*5*6 {
		t.Errorf("varying: %v caching allocs, %v direct, want %d", a, d, 3*5*6)
	}
	if got := metric(t, ms, "agreement", "agreement_err"); got > 1 {
		t.Errorf("agreement %v%%", got)
	}
	quick := runScenario(t, Allocator(testAlloc), cpu.New(0), true, 1)
	if got := metric(t, quick, "repeated/direct", "allocs"); got != float64(testAlloc.QuickRounds*len(testAlloc.Sizes)) {
		t.Errorf("quick: %v allocs", got)
	}
}

// TestSpecs runs the real specs' quick cases on the cpu, as CI's
// forgebench run --quick does.
func TestSpecs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 256 MiB caches")
	}
	ms := runScenario(t, KVCache(workloads.KVCache7B), cpu.New(0), true, 1)
	checkKV(t, ms, workloads.KVCache7B, workloads.KVCache7B.QuickTokens)
	if got := metric(t, ms, "alloc/t512", "bytes_per_token"); got != 512<<10 {
		t.Errorf("7B bytes per token %v", got)
	}
}
