package modelsuite

import (
	"fmt"
	"slices"
)

// Component is a part of the forward that the prefill breakdown times.
type Component int

// The components: the attention projections (q, k, v, o) and the LM head;
// the attention kernel; the FFN projections (gate, up, down); the norms
// and the rest of the glue (RMSNorm, the attention output's conversion
// back, SiLU-gate, residual adds, and on the x8 path the quantizations
// fused into them); RoPE with q's f16 conversion and the KV-cache append
// (one kernel, glue_rope_kv); and the host↔device transfers (the input's
// upload, the logits' download).
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
	bH2                // the residual stream between a decode step's two adds on the x8 path (glue_add_rmsnorm_x8 writes out of place), seq × hidden
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
	case bH, bH2, bXN, bP:
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
	upload(x []float32) error                                  // x → bH
	rmsnorm(dst, src buf, layer int, ffn bool, rows int) error // the layer's attention (or FFN) norm; layer -1: final
	matmul(dst, src buf, layer int, m matrix, batch int) error // dst = W·src; layer -1: the LM head; mQKV, mGateUp: one token
	matvecX8(dst buf, layer int, m matrix) error               // dst = W·(the X8 scratch), matvec_x8; layer -1: the LM head
	// ropeKV rotates bQ and bK (token-major, not written) into bQH (f16
	// head-major) and the layer's caches' rows pos.., bV appended as it is.
	ropeKV(layer, seq, pos, capacity int) error
	attention(dst, q buf, layer int, seq, capacity int) error // causal, the layer's caches
	toTokens(dst, src buf, heads, seq int) error              // f16 head-major → token-major
	siluMul(dst, gate, up buf, n int) error                   //
	add(dst, a, b buf, n int) error                           //
	copyLast(dst, src buf, row, width int) error              // dst = row `row` of src
	download(logits []float32) error                          // bLogits → logits
	mark(c Component) error                                   // the work from here on is c's

	// The x8 path's producers of the X8 scratch (one token): each is the
	// f32 step named, its output quantized (formats.QuantizeX8) into the
	// scratch instead of written.
	rmsnormX8(src buf, layer int, ffn bool) error       // rmsnorm of src
	addNormX8(dst, a, b buf, layer int, ffn bool) error // dst = a + b (written; not a or b), then rmsnorm of dst
	tokensX8(src buf, heads int) error                  // toTokens of src
	siluMulX8(gate, up buf, n int) error                // siluMul of gate and up
}

// Path is how a decode step's projections multiply: matvec_f32 on the
// float activations, or matvec_x8 on the activations quantized to 8 bits
// (formats.X8) by the glue kernels that make them. A prefill always
// multiplies by matmul.
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
// inference engine does, and the quantization is fused into the kernel
// that makes the input: the first norm (rmsnormX8) for q, k and v; the
// attention output's conversion back (tokensX8) for o; the residual add
// after o with the FFN norm (addNormX8) for gate and up; the SiLU-gate
// (siluMulX8) for down; the residual add after down with the next layer's
// attention norm, or the final norm (addNormX8), for the next q, k and v
// or the LM head. The two adds of a layer write out of place, bH to bH2
// and back, so the residual stream is in bH after every layer.
func forward(o ops, s Shape, x []float32, seq, pos int, logits []float32, path Path, after func(layer int) error) error {
	if path == PathX8 && seq != 1 {
		return fmt.Errorf("model: the x8 path is a decode step's (one token), not %d tokens'", seq)
	}
	x8 := path == PathX8
	capacity := pos + seq
	steps := []func() error{
		func() error { return o.mark(Transfers) },
		func() error { return o.upload(x) },
	}
	if x8 {
		steps = append(steps,
			func() error { return o.mark(NormsGlue) },
			func() error { return o.rmsnormX8(bH, 0, false) })
	}
	if err := run(steps); err != nil {
		return err
	}
	// proj is dst = W·src for layer l's matrix m, every token (l -1: the
	// LM head, the last token only); on x8, src is the X8 scratch.
	proj := func(dst, src buf, l int, m matrix) func() error {
		if x8 {
			return func() error { return o.matvecX8(dst, l, m) }
		}
		batch := seq
		if l < 0 {
			batch = 1
		}
		return func() error { return o.matmul(dst, src, l, m, batch) }
	}
	glue := func(f func() error) []func() error {
		return []func() error{func() error { return o.mark(NormsGlue) }, f}
	}
	for l := range s.Layers {
		qkv := []func() error{proj(bQ, bXN, l, mQ), proj(bK, bXN, l, mK), proj(bV, bXN, l, mV)}
		gateUp := []func() error{proj(bG, bXN, l, mGate), proj(bU, bXN, l, mUp)}
		if seq == 1 {
			qkv = []func() error{proj(bQ, bXN, l, mQKV)}
			gateUp = []func() error{proj(bG, bXN, l, mGateUp)}
		}
		// The attention's norm (x8: made by the previous layer's last add),
		// the o input, the add and FFN norm, the down input, the last add.
		attnNorm := glue(func() error { return o.rmsnorm(bXN, bH, l, false, seq) })
		oIn := glue(func() error { return o.toTokens(bA, bO, s.Heads, seq) })
		ffnNorm := slices.Concat(glue(func() error { return o.add(bH, bH, bP, seq*s.Hidden) }),
			[]func() error{func() error { return o.rmsnorm(bXN, bH, l, true, seq) }})
		downIn := glue(func() error { return o.siluMul(bG, bG, bU, seq*s.FFN) })
		lastAdd := glue(func() error { return o.add(bH, bH, bP, seq*s.Hidden) })
		if x8 {
			next := l + 1 // the next layer's attention norm, or the final norm
			if next == s.Layers {
				next = -1
			}
			attnNorm = nil
			oIn = glue(func() error { return o.tokensX8(bO, s.Heads) })
			ffnNorm = glue(func() error { return o.addNormX8(bH2, bH, bP, l, true) })
			downIn = glue(func() error { return o.siluMulX8(bG, bU, s.FFN) })
			lastAdd = glue(func() error { return o.addNormX8(bH, bH2, bP, next, false) })
		}
		err := run(slices.Concat(attnNorm, []func() error{
			func() error { return o.mark(Projections) },
		}, qkv, []func() error{
			func() error { return o.mark(KVAppend) },
			func() error { return o.ropeKV(l, seq, pos, capacity) },
			func() error { return o.mark(Attention) },
			func() error { return o.attention(bO, bQH, l, seq, capacity) },
		}, oIn, []func() error{
			func() error { return o.mark(Projections) },
			proj(bP, bA, l, mO),
		}, ffnNorm, []func() error{
			func() error { return o.mark(FFN) },
		}, gateUp, downIn, []func() error{
			func() error { return o.mark(FFN) },
			proj(bP, bG, l, mDown),
		}, lastAdd))
		if err != nil {
			return fmt.Errorf("layer %d: %w", l, err)
		}
		if after != nil {
			if err := after(l); err != nil {
				return err
			}
		}
	}
	var final []func() error // the final norm of the last token (x8: the last add made it)
	if !x8 {
		final = slices.Concat(glue(func() error { return o.copyLast(bLast, bH, seq-1, s.Hidden) }),
			[]func() error{func() error { return o.rmsnorm(bLast, bLast, -1, false, 1) }})
	}
	return run(slices.Concat(final, []func() error{
		func() error { return o.mark(Projections) },
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
// a forward makes on a device (the copy of the last token and the
// transfers are copies, not launches).
type launchCounter struct{ n int }

func (c *launchCounter) launch() error                            { c.n++; return nil }
func (c *launchCounter) upload([]float32) error                   { return nil }
func (c *launchCounter) rmsnorm(buf, buf, int, bool, int) error   { return c.launch() }
func (c *launchCounter) matmul(buf, buf, int, matrix, int) error  { return c.launch() }
func (c *launchCounter) matvecX8(buf, int, matrix) error          { return c.launch() }
func (c *launchCounter) ropeKV(int, int, int, int) error          { return c.launch() }
func (c *launchCounter) attention(buf, buf, int, int, int) error  { return c.launch() }
func (c *launchCounter) toTokens(buf, buf, int, int) error        { return c.launch() }
func (c *launchCounter) siluMul(buf, buf, buf, int) error         { return c.launch() }
func (c *launchCounter) add(buf, buf, buf, int) error             { return c.launch() }
func (c *launchCounter) copyLast(buf, buf, int, int) error        { return nil }
func (c *launchCounter) download([]float32) error                 { return nil }
func (c *launchCounter) mark(Component) error                     { return nil }
func (c *launchCounter) rmsnormX8(buf, int, bool) error           { return c.launch() }
func (c *launchCounter) addNormX8(buf, buf, buf, int, bool) error { return c.launch() }
func (c *launchCounter) tokensX8(buf, int) error                  { return c.launch() }
func (c *launchCounter) siluMulX8(buf, buf, int) error            { return c.launch() }

// Launches is the kernel launches of one decode step of shape s on path.
func Launches(s Shape, path Path) int {
	var c launchCounter
	// The counter fails nothing; forward's own errors (x8 of several
	// tokens) cannot arise for one token.
	_ = forward(&c, s, nil, 1, 0, nil, path, nil)
	return c.n
}
