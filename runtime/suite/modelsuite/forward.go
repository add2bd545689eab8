package modelsuite

import (
	"fmt"
	"math"
	"sync"

	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/workloads"
)

// Shape is a decoder's dimensions.
type Shape struct {
	Hidden, Layers, Heads, KVHeads, HeadDim, FFN, Vocab int
	Eps                                                 float32
	Theta                                               float64
}

// ShapeOf is spec's shape.
func ShapeOf(spec workloads.Decoder) Shape {
	return Shape{Hidden: spec.Hidden, Layers: spec.Layers, Heads: spec.Heads, KVHeads: spec.KVHeads, HeadDim: spec.HeadDim,
		FFN: spec.FFN, Vocab: spec.Vocab, Eps: float32(spec.NormEps), Theta: spec.RopeTheta}
}

// Q, KV are the widths of the query and of the key (or value) projections.
func (s Shape) Q() int  { return s.Heads * s.HeadDim }
func (s Shape) KV() int { return s.KVHeads * s.HeadDim }

// Validate refuses a shape the kernels cannot run in format f.
func (s Shape) Validate(f *formats.Format) error {
	switch {
	case s.Hidden <= 0 || s.Layers <= 0 || s.Heads <= 0 || s.KVHeads <= 0 || s.HeadDim <= 0 || s.FFN <= 0 || s.Vocab <= 0:
		return fmt.Errorf("model: shape %+v: every size must be positive", s)
	case s.Heads%s.KVHeads != 0:
		return fmt.Errorf("model: %d heads is not a multiple of %d KV heads", s.Heads, s.KVHeads)
	case s.HeadDim%2 != 0:
		return fmt.Errorf("model: odd head dimension %d (RoPE rotates pairs)", s.HeadDim)
	case f != nil && (s.Hidden%f.BlockElems != 0 || s.FFN%f.BlockElems != 0 || s.Q()%f.BlockElems != 0):
		return fmt.Errorf("model: hidden %d, FFN %d and heads·head_dim %d must be whole %d-element %s blocks", s.Hidden, s.FFN, s.Q(), f.BlockElems, f.Name)
	}
	return nil
}

// matrix names a layer's weight matrix.
type matrix int

const (
	mQ matrix = iota
	mK
	mV
	mO
	mGate
	mUp
	mDown
	numMatrices
)

// The fused projections of a decode step: q, k and v as one matrix of
// Q + 2·KV rows, gate and up as one of 2·FFN, whose outputs are the
// consecutive buffers bQ, bK, bV and bG, bU (fused names the parts).
const (
	mQKV matrix = numMatrices + iota
	mGateUp
)

// fused is the matrices a fused projection stacks, and the buffers their
// outputs go to; nil for a single matrix.
func fused(m matrix) (parts []matrix, outs []buf) {
	switch m {
	case mQKV:
		return []matrix{mQ, mK, mV}, []buf{bQ, bK, bV}
	case mGateUp:
		return []matrix{mGate, mUp}, []buf{bG, bU}
	}
	return nil, nil
}

// eachPart runs f on each part of fused projection m with the buffer its
// output goes to, in order, stopping at the first error.
func eachPart(m matrix, f func(dst buf, part matrix) error) error {
	parts, outs := fused(m)
	for i, p := range parts {
		if err := f(outs[i], p); err != nil {
			return err
		}
	}
	return nil
}

var matrixNames = [numMatrices]string{"q", "k", "v", "o", "gate", "up", "down"}

// matrixName names layer's matrix m for an error; layer -1 is the LM head.
func matrixName(layer int, m matrix) string {
	switch {
	case layer < 0:
		return "the LM head"
	case m == mQKV:
		return fmt.Sprintf("layer %d's q, k and v", layer)
	case m == mGateUp:
		return fmt.Sprintf("layer %d's gate and up", layer)
	}
	return fmt.Sprintf("layer %d's %s", layer, matrixNames[m])
}

// dims is matrix m's rows × cols.
func (s Shape) dims(m matrix) (rows, cols int) {
	switch m {
	case mQ:
		return s.Q(), s.Hidden
	case mK, mV:
		return s.KV(), s.Hidden
	case mO:
		return s.Hidden, s.Q()
	case mGate, mUp:
		return s.FFN, s.Hidden
	case mQKV:
		return s.Q() + 2*s.KV(), s.Hidden
	case mGateUp:
		return 2 * s.FFN, s.Hidden
	default:
		return s.Hidden, s.FFN
	}
}

// LayerWeightBytes is one layer's matrix bytes in format f.
func (s Shape) LayerWeightBytes(f *formats.Format) int64 {
	var n int64
	for m := range numMatrices {
		r, c := s.dims(m)
		n += int64(r) * int64(c) / int64(f.BlockElems) * int64(f.BlockBytes)
	}
	return n
}

// HeadBytes is the LM head's bytes in format f.
func (s Shape) HeadBytes(f *formats.Format) int64 {
	return int64(s.Vocab) * int64(s.Hidden) / int64(f.BlockElems) * int64(f.BlockBytes)
}

// WeightBytes is every weight a decode step reads: the layers' matrices,
// the LM head, and the float32 norm vectors.
func (s Shape) WeightBytes(f *formats.Format) int64 {
	return int64(s.Layers)*s.LayerWeightBytes(f) + s.HeadBytes(f) + 4*int64(s.Hidden)*int64(2*s.Layers+1)
}

// FLOPs is the multiply-adds (×2) of a forward of seq tokens at position
// pos: the projections of every token, the LM head of the last, and the
// attention over the attended (causal) pairs.
func (s Shape) FLOPs(seq, pos int) float64 {
	var mat float64
	for m := range numMatrices {
		r, c := s.dims(m)
		mat += float64(r) * float64(c)
	}
	a := cpu.AttentionShape{Batch: 1, Heads: s.Heads, HeadsKV: s.KVHeads, SeqQ: seq, SeqKV: pos + seq, HeadDim: s.HeadDim, Causal: true}
	return 2*float64(seq)*mat*float64(s.Layers) + 2*float64(s.Vocab)*float64(s.Hidden) + float64(s.Layers)*a.FLOPs()
}

// Layer is one layer's weights: the quantized matrices and the norms.
type Layer struct {
	M        [numMatrices][]byte
	AttnNorm []float32
	FFNNorm  []float32
}

// Weights are a decoder's weights in one format.
type Weights struct {
	Shape  Shape
	Format *formats.Format
	Layers []*Layer // Shared: every entry the same *Layer (see NewWeights)
	Norm   []float32
	Head   []byte
	Shared bool
}

// NewWeights draws random weights for shape s and quantizes them to f with
// the reference quantizer: matrix entries roughly normal with standard
// deviation 1/sqrt(cols) (so each projection keeps its input's scale),
// norm weights near 1. With shared, one layer is drawn and quantized and
// every layer refers to it (the 7B shape: quantizing 32 layers in Go per
// format takes minutes; a GPU forward still uploads a distinct copy per
// layer, so every layer streams its own bytes), and the LM head is one
// slab of at most 4096 rows quantized once and repeated to Vocab rows.
func NewWeights(s Shape, f *formats.Format, shared bool, seed uint64) (*Weights, error) {
	if err := s.Validate(f); err != nil {
		return nil, err
	}
	be := cpu.New(0)
	r := suite.NewRand(seed)
	quant := func(rows, cols int) ([]byte, error) {
		x := make([]float32, rows*cols)
		sd := float32(1 / math.Sqrt(float64(cols)))
		fill(x, r.Uint64(), sd)
		out := make([]byte, rows*cols/f.BlockElems*f.BlockBytes)
		if err := be.Quantize(f, out, x); err != nil {
			return nil, err
		}
		return out, nil
	}
	norm := func() []float32 {
		v := make([]float32, s.Hidden)
		for i := range v {
			v[i] = 1 + 0.1*r.Float()
		}
		return v
	}
	w := &Weights{Shape: s, Format: f, Shared: shared}
	for l := range s.Layers {
		if shared && l > 0 {
			w.Layers = append(w.Layers, w.Layers[0])
			continue
		}
		ly := &Layer{AttnNorm: norm(), FFNNorm: norm()}
		for m := range numMatrices {
			rows, cols := s.dims(m)
			b, err := quant(rows, cols)
			if err != nil {
				return nil, fmt.Errorf("model: layer %d %s: %w", l, matrixNames[m], err)
			}
			ly.M[m] = b
		}
		w.Layers = append(w.Layers, ly)
	}
	w.Norm = norm()
	slab := s.Vocab
	if shared {
		slab = min(s.Vocab, 4096)
	}
	head, err := quant(slab, s.Hidden)
	if err != nil {
		return nil, fmt.Errorf("model: LM head: %w", err)
	}
	if slab < s.Vocab {
		full := make([]byte, 0, s.HeadBytes(f))
		for len(full) < cap(full) {
			full = append(full, head[:min(len(head), cap(full)-len(full))]...)
		}
		head = full
	}
	w.Head = head
	return w, nil
}

// fill sets x to roughly normal values (a sum of three uniforms) of
// standard deviation sd, in parallel chunks each with its own seed.
func fill(x []float32, seed uint64, sd float32) {
	const chunk = 1 << 20
	var wg sync.WaitGroup
	for lo := 0; lo < len(x); lo += chunk {
		wg.Go(func() {
			r := suite.NewRand(seed + uint64(lo))
			for i := lo; i < min(len(x), lo+chunk); i++ {
				x[i] = sd * (r.Float() + r.Float() + r.Float())
			}
		})
	}
	wg.Wait()
}

// Inputs returns seq random hidden states (standard deviation 1): the
// prompt's embeddings, as no tokenizer or embedding table is modelled.
func Inputs(s Shape, seq int, seed uint64) []float32 {
	x := make([]float32, seq*s.Hidden)
	fill(x, seed, 1)
	return x
}

// KVFill returns random values for the first n rows of a layer's cache
// [KVHeads, capacity, HeadDim] (standard deviation 1, f16 values): the
// context a decode step attends, standing in for an earlier prefill.
func KVFill(s Shape, n, capacity int, seed uint64) []float32 {
	c := make([]float32, s.KVHeads*capacity*s.HeadDim)
	r := suite.NewRand(seed)
	for h := range s.KVHeads {
		for i := range n * s.HeadDim {
			c[h*capacity*s.HeadDim+i] = formats.HalfFromFloat32(r.Float() + r.Float() + r.Float()).Float32()
		}
	}
	return c
}
