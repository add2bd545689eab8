package cpu

import (
	"fmt"
	"math"
	"sync"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/specs/formats"
)

// AttentionShape is the shape of one attention call
// (backend.AttentionShape has the layout and masking).
type AttentionShape = backend.AttentionShape

// Attention is the cpu backend's attention (backend.Attention): the
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
