package modelsuite

import (
	"fmt"
	"slices"
)

// Component is a part of the forward that the prefill breakdown times.
type Component int

// The components: the attention projections (q, k, v, o) and the LM head;
// the attention kernel; the FFN projections (gate, up, down); the norms
// and the rest of the glue (RMSNorm, RoPE, q's f16 conversion, the
// attention output's conversion back, SiLU-gate, residual adds); the
// KV-cache append; and the host↔device transfers (the input's upload,
// the logits' download).
const (
	Projections Component = iota
	Attention
	FFN
	NormsGlue
	KVAppend
	Transfers
	NumComponents
)

// ComponentNames are the components' metric names.
var ComponentNames = [NumComponents]string{"projections", "attention", "ffn", "norms_glue", "kv_append", "transfers"}

// buf names a scratch buffer of the forward.
type buf int

const (
	bH      buf = iota // residual stream, seq × hidden
	bXN                // normed input, seq × hidden
	bQ                 // seq × Q
	bK                 // seq × KV
	bV                 // seq × KV
	bQH                // f16 [heads, seq, head_dim]
	bO                 // f16 [heads, seq, head_dim]: attention output
	bA                 // attention output, token-major, seq × Q
	bP                 // projection output, seq × hidden
	bG                 // gate, seq × FFN
	bU                 // up, seq × FFN
	bLast              // the last token's normed state, hidden
	bLogits            // vocab
	numBufs
)

// bufSize is buffer b's elements for seq tokens, and whether it is f16.
func bufSize(s Shape, b buf, seq int) (n int, half bool) {
	switch b {
	case bH, bXN, bP:
		return seq * s.Hidden, false
	case bQ, bA:
		return seq * s.Q(), false
	case bK, bV:
		return seq * s.KV(), false
	case bQH, bO:
		return seq * s.Q(), true
	case bG, bU:
		return seq * s.FFN, false
	case bLast:
		return s.Hidden, false
	case bLogits:
		return s.Vocab, false
	}
	panic(fmt.Sprintf("modelsuite: buffer %d", b))
}

// ops are the forward's steps on one backend. Buffers are the scratch
// buffers above, sized for the forward's tokens; the layer's caches are
// the ops' own. norm -1 and layer -1 name the final norm and the LM head.
type ops interface {
	upload(x []float32) error                                   // x → bH
	rmsnorm(dst, src buf, layer int, ffn bool, rows int) error  // the layer's attention (or FFN) norm; layer -1: final
	matmul(dst, src buf, layer int, m matrix, batch int) error  // dst = W·src; layer -1: the LM head; mQKV, mGateUp: one token
	quantizeX8(src buf, n int) error                            // src's first n values → the X8 scratch (one token)
	rmsnormX8(src buf, layer int, ffn bool) error               // rmsnorm of src's one row, quantized into the X8 scratch
	matvecX8(dst buf, layer int, m matrix) error                // dst = W·(the X8 scratch), matvec_x8; layer -1: the LM head
	ropeQK(seq, pos int) error                                  // bQ and bK in place, token-major
	toHeads(dst, src buf, heads, seq int) error                 // q: token-major → f16 head-major
	appendKV(layer int, k, v buf, seq, pos, capacity int) error // into the layer's caches
	attention(dst, q buf, layer int, seq, capacity int) error   // causal, the layer's caches
	toTokens(dst, src buf, heads, seq int) error                // f16 head-major → token-major
	siluMul(dst, gate, up buf, n int) error                     //
	add(dst, a, b buf, n int) error                             //
	copyLast(dst, src buf, row, width int) error                // dst = row `row` of src
	download(logits []float32) error                            // bLogits → logits
	mark(c Component) error                                     // the work from here on is c's
}

// Path is how a decode step's projections multiply: matvec_f32 on the
// float activations, or matvec_x8 on the activations quantized to 8 bits
// (formats.X8) by glue_quantize_x8. A prefill always multiplies by matmul.
type Path int

const (
	PathF32 Path = iota
	PathX8
)

func (p Path) String() string { return [...]string{"f32", "x8"}[p] }

// tolerance is Check's NMSE bound for a forward on p.
func (p Path) tolerance() float64 {
	if p == PathX8 {
		return CheckToleranceX8
	}
	return CheckTolerance
}

// forward runs the decoder on seq tokens at positions pos..pos+seq-1, the
// layers' caches holding capacity = pos+seq rows (the attention kernels
// read [kv_heads, seq_kv, head_dim] contiguous, so a cache's capacity is
// the context it attends), x the tokens' hidden states; logits receives the
// last token's. after, if not nil, is called with the residual stream
// after each layer (a check reads it).
//
// A decode step (one token) multiplies q, k and v as one stacked matrix
// (mQKV) and gate and up as another (mGateUp), as inference engines
// store them: one launch each on a device, the same rows as the separate
// matrices'; a prompt multiplies them one by one (a batch's outputs of a
// stacked matrix would interleave the parts token by token).
//
// On PathX8 (one token only) each distinct input of the projections is
// quantized once and its X8 form read by every projection of it, as an
// inference engine does: the attention norm's output by q, k and v, the
// attention output by o, the FFN norm's output by gate and up, the
// SiLU-gate output by down, the final norm's by the LM head. A norm's
// output is quantized by the norm itself (rmsnormX8: one launch, timed
// with the glue); the others' quantization is timed with the projections
// it feeds.
func forward(o ops, s Shape, x []float32, seq, pos int, logits []float32, path Path, after func(layer int) error) error {
	if path == PathX8 && seq != 1 {
		return fmt.Errorf("model: the x8 path is a decode step's (one token), not %d tokens'", seq)
	}
	capacity := pos + seq
	steps := []func() error{
		func() error { return o.mark(Transfers) },
		func() error { return o.upload(x) },
	}
	if err := run(steps); err != nil {
		return err
	}
	// in returns the steps that make src, n values a token, the input of
	// the projections after it: its quantization on PathX8, none on f32.
	in := func(src buf, n int) []func() error {
		if path != PathX8 {
			return nil
		}
		return []func() error{func() error { return o.quantizeX8(src, n) }}
	}
	// norm is the steps that normalise src into dst (rows tokens), the
	// input of projections: on PathX8 straight into the X8 scratch
	// (dst untouched), one launch for the norm and the quantization.
	norm := func(dst, src buf, l int, ffn bool, rows int) []func() error {
		if path == PathX8 {
			return []func() error{func() error { return o.rmsnormX8(src, l, ffn) }}
		}
		return []func() error{func() error { return o.rmsnorm(dst, src, l, ffn, rows) }}
	}
	// proj is dst = W·src for layer l's matrix m, every token (l -1: the
	// LM head, the last token only).
	proj := func(dst, src buf, l int, m matrix) func() error {
		if path == PathX8 {
			return func() error { return o.matvecX8(dst, l, m) }
		}
		batch := seq
		if l < 0 {
			batch = 1
		}
		return func() error { return o.matmul(dst, src, l, m, batch) }
	}
	for l := range s.Layers {
		qkv := []func() error{proj(bQ, bXN, l, mQ), proj(bK, bXN, l, mK), proj(bV, bXN, l, mV)}
		gateUp := []func() error{proj(bG, bXN, l, mGate), proj(bU, bXN, l, mUp)}
		if seq == 1 {
			qkv = []func() error{proj(bQ, bXN, l, mQKV)}
			gateUp = []func() error{proj(bG, bXN, l, mGateUp)}
		}
		err := run(slices.Concat([]func() error{
			func() error { return o.mark(NormsGlue) },
		}, norm(bXN, bH, l, false, seq), []func() error{
			func() error { return o.mark(Projections) },
		}, qkv, []func() error{
			func() error { return o.mark(NormsGlue) },
			func() error { return o.ropeQK(seq, pos) },
			func() error { return o.toHeads(bQH, bQ, s.Heads, seq) },
			func() error { return o.mark(KVAppend) },
			func() error { return o.appendKV(l, bK, bV, seq, pos, capacity) },
			func() error { return o.mark(Attention) },
			func() error { return o.attention(bO, bQH, l, seq, capacity) },
			func() error { return o.mark(NormsGlue) },
			func() error { return o.toTokens(bA, bO, s.Heads, seq) },
			func() error { return o.mark(Projections) },
		}, in(bA, s.Q()), []func() error{
			proj(bP, bA, l, mO),
			func() error { return o.mark(NormsGlue) },
			func() error { return o.add(bH, bH, bP, seq*s.Hidden) },
		}, norm(bXN, bH, l, true, seq), []func() error{
			func() error { return o.mark(FFN) },
		}, gateUp, []func() error{
			func() error { return o.mark(NormsGlue) },
			func() error { return o.siluMul(bG, bG, bU, seq*s.FFN) },
			func() error { return o.mark(FFN) },
		}, in(bG, s.FFN), []func() error{
			proj(bP, bG, l, mDown),
			func() error { return o.mark(NormsGlue) },
			func() error { return o.add(bH, bH, bP, seq*s.Hidden) },
		}))
		if err != nil {
			return fmt.Errorf("layer %d: %w", l, err)
		}
		if after != nil {
			if err := after(l); err != nil {
				return err
			}
		}
	}
	return run(slices.Concat([]func() error{
		func() error { return o.mark(NormsGlue) },
		func() error { return o.copyLast(bLast, bH, seq-1, s.Hidden) },
	}, norm(bLast, bLast, -1, false, 1), []func() error{
		func() error { return o.mark(Projections) },
	}, []func() error{
		proj(bLogits, bLast, -1, 0),
		func() error { return o.mark(Transfers) },
		func() error { return o.download(logits) },
	}))
}

func run(steps []func() error) error {
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// launchCounter is an ops that does nothing but count the kernel launches
// a forward makes on a device (the KV append is two: k and v; the copy of
// the last token and the transfers are copies, not launches).
type launchCounter struct{ n int }

func (c *launchCounter) launch(k int) error                          { c.n += k; return nil }
func (c *launchCounter) upload([]float32) error                      { return nil }
func (c *launchCounter) rmsnorm(buf, buf, int, bool, int) error      { return c.launch(1) }
func (c *launchCounter) matmul(buf, buf, int, matrix, int) error     { return c.launch(1) }
func (c *launchCounter) quantizeX8(buf, int) error                   { return c.launch(1) }
func (c *launchCounter) rmsnormX8(buf, int, bool) error              { return c.launch(1) }
func (c *launchCounter) matvecX8(buf, int, matrix) error             { return c.launch(1) }
func (c *launchCounter) ropeQK(seq, _ int) error                     { return c.launch(min(seq, 2)) }
func (c *launchCounter) toHeads(buf, buf, int, int) error            { return c.launch(1) }
func (c *launchCounter) appendKV(int, buf, buf, int, int, int) error { return c.launch(2) }
func (c *launchCounter) attention(buf, buf, int, int, int) error     { return c.launch(1) }
func (c *launchCounter) toTokens(buf, buf, int, int) error           { return c.launch(1) }
func (c *launchCounter) siluMul(buf, buf, buf, int) error            { return c.launch(1) }
func (c *launchCounter) add(buf, buf, buf, int) error                { return c.launch(1) }
func (c *launchCounter) copyLast(buf, buf, int, int) error           { return nil }
func (c *launchCounter) download([]float32) error                    { return nil }
func (c *launchCounter) mark(Component) error                        { return nil }

// Launches is the kernel launches of one decode step of shape s on path.
func Launches(s Shape, path Path) int {
	var c launchCounter
	// The counter fails nothing; forward's own errors (x8 of several
	// tokens) cannot arise for one token.
	_ = forward(&c, s, nil, 1, 0, nil, path, nil)
	return c.n
}
