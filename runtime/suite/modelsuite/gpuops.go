package modelsuite

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rocmforge/forge/generated/kernels"
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/runtime/device/devmem"
	"github.com/rocmforge/forge/runtime/device/gpu"
	"github.com/rocmforge/forge/specs/families"
	"github.com/rocmforge/forge/specs/formats"
)

// gpuModel is a decoder's weights in device memory, one distinct buffer
// per layer and matrix (for shared Weights the same bytes uploaded into
// each layer's own buffers), from the device's caching allocator.
type gpuModel struct {
	d      *gpu.Device
	mem    *devmem.Allocator
	lib    *kernels.Library
	s      Shape
	f      *formats.Format
	layers []gpuLayer
	norm   abi.DevicePtr
	head   abi.DevicePtr
	allocs []abi.DevicePtr

	mv   kernels.MatVecFunc
	mm   kernels.MatMulFunc
	attn kernels.AttentionFunc
	rms  kernels.GlueNormFunc
	silu kernels.GlueBinaryFunc
	add  kernels.GlueBinaryFunc
	tok  kernels.GlueLayoutFunc
	// ropeKV is RoPE, q's f16 conversion and the KV-cache append in one
	// launch (glue_rope_kv).
	ropeKV kernels.GlueRoPEKVFunc

	// The x8 decode path's matvec_x8 launcher and the fused producers of
	// its input (glue_rmsnorm_x8, glue_add_rmsnorm_x8, glue_tokens_x8,
	// glue_silu_mul_x8); nil where the format has no integer form or the
	// library lacks one of them (x8 then says why).
	mvx8   kernels.MatVecX8Func
	rmsx8  kernels.GlueNormFunc
	addx8  kernels.GlueAddNormFunc
	tokx8  kernels.GlueLayoutFunc
	silux8 kernels.GlueBinaryFunc
	x8     error
}

type gpuLayer struct {
	m                 [numMatrices]abi.DevicePtr
	attnNorm, ffnNorm abi.DevicePtr
	// stacked is the fused projections' matrices (mQKV, mGateUp): one
	// buffer each, of which m[mQ], m[mK], m[mV] (m[mGate], m[mUp]) are the
	// parts; 0 where a part's bytes would not start 16-byte aligned (each
	// is then its own buffer and a fused projection its parts' launches).
	stacked [2]abi.DevicePtr
}

func (g *gpuModel) alloc(bytes uint64) (abi.DevicePtr, error) {
	p, err := g.mem.Alloc(max(bytes, 1))
	if err != nil {
		return 0, err
	}
	g.allocs = append(g.allocs, p)
	return p, nil
}

func (g *gpuModel) upload(b []byte) (abi.DevicePtr, error) {
	p, err := g.alloc(uint64(len(b)))
	if err != nil {
		return 0, err
	}
	return p, g.d.H2D(p, b)
}

func (g *gpuModel) uploadF32(x []float32) (abi.DevicePtr, error) {
	p, err := g.alloc(4 * uint64(len(x)))
	if err != nil {
		return 0, err
	}
	return p, gpu.Upload(g.d, p, x)
}

// newGPUModel finds the launchers and uploads w.
func newGPUModel(d *gpu.Device, w *Weights) (g *gpuModel, err error) {
	lib := d.Kernels()
	// An allocator of its own, so that its peak is this model's (weights,
	// KV cache, scratch), not the process's: the device's shared one keeps
	// the peak of every format run before.
	g = &gpuModel{d: d, mem: devmem.New(deviceRaw{d}), lib: lib, s: w.Shape, f: w.Format}
	defer func() {
		if err != nil {
			g.close()
			g = nil
		}
	}()
	var ok [8]bool
	g.mv, ok[0] = lib.MatVec("matvec_f32", w.Format.Name)
	g.mm, ok[1] = lib.MatMul("matmul_f32", w.Format.Name)
	g.attn, ok[2] = lib.Attention(families.AttentionKernel("f16", w.Shape.HeadDim))
	g.rms, ok[3] = lib.GlueNorm("glue_rmsnorm_f32")
	g.silu, ok[4] = lib.GlueBinary("glue_silu_mul_f32")
	g.add, ok[5] = lib.GlueBinary("glue_add_f32")
	g.tok, ok[6] = lib.GlueLayout("glue_tokens_f32")
	g.ropeKV, ok[7] = lib.GlueRoPEKV("glue_rope_kv")
	for i, o := range ok {
		if !o {
			return nil, fmt.Errorf("model: the kernel library has no %s launcher for %s (head dimension %d)",
				[]string{"matvec_f32", "matmul_f32", "attention_f16", "glue_rmsnorm_f32", "glue_silu_mul_f32", "glue_add_f32", "glue_tokens_f32", "glue_rope_kv"}[i],
				w.Format.Name, w.Shape.HeadDim)
		}
	}
	g.x8 = g.findX8()
	for l, ly := range w.Layers {
		var gl gpuLayer
		for i, st := range []matrix{mQKV, mGateUp} {
			parts, _ := fused(st)
			var b []byte
			for _, p := range parts[:len(parts)-1] {
				if len(ly.M[p])%16 != 0 {
					b = nil
					break
				}
				b = append(b, ly.M[p]...)
			}
			if b == nil {
				continue
			}
			b = append(b, ly.M[parts[len(parts)-1]]...)
			if gl.stacked[i], err = g.upload(b); err != nil {
				return nil, fmt.Errorf("model: %s: %w", matrixName(l, st), err)
			}
			off := gl.stacked[i]
			for _, p := range parts {
				gl.m[p] = off
				off += abi.DevicePtr(len(ly.M[p]))
			}
		}
		for m := range numMatrices {
			if gl.m[m] != 0 {
				continue
			}
			if gl.m[m], err = g.upload(ly.M[m]); err != nil {
				return nil, fmt.Errorf("model: layer %d %s: %w", l, matrixNames[m], err)
			}
		}
		if gl.attnNorm, err = g.uploadF32(ly.AttnNorm); err != nil {
			return nil, err
		}
		if gl.ffnNorm, err = g.uploadF32(ly.FFNNorm); err != nil {
			return nil, err
		}
		g.layers = append(g.layers, gl)
	}
	if g.norm, err = g.uploadF32(w.Norm); err != nil {
		return nil, err
	}
	if g.head, err = g.upload(w.Head); err != nil {
		return nil, fmt.Errorf("model: LM head: %w", err)
	}
	return g, nil
}

// findX8 finds the x8 path's launchers, or says why it has none.
func (g *gpuModel) findX8() error {
	if !g.f.HasIntForm() {
		return fmt.Errorf("%s has no integer form", g.f.Name)
	}
	var x8 gpuModel
	var ok [5]bool
	x8.mvx8, ok[0] = g.lib.MatVecX8("matvec_x8", g.f.Name)
	x8.rmsx8, ok[1] = g.lib.GlueNorm("glue_rmsnorm_x8")
	x8.addx8, ok[2] = g.lib.GlueAddNorm("glue_add_rmsnorm_x8")
	x8.tokx8, ok[3] = g.lib.GlueLayout("glue_tokens_x8")
	x8.silux8, ok[4] = g.lib.GlueBinary("glue_silu_mul_x8")
	for i, o := range ok {
		if !o {
			return fmt.Errorf("the kernel library has no %s launcher for %s",
				[]string{"matvec_x8", "glue_rmsnorm_x8", "glue_add_rmsnorm_x8", "glue_tokens_x8", "glue_silu_mul_x8"}[i], g.f.Name)
		}
	}
	g.mvx8, g.rmsx8, g.addx8, g.tokx8, g.silux8 = x8.mvx8, x8.rmsx8, x8.addx8, x8.tokx8, x8.silux8
	return nil
}

func (g *gpuModel) close() error {
	var errs []error
	for _, p := range g.allocs {
		errs = append(errs, g.mem.Free(p))
	}
	g.allocs = nil
	errs = append(errs, g.mem.Release()) // give the model's memory back to the device
	return errors.Join(errs...)
}

// deviceRaw is a device's own allocator (forge_rt_malloc/forge_rt_free)
// as devmem's raw allocator.
type deviceRaw struct{ d *gpu.Device }

func (r deviceRaw) Alloc(bytes uint64) (abi.DevicePtr, error) { return r.d.Malloc(bytes) }
func (r deviceRaw) Free(p abi.DevicePtr) error                { return r.d.Free(p) }

// gpuOps is the forward on a device: every step a generated launcher on
// the ops' own stream (matvec_f32 for one token, or on the x8 path
// matvec_x8 reading xq, which the glue kernels before it quantize their
// outputs into; matmul_f32 for more, attention_f16_d<hd>, the glue), the transfers the runtime's synchronous
// copies, which wait for the stream's work (it is a blocking stream) and
// which it waits for. With timed set, mark records a device event at each
// component boundary and breakdown reads the intervals. With capturing
// set, upload and download do nothing: the forward's launches are being
// recorded into a graph (gpu.Stream.Capture), and the transfers, which a
// capture refuses, are the replay's.
type gpuOps struct {
	g        *gpuModel
	st       *gpu.Stream
	stream   abi.Stream
	seq      int
	capacity int
	bufs     [numBufs]abi.DevicePtr
	xq       abi.DevicePtr // the X8 form of a projection's input (one token, x8 path); 0 otherwise
	xn       int           // the elements xq holds
	k, v     []abi.DevicePtr
	allocs   []abi.DevicePtr

	// inLaunch: the forward runs inside one gpu.Device.Launch (the timed
	// path: one OS-thread lock and device selection for all its launches,
	// not one per launch).
	inLaunch bool

	capturing bool

	timed  bool
	events []*gpu.Event
	labels []Component
	used   int
}

func newGPUOps(g *gpuModel, seq, capacity int) (o *gpuOps, err error) {
	o = &gpuOps{g: g, seq: seq, capacity: capacity}
	defer func() {
		if err != nil {
			o.close()
			o = nil
		}
	}()
	alloc := func(bytes uint64) (abi.DevicePtr, error) {
		p, err := g.mem.Alloc(max(bytes, 1))
		if err == nil {
			o.allocs = append(o.allocs, p)
		}
		return p, err
	}
	if o.st, err = g.d.NewStream(); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	o.stream = o.st.Handle()
	// A fused projection's outputs are consecutive: bQ, bK, bV in one
	// allocation, bG, bU in another.
	groups := [][]buf{{bQ, bK, bV}, {bG, bU}}
	for b := range numBufs {
		if b != bQ && b != bG && o.bufs[b] != 0 {
			continue // a later member of a group
		}
		group := []buf{b}
		for _, gr := range groups {
			if gr[0] == b {
				group = gr
			}
		}
		var bytes []uint64
		var all uint64
		for _, m := range group {
			n, half := bufSize(g.s, m, seq)
			size := uint64(4)
			if half {
				size = 2
			}
			bytes = append(bytes, uint64(n)*size)
			all += uint64(n) * size
		}
		p, err := alloc(all)
		if err != nil {
			return nil, fmt.Errorf("model: scratch: %w", err)
		}
		for i, m := range group {
			o.bufs[m] = p
			p += abi.DevicePtr(bytes[i])
		}
	}
	if seq == 1 && g.mvx8 != nil {
		widest := max(g.s.Hidden, g.s.Q(), g.s.FFN)
		if o.xq, err = alloc(uint64(formats.X8Bytes(widest))); err != nil {
			return nil, fmt.Errorf("model: X8 scratch: %w", err)
		}
	}
	kv := 2 * uint64(g.s.KVHeads) * uint64(capacity) * uint64(g.s.HeadDim)
	for range g.s.Layers {
		k, err := alloc(kv)
		if err != nil {
			return nil, fmt.Errorf("model: KV cache: %w", err)
		}
		v, err := alloc(kv)
		if err != nil {
			return nil, fmt.Errorf("model: KV cache: %w", err)
		}
		o.k, o.v = append(o.k, k), append(o.v, v)
	}
	return o, nil
}

// fillKV writes random context into the first n rows of every layer's
// caches (the same values CPUForward's fillKV draws).
func (o *gpuOps) fillKV(n int, seed uint64) error {
	s := o.g.s
	for l := range o.k {
		for i, p := range []abi.DevicePtr{o.k[l], o.v[l]} {
			c := KVFill(s, n, o.capacity, seed+uint64(2*l+i))
			h := make([]uint16, len(c))
			for j, x := range c {
				h[j] = uint16(formats.HalfFromFloat32(x))
			}
			if err := gpu.Upload(o.g.d, p, h); err != nil {
				return err
			}
		}
	}
	return nil
}

func (o *gpuOps) close() error {
	var errs []error
	for _, p := range o.allocs {
		errs = append(errs, o.g.mem.Free(p))
	}
	o.allocs = nil
	for _, e := range o.events {
		errs = append(errs, e.Close())
	}
	o.events = nil
	if o.st != nil {
		errs = append(errs, o.st.Close())
		o.st = nil
	}
	return errors.Join(errs...)
}

// record captures one forward of the ops' tokens at position pos on path
// into a graph, its transfers left out (a replay does them around it).
func (o *gpuOps) record(pos int, path Path) (*gpu.Graph, error) {
	o.capturing, o.inLaunch = true, true
	defer func() { o.capturing, o.inLaunch = false, false }()
	return o.st.Capture(func() error { return forward(o, o.g.s, nil, o.seq, pos, nil, path, nil) })
}

// replay runs a recorded forward n times, each with its transfers: x's
// upload, the graph, the logits' download. Inside a Launch.
func (o *gpuOps) replay(g *gpu.Graph, x, logits []float32, n int) error {
	for range n {
		if err := gpu.Upload(o.g.d, o.bufs[bH], x); err != nil {
			return err
		}
		if err := g.Launch(o.stream); err != nil {
			return err
		}
		if err := gpu.Download(o.g.d, logits, o.bufs[bLogits]); err != nil {
			return err
		}
	}
	return nil
}

func (o *gpuOps) launch(fn func() error) error {
	if o.inLaunch {
		return fn()
	}
	return o.g.d.Launch(fn)
}

func (o *gpuOps) upload(x []float32) error {
	if o.capturing {
		return nil
	}
	return gpu.Upload(o.g.d, o.bufs[bH], x)
}

// normWeights is the norm of layer (attention's, or the FFN's; layer -1:
// the final norm).
func (o *gpuOps) normWeights(layer int, ffn bool) abi.DevicePtr {
	switch {
	case layer < 0:
		return o.g.norm
	case ffn:
		return o.g.layers[layer].ffnNorm
	}
	return o.g.layers[layer].attnNorm
}

func (o *gpuOps) rmsnorm(dst, src buf, layer int, ffn bool, rows int) error {
	return o.launch(func() error {
		return o.g.rms(o.bufs[src], o.normWeights(layer, ffn), o.bufs[dst], int64(rows), int64(o.g.s.Hidden), o.g.s.Eps, o.stream)
	})
}

// weights is the device matrix of layer's m (layer -1: the LM head) and
// its rows and columns; for a fused projection whose parts are not
// stacked, ok false.
func (o *gpuOps) weights(layer int, m matrix) (w abi.DevicePtr, rows, cols int, ok bool) {
	s := o.g.s
	if layer < 0 {
		return o.g.head, s.Vocab, s.Hidden, true
	}
	rows, cols = s.dims(m)
	switch m {
	case mQKV, mGateUp:
		w = o.g.layers[layer].stacked[m-mQKV]
	default:
		w = o.g.layers[layer].m[m]
	}
	return w, rows, cols, w != 0
}

func (o *gpuOps) matmul(dst, src buf, layer int, m matrix, batch int) error {
	if parts, outs := fused(m); parts != nil && (batch != 1 || dst != outs[0]) {
		return fmt.Errorf("model: %s: a fused projection of %d tokens into buffer %d", matrixName(layer, m), batch, dst)
	}
	w, rows, cols, ok := o.weights(layer, m)
	if !ok {
		return eachPart(m, func(dst buf, p matrix) error { return o.matmul(dst, src, layer, p, batch) })
	}
	return o.launch(func() error {
		if batch == 1 {
			return o.g.mv(w, o.bufs[src], o.bufs[dst], int64(rows), int64(cols), o.stream)
		}
		return o.g.mm(w, o.bufs[src], o.bufs[dst], int64(rows), int64(cols), int64(batch), o.stream)
	})
}

// x8in checks that the X8 scratch exists and notes that it now holds n
// activations.
func (o *gpuOps) x8in(n int) error {
	if o.xq == 0 {
		return fmt.Errorf("model: no x8 path for %s here: %v", o.g.f.Name, o.g.x8)
	}
	o.xn = n
	return nil
}

func (o *gpuOps) rmsnormX8(src buf, layer int, ffn bool) error {
	if err := o.x8in(o.g.s.Hidden); err != nil {
		return err
	}
	return o.launch(func() error {
		return o.g.rmsx8(o.bufs[src], o.normWeights(layer, ffn), o.xq, 1, int64(o.g.s.Hidden), o.g.s.Eps, o.stream)
	})
}

func (o *gpuOps) addNormX8(dst, a, b buf, layer int, ffn bool) error {
	if err := o.x8in(o.g.s.Hidden); err != nil {
		return err
	}
	return o.launch(func() error {
		return o.g.addx8(o.bufs[a], o.bufs[b], o.normWeights(layer, ffn), o.bufs[dst], o.xq, 1, int64(o.g.s.Hidden), o.g.s.Eps, o.stream)
	})
}

func (o *gpuOps) tokensX8(src buf, heads int) error {
	if err := o.x8in(heads * o.g.s.HeadDim); err != nil {
		return err
	}
	return o.launch(func() error {
		return o.g.tokx8(o.bufs[src], o.xq, 1, int64(heads), int64(o.g.s.HeadDim), 0, 1, o.stream)
	})
}

func (o *gpuOps) siluMulX8(gate, up buf, n int) error {
	if err := o.x8in(n); err != nil {
		return err
	}
	return o.launch(func() error { return o.g.silux8(o.bufs[gate], o.bufs[up], o.xq, int64(n), o.stream) })
}

func (o *gpuOps) matvecX8(dst buf, layer int, m matrix) error {
	if parts, outs := fused(m); parts != nil && dst != outs[0] {
		return fmt.Errorf("model: %s into buffer %d", matrixName(layer, m), dst)
	}
	w, rows, cols, ok := o.weights(layer, m)
	if !ok {
		return eachPart(m, func(dst buf, p matrix) error { return o.matvecX8(dst, layer, p) })
	}
	if o.xq == 0 || cols != o.xn {
		return fmt.Errorf("model: matvec_x8 of %s: %d columns, but %d activations were quantized", matrixName(layer, m), cols, o.xn)
	}
	return o.launch(func() error { return o.g.mvx8(w, o.xq, o.bufs[dst], int64(rows), int64(cols), o.stream) })
}

func (o *gpuOps) ropeKV(layer, seq, pos, capacity int) error {
	s := o.g.s
	return o.launch(func() error {
		return o.g.ropeKV(o.bufs[bQ], o.bufs[bK], o.bufs[bV], o.bufs[bQH], o.k[layer], o.v[layer],
			int64(seq), int64(s.Heads), int64(s.KVHeads), int64(s.HeadDim), int64(pos), int64(capacity), float32(s.Theta), 0, o.stream)
	})
}

func (o *gpuOps) attention(dst, q buf, layer int, seq, capacity int) error {
	s := o.g.s
	scale := float32(1 / math.Sqrt(float64(s.HeadDim)))
	return o.launch(func() error {
		return o.g.attn(o.bufs[q], o.k[layer], o.v[layer], o.bufs[dst], 1, int64(s.Heads), int64(s.KVHeads), int64(seq), int64(capacity), scale, 1, o.stream)
	})
}

func (o *gpuOps) toTokens(dst, src buf, heads, seq int) error {
	return o.launch(func() error {
		return o.g.tok(o.bufs[src], o.bufs[dst], int64(seq), int64(heads), int64(o.g.s.HeadDim), 0, int64(seq), o.stream)
	})
}

func (o *gpuOps) siluMul(dst, gate, up buf, n int) error {
	return o.launch(func() error { return o.g.silu(o.bufs[gate], o.bufs[up], o.bufs[dst], int64(n), o.stream) })
}

func (o *gpuOps) add(dst, a, b buf, n int) error {
	return o.launch(func() error { return o.g.add(o.bufs[a], o.bufs[b], o.bufs[dst], int64(n), o.stream) })
}

func (o *gpuOps) copyLast(dst, src buf, row, width int) error {
	return o.g.d.Copy(o.bufs[dst], o.bufs[src]+abi.DevicePtr(4*row*width), 4*uint64(width), o.stream)
}

func (o *gpuOps) download(logits []float32) error {
	if o.capturing {
		return nil
	}
	return gpu.Download(o.g.d, logits, o.bufs[bLogits])
}

func (o *gpuOps) mark(c Component) error {
	if !o.timed {
		return nil
	}
	if o.used == len(o.events) {
		e, err := o.g.d.NewEvent()
		if err != nil {
			return err
		}
		o.events = append(o.events, e)
	}
	if err := o.events[o.used].Record(o.stream); err != nil {
		return err
	}
	o.labels = append(o.labels[:o.used], c)
	o.used++
	return nil
}

// breakdown ends an instrumented forward: a last event, then the device
// time between consecutive events, summed by the component each began.
func (o *gpuOps) breakdown() (times [NumComponents]time.Duration, err error) {
	if err := o.mark(-1); err != nil {
		return times, err
	}
	if err := o.g.d.Synchronize(); err != nil {
		return times, err
	}
	for i := 0; i+1 < o.used; i++ {
		dt, err := gpu.Elapsed(o.events[i], o.events[i+1])
		if err != nil {
			return times, err
		}
		times[o.labels[i]] += dt
	}
	o.used = 0
	return times, nil
}
