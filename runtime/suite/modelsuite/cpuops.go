package modelsuite

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/specs/formats"
)

// cpuOps is the forward on the cpu backend: runtime/backend/cpu's MatVec (one
// token; on the x8 path its matvec_x8, the spec's integer form) and MatMul (the format spec's Dequant, float64 dot products),
// AttentionRef (float64) with its output rounded to f16 as the f16 kernel
// rounds its, and the Go glue (cpu.RMSNorm, RoPE, …). The f16 roundings of
// the GPU path (q, the caches, the attention output) are applied here too,
// so the two compute the same function up to float32 accumulation.
type cpuOps struct {
	w        *Weights
	be       *cpu.Backend
	seq      int
	bufs     [numBufs][]float32
	k, v     [][]float32 // per layer, [kv_heads, capacity, head_dim]
	capacity int
	// xin is the activations quantizeX8 took (a copy: what the device's
	// X8 scratch holds until the next quantization), xk the x8 kernel.
	xin []float32
	xk  backend.Kernel
	// The breakdown: wall time per component, from mark to mark.
	times [NumComponents]time.Duration
	cur   Component
	since time.Time
}

func newCPUOps(w *Weights, be *cpu.Backend, seq, capacity int) *cpuOps {
	o := &cpuOps{w: w, be: be, seq: seq, capacity: capacity, cur: -1,
		xk: backend.Kernel{Family: "matvec", Name: "matvec_x8", Signature: cpu.SignatureMatVecX8, Output: backend.OutputF32, Format: w.Format}}
	for b := range numBufs {
		n, _ := bufSize(w.Shape, b, seq)
		o.bufs[b] = make([]float32, n)
	}
	s := w.Shape
	for range s.Layers {
		o.k = append(o.k, make([]float32, s.KVHeads*capacity*s.HeadDim))
		o.v = append(o.v, make([]float32, s.KVHeads*capacity*s.HeadDim))
	}
	return o
}

// fillKV sets the first n rows of every layer's caches to random context.
func (o *cpuOps) fillKV(n int, seed uint64) {
	for l := range o.k {
		o.k[l] = KVFill(o.w.Shape, n, o.capacity, seed+uint64(2*l))
		o.v[l] = KVFill(o.w.Shape, n, o.capacity, seed+uint64(2*l+1))
	}
}

func (o *cpuOps) upload(x []float32) error { copy(o.bufs[bH], x); return nil }

func (o *cpuOps) norm(layer int, ffn bool) []float32 {
	switch {
	case layer < 0:
		return o.w.Norm
	case ffn:
		return o.w.Layers[layer].FFNNorm
	}
	return o.w.Layers[layer].AttnNorm
}

func (o *cpuOps) rmsnorm(dst, src buf, layer int, ffn bool, rows int) error {
	s := o.w.Shape
	cpu.RMSNorm(o.bufs[src], o.norm(layer, ffn), o.bufs[dst], rows, s.Hidden, s.Eps)
	return nil
}

func (o *cpuOps) matmul(dst, src buf, layer int, m matrix, batch int) error {
	if parts, _ := fused(m); parts != nil {
		return eachPart(m, func(dst buf, p matrix) error { return o.matmul(dst, src, layer, p, batch) })
	}
	s := o.w.Shape
	w, rows, cols := o.w.Head, s.Vocab, s.Hidden
	if layer >= 0 {
		w = o.w.Layers[layer].M[m]
		rows, cols = s.dims(m)
	}
	y, x := o.bufs[dst][:rows*batch], o.bufs[src][:cols*batch]
	if batch == 1 {
		return o.be.MatVec(o.w.Format, y, w, x, rows, cols)
	}
	return o.be.MatMul(o.w.Format, y, w, x, rows, cols, batch)
}

// quantizeX8 keeps src's first n values; matvecX8 runs the cpu backend's
// matvec_x8 (formats.QuantizeX8, then the spec's DotX8 per row) on them.
// The backend quantizes per call, so q, k and v each quantize the same
// copy again: the same X8 vector the device's one quantization makes, at
// a cost (n values against rows·n multiply-adds) the cpu timing can bear.
// The x8 producers below are their f32 steps, then quantizeX8 of the
// output: the device's fused kernels compute the same values (the
// buffers they do not write aside, which the x8 path does not read).
func (o *cpuOps) quantizeX8(src buf, n int) {
	o.xin = append(o.xin[:0], o.bufs[src][:n]...)
}

func (o *cpuOps) rmsnormX8(src buf, layer int, ffn bool) error {
	if err := o.rmsnorm(bXN, src, layer, ffn, 1); err != nil {
		return err
	}
	o.quantizeX8(bXN, o.w.Shape.Hidden)
	return nil
}

func (o *cpuOps) addNormX8(dst, a, b buf, layer int, ffn bool) error {
	if err := o.add(dst, a, b, o.w.Shape.Hidden); err != nil {
		return err
	}
	return o.rmsnormX8(dst, layer, ffn)
}

func (o *cpuOps) tokensX8(src buf, heads int) error {
	if err := o.toTokens(bA, src, heads, 1); err != nil {
		return err
	}
	o.quantizeX8(bA, heads*o.w.Shape.HeadDim)
	return nil
}

func (o *cpuOps) siluMulX8(gate, up buf, n int) error {
	if err := o.siluMul(bG, gate, up, n); err != nil {
		return err
	}
	o.quantizeX8(bG, n)
	return nil
}

func (o *cpuOps) matvecX8(dst buf, layer int, m matrix) error {
	if parts, _ := fused(m); parts != nil {
		return eachPart(m, func(dst buf, p matrix) error { return o.matvecX8(dst, layer, p) })
	}
	s := o.w.Shape
	w, rows, cols := o.w.Head, s.Vocab, s.Hidden
	if layer >= 0 {
		w = o.w.Layers[layer].M[m]
		rows, cols = s.dims(m)
	}
	if cols != len(o.xin) {
		return fmt.Errorf("model: matvec_x8 of %s: %d columns, but %d activations were quantized", matrixName(layer, m), cols, len(o.xin))
	}
	return o.be.RunMatrix(o.xk, o.bufs[dst][:rows], w, o.xin, backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1})
}

// ropeKV rotates copies of q and k, as the device's glue_rope_kv leaves
// bQ and bK as they are.
func (o *cpuOps) ropeKV(layer, seq, pos, capacity int) error {
	s := o.w.Shape
	q, k := slices.Clone(o.bufs[bQ][:seq*s.Q()]), slices.Clone(o.bufs[bK][:seq*s.KV()])
	cpu.RoPE(q, seq, s.Heads, s.HeadDim, pos, s.Theta, false)
	cpu.RoPE(k, seq, s.KVHeads, s.HeadDim, pos, s.Theta, false)
	cpu.ToHeads(q, o.bufs[bQH], seq, s.Heads, s.HeadDim, 0, seq)
	cpu.ToHeads(k, o.k[layer], seq, s.KVHeads, s.HeadDim, pos, capacity)
	cpu.ToHeads(o.bufs[bV], o.v[layer], seq, s.KVHeads, s.HeadDim, pos, capacity)
	return nil
}

func (o *cpuOps) attention(dst, q buf, layer int, seq, capacity int) error {
	s := o.w.Shape
	sh := cpu.AttentionShape{Batch: 1, Heads: s.Heads, HeadsKV: s.KVHeads, SeqQ: seq, SeqKV: capacity, HeadDim: s.HeadDim,
		Scale: float32(1 / math.Sqrt(float64(s.HeadDim))), Causal: true}
	out := o.bufs[dst]
	if err := o.be.AttentionRef(sh, o.bufs[q], o.k[layer], o.v[layer], out); err != nil {
		return err
	}
	for i, x := range out {
		out[i] = formats.HalfFromFloat32(x).Float32()
	}
	return nil
}

func (o *cpuOps) toTokens(dst, src buf, heads, seq int) error {
	cpu.ToTokens(o.bufs[src], o.bufs[dst], seq, heads, o.w.Shape.HeadDim, 0, seq)
	return nil
}

func (o *cpuOps) siluMul(dst, gate, up buf, n int) error {
	cpu.SiLUMul(o.bufs[gate][:n], o.bufs[up][:n], o.bufs[dst][:n])
	return nil
}

func (o *cpuOps) add(dst, a, b buf, n int) error {
	cpu.Add(o.bufs[a][:n], o.bufs[b][:n], o.bufs[dst][:n])
	return nil
}

func (o *cpuOps) copyLast(dst, src buf, row, width int) error {
	copy(o.bufs[dst], o.bufs[src][row*width:(row+1)*width])
	return nil
}

func (o *cpuOps) download(logits []float32) error { copy(logits, o.bufs[bLogits]); return nil }

func (o *cpuOps) mark(c Component) error {
	now := time.Now()
	if o.cur >= 0 {
		o.times[o.cur] += now.Sub(o.since)
	}
	o.cur, o.since = c, now
	return nil
}

// finish closes the last component's interval.
func (o *cpuOps) finish() {
	if o.cur >= 0 {
		o.times[o.cur] += time.Since(o.since)
	}
	o.cur = -1
}

// CPUForward runs the decoder on the cpu: seq tokens x at positions
// pos..pos+seq-1 over a cache of pos earlier rows of random context (seed
// kvSeed), its projections by path, returning the last token's logits and
// the residual stream after the first layer.
func CPUForward(w *Weights, x []float32, seq, pos int, kvSeed uint64, path Path) (logits, layer1 []float32, err error) {
	o := newCPUOps(w, cpu.New(0), seq, pos+seq)
	if pos > 0 {
		o.fillKV(pos, kvSeed)
	}
	logits = make([]float32, w.Shape.Vocab)
	err = forward(o, w.Shape, x, seq, pos, logits, path, func(l int) error {
		if l == 0 {
			layer1 = append([]float32(nil), o.bufs[bH]...)
		}
		return nil
	})
	return logits, layer1, err
}
