package cpu

import (
	"fmt"
	"math"
	"sync"

	"github.com/rocmforge/forge/specs/formats"
)

// AttentionShape is the shape of one attention call, in the layout of the
// flash-attention kernels (templates/hip/attention.hip.tmpl): q and o are
// [Batch, Heads, SeqQ, HeadDim], k and v [Batch, HeadsKV, SeqKV, HeadDim],
// contiguous. Query head h reads key/value head h / (Heads / HeadsKV)
// (grouped-query attention). Under Causal masking query row i attends keys
// j <= i + (SeqKV − SeqQ) (bottom-right aligned, as FlashAttention-2);
// otherwise every key. Scale multiplies the scores (callers pass
// 1/sqrt(HeadDim)).
type AttentionShape struct {
	Batch, Heads, HeadsKV int
	SeqQ, SeqKV           int
	HeadDim               int
	Scale                 float32
	Causal                bool
}

// QElems is the number of elements of q (and of o).
func (s AttentionShape) QElems() int { return s.Batch * s.Heads * s.SeqQ * s.HeadDim }

// KVElems is the number of elements of k (and of v).
func (s AttentionShape) KVElems() int { return s.Batch * s.HeadsKV * s.SeqKV * s.HeadDim }

// Validate reports a shape the kernels refuse: a negative size, a head
// dimension that is not positive, Heads not a multiple of HeadsKV, or a
// tensor of 2^60 elements or more.
func (s AttentionShape) Validate() error {
	if s.Batch < 0 || s.Heads < 0 || s.HeadsKV < 0 || s.SeqQ < 0 || s.SeqKV < 0 || s.HeadDim <= 0 {
		return fmt.Errorf("attention: bad shape %+v: negative size or head dimension not positive", s)
	}
	if s.Heads > 0 && (s.HeadsKV == 0 || s.Heads%s.HeadsKV != 0) {
		return fmt.Errorf("attention: %d query heads is not a multiple of %d key/value heads", s.Heads, s.HeadsKV)
	}
	const maxElems = 1 << 60
	for _, n := range [][3]int{{s.Batch, s.Heads, s.SeqQ}, {s.Batch, s.HeadsKV, s.SeqKV}} {
		e := uint64(s.HeadDim)
		for _, f := range n {
			if f > 0 && e > maxElems/uint64(f) {
				return fmt.Errorf("attention: shape %+v: a tensor of 2^60 elements or more", s)
			}
			e *= uint64(f)
		}
	}
	return nil
}

// FLOPs is the arithmetic attention must do, by the convention of
// FlashAttention's benchmarks: 4·HeadDim per (query, attended key) pair
// (2 for the score, 2 for the weighted sum of V), so 4·b·h·sq·skv·d without
// masking. Under causal masking only the attended pairs count: row i
// attends min(SeqKV, max(0, i + SeqKV − SeqQ + 1)) keys (for SeqQ == SeqKV
// = s, s(s+1)/2 pairs, about half). Softmax work is not counted.
func (s AttentionShape) FLOPs() float64 {
	return 4 * float64(s.Batch) * float64(s.Heads) * float64(s.HeadDim) * float64(s.Pairs())
}

// Pairs is the number of (query row, attended key) pairs of one head.
func (s AttentionShape) Pairs() int64 {
	if !s.Causal {
		return int64(s.SeqQ) * int64(s.SeqKV)
	}
	var n int64
	off := s.SeqKV - s.SeqQ
	for i := 0; i < s.SeqQ; i++ {
		n += int64(min(s.SeqKV, max(0, i+off+1)))
	}
	return n
}

// Attended is the number of keys query row i attends.
func (s AttentionShape) Attended(i int) int {
	if !s.Causal {
		return s.SeqKV
	}
	return min(s.SeqKV, max(0, i+s.SeqKV-s.SeqQ+1))
}

// Attention is the cpu backend's attention (suite.AttentionBackend): the
// reference, with o rounded to f16 (and widened back) for dtype "f16" as
// the f16 kernels round theirs. The inputs are used as given (f16 inputs
// are expected to be f16 values already).
func (b *Backend) Attention(dtype string, s AttentionShape, q, k, v, o []float32) error {
	if dtype != "f16" && dtype != "f32" {
		return fmt.Errorf("attention: dtype %q: want f16 or f32", dtype)
	}
	if err := b.AttentionRef(s, q, k, v, o); err != nil {
		return err
	}
	if dtype == "f16" {
		for i, x := range o {
			o[i] = formats.HalfFromFloat32(x).Float32()
		}
	}
	return nil
}

// AttentionRef is the reference attention: for every (batch, head) and query
// row, the scores scale·q·k over the attended keys, a softmax (max
// subtracted) and the weighted sum of v, all in float64, rounded to
// float32 once. A row that attends no key is zeros. q, k, v and o hold
// s.QElems(), s.KVElems(), s.KVElems() and s.QElems() values. It runs the
// (batch, head) pairs across the backend's goroutines.
func (b *Backend) AttentionRef(s AttentionShape, q, k, v, o []float32) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if len(q) != s.QElems() || len(o) != s.QElems() || len(k) != s.KVElems() || len(v) != s.KVElems() {
		return fmt.Errorf("attention: shape %+v needs q and o of %d values and k and v of %d; have %d, %d, %d, %d",
			s, s.QElems(), s.KVElems(), len(q), len(o), len(k), len(v))
	}
	bh := s.Batch * s.Heads
	if bh == 0 || s.SeqQ == 0 {
		return nil
	}
	workers := max(1, min(b.workers, bh))
	var wg sync.WaitGroup
	next := make(chan int, bh)
	for x := range bh {
		next <- x
	}
	close(next)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scores := make([]float64, s.SeqKV)
			acc := make([]float64, s.HeadDim)
			for x := range next {
				attentionHead(s, x, q, k, v, o, scores, acc)
			}
		}()
	}
	wg.Wait()
	return nil
}

// attentionHead computes head x = batch·Heads + head of o.
func attentionHead(s AttentionShape, x int, q, k, v, o []float32, scores, acc []float64) {
	d := s.HeadDim
	group := s.Heads / s.HeadsKV
	xkv := (x/s.Heads)*s.HeadsKV + (x%s.Heads)/group
	kb := k[xkv*s.SeqKV*d : (xkv+1)*s.SeqKV*d]
	vb := v[xkv*s.SeqKV*d : (xkv+1)*s.SeqKV*d]
	scale := float64(s.Scale)
	for i := range s.SeqQ {
		qr := q[(x*s.SeqQ+i)*d : (x*s.SeqQ+i+1)*d]
		or := o[(x*s.SeqQ+i)*d : (x*s.SeqQ+i+1)*d]
		n := s.Attended(i)
		if n == 0 {
			clear(or)
			continue
		}
		m := math.Inf(-1)
		for j := range n {
			kr := kb[j*d : (j+1)*d]
			var dot float64
			for c, qv := range qr {
				dot += float64(qv) * float64(kr[c])
			}
			scores[j] = dot * scale
			m = math.Max(m, scores[j])
		}
		clear(acc)
		var sum float64
		for j := range n {
			p := math.Exp(scores[j] - m)
			sum += p
			vr := vb[j*d : (j+1)*d]
			for c, vv := range vr {
				acc[c] += p * float64(vv)
			}
		}
		for c := range or {
			or[c] = float32(acc[c] / sum)
		}
	}
}
