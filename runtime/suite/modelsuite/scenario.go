// Package modelsuite is the model-shaped end-to-end suite: a
// llama-style decoder forward composed from forge's generated kernels and
// the model glue, timed as an inference engine would see it. The generated
// package generated/suites registers Decoder(spec) for each
// workloads.Decoder spec (model/llama_7b, model/small).
//
// The forward (forward in ops.go), per layer: RMSNorm → q, k, v
// projections (matvec_f32_<fmt> for one token, or on the x8 decode path
// matvec_x8_<fmt>; matmul_f32_<fmt> for a prompt) → RoPE on q and k
// (llama's pairing), q to f16 head-major, k and v appended to the layer's
// f16 cache (one kernel, glue_rope_kv) → attention_f16_d<hd> (causal,
// GQA, seq_q = the tokens, seq_kv = the context) → its output back to
// float32 → o projection → residual add → RMSNorm → gate and up
// projections → SiLU-gate → down projection → residual add; then the last
// token's final RMSNorm and the LM head (matvec, vocab × hidden). On the
// x8 path each projection's input is quantized by the kernel that makes
// it (glue_rmsnorm_x8, glue_tokens_x8, glue_add_rmsnorm_x8 for a residual
// add and the norm after it, glue_silu_mul_x8): 11 kernels a layer on a
// GPU, the attention's two included. No tokenizer, no
// embedding table, no sampling: the input is random hidden states of the
// prompt (uploaded, host→device), the output the last token's logits
// (downloaded). The attention kernels read [kv_heads, seq_kv, head_dim]
// contiguous, so a layer's cache holds exactly the context the step
// attends: a prefill of P tokens fills a cache of P rows; a decode step at
// context C attends a cache of C+1 rows, the first C random values (a
// stand-in for the prefill), and each timed step repeats the step at
// position C (its K/V row rewritten), so every step costs exactly one
// context-C step.
//
// On a GPU backend the weights are uploaded once per format (a distinct
// device buffer per layer and matrix; for the 7B shape one layer's
// matrices are quantized in Go once per format and uploaded into every
// layer's buffers, and the LM head is a 4096-row slab repeated to the
// vocabulary: the bytes each layer streams are real and distinct buffers,
// so the timing is honest, only their values repeat). Before any timing
// the small check shape runs on the GPU and on the cpu (CheckTolerance).
//
// Per format it reports (Measurement names "<fmt>/<case>"):
//   - prefill_p<P>: TTFT = device events around the whole forward,
//     the input upload and logits download included (samples); the
//     breakdown from one more forward with an event at every component
//     boundary (<component>_ms, <component>_pct of that forward's total);
//     ttft_roofline_ms = max(weight bytes ÷ copy bandwidth, FLOPs ÷
//     peak_tflops), peak_tflops the device's dense f16 tensor-core peak
//     from its clock and units (PeakTFLOPS; on the cpu the bandwidth term
//     alone);
//   - decode_c<C> (projections by matvec_f32 on float activations) and,
//     for a format with an integer form, decode_x8_c<C> (each projection
//     input quantized once, by the kernel that makes it, the projections
//     by matvec_x8; speedup_vs_f32 its tokens/s over decode_c<C>'s):
//     DecodeSteps steps per sample; tokens_per_s, and
//     roofline_tokens_per_s = copy bandwidth ÷ weight bytes per token
//     (every matrix, the LM head and the norms), roofline_pct the ratio;
//     kv_bytes_per_token, the K/V cache a token's attention reads at that
//     context (every layer's K and V, f16, context + 1 positions), and
//     roofline_kv_tokens_per_s = copy bandwidth ÷ (weight + K/V bytes per
//     token), roofline_kv_pct the ratio: what a token really reads;
//     the breakdown of one more step, as prefill's (its events' own cost
//     included); launches_per_token the step's kernel launches (on a GPU the kernel
//     nodes of the step recorded into a graph, on the cpu Launches) and
//     host_launches_per_token what the host submits for them (the same);
//   - on a GPU backend, decode_replay_c<C> and decode_x8_replay_c<C>: the
//     same step recorded once into a graph (gpu.Stream.Capture) and
//     replayed, the input's upload and the logits' download around each
//     replay as before: the same metrics, host_launches_per_token 1,
//     speedup_vs_launched, and launch_overhead_ms, the launched step's
//     ms_per_token less the replayed one's (what submitting the kernels one
//     by one costs). Check replays each decode step it checks;
//   - memory: weights_bytes, kv_cache_bytes, scratch_bytes (at the largest
//     case) and peak_device_bytes, the caching allocator's PeakInUse.
//
// On the cpu backend the same forward runs in Go (runtime/backend/cpu's MatVec,
// MatMul, AttentionRef and the Go glue), timed with the wall clock, with
// the host's copy bandwidth as the roofline; shapes whose largest prefill
// exceeds CPUMaxFLOPs (the 7B) are not run, with a log line, and neither
// are, in a quick run, the shapes too large for the cpu: for those only a
// "<fmt>/footprint" case of counts (weight and KV-cache bytes and GFLOP
// per token) is reported.
package modelsuite

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/device/gpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/workloads"
)

// DeviceBackend is what the suite needs of a GPU backend: the device (its
// kernels, allocator, events) and the copy roofline.
type DeviceBackend interface {
	backend.Device
	Device() *gpu.Device
}

// errNoReplay is the cpu engine's replay error.
var errNoReplay = errors.New("the cpu backend has no graphs: its forward is Go calls")

// CPUMaxFLOPs is the most work of one forward the cpu backend is given.
const CPUMaxFLOPs = 20e9

// CheckTolerance is the NMSE, Σ(gpu−cpu)²/Σcpu², the GPU forward's logits
// and layer-1 residual stream may have against the cpu forward's. Both
// compute the same function with the same f16 roundings (q, the caches,
// the attention output) and the same quantized weights; they differ by
// float32 against float64 accumulation in the matvec/matmul and attention
// kernels (relative ~1e-6 per dot product of a few hundred terms), the
// float32 RoPE angle (≤ 1e-5 rad at the check's positions) and, mostly,
// f16 rounding flips: an accumulation difference that moves a value across
// an f16 rounding boundary changes it by 2^-11 relative (NMSE contribution
// ~1e-7 where it happens), then propagates through the layers. The host
// emulation of each kernel shows ≤ 1e-10 (f32 kernels) and ~1e-7 (f16
// attention); 1e-4 leaves a wide margin for propagation over the check's
// layers while failing a wrong layout, head, position or mask (NMSE of
// order 0.1 to 1).
const CheckTolerance = 1e-4

// CheckToleranceX8 is Check's bound (NMSE) for the x8 decode path, checked
// against the cpu forward on the cpu backend's matvec_x8 (the same
// formats.QuantizeX8 of the activations and the spec's DotX8). Both sides
// round activations to 8 bits, but not always to the same codes: where a
// float32-vs-float64 difference moves x/D across a rounding boundary a code
// flips by one, that projection's output moves by W[:,i]·D, and the next
// layer's inputs then differ by ~1e-3 relative, which flips many more: the
// two forwards diverge about as far as two independent 8-bit roundings.
// Measured: Q8_0 on the H100 1.26e-4 on the logits (over CheckTolerance),
// the cpu's x8 forward against its f32 one ~1e-4 (TestCPUForwardX8). The
// bound is llama.cpp's for mul_mat, 5e-4; a wrong layout, head or row still
// gives 0.1 to 1.
const CheckToleranceX8 = 5e-4

// PeakTFLOPS is the device's dense f16 matrix peak from its units and
// clock: 4096 FLOP per clock per SM on NVIDIA sm_90 (H100: 132 × 1.83 GHz
// × 4096 ≈ 989 TFLOPS), 1024 on other NVIDIA tensor-core parts, 512 per CU
// on AMD RDNA3 (WMMA) and CDNA, 256 (f32 FMA) otherwise. An estimate for the
// TTFT roofline, not a measurement.
func PeakTFLOPS(i gpu.Info) float64 {
	per := 256.0
	switch {
	case i.Arch == "sm_90":
		per = 4096
	case i.Vendor == "nvidia":
		per = 1024
	case i.Vendor == "amd":
		per = 512
	}
	return float64(i.ComputeUnits) * float64(i.ClockKHz) * 1e3 * per / 1e12
}

// Decoder is the scenario of spec.
func Decoder(spec workloads.Decoder) *suite.Scenario {
	return &suite.Scenario{Doc: spec.Doc, Run: func(env *suite.Env) error { return runDecoder(spec, env) }}
}

// CheckShape is the shape the GPU forward is checked on against the cpu
// before timing: small, with the spec's head dimension (the attention
// launcher it uses), grouped-query heads, eps and RoPE base.
func CheckShape(s Shape) Shape {
	heads := max(2, 256/s.HeadDim)
	return Shape{Hidden: heads * s.HeadDim, Layers: 2, Heads: heads, KVHeads: heads / 2, HeadDim: s.HeadDim,
		FFN: 768, Vocab: 1024, Eps: s.Eps, Theta: s.Theta}
}

func runDecoder(spec workloads.Decoder, env *suite.Env) error {
	s := ShapeOf(spec)
	dev, _ := env.Backend.(DeviceBackend)
	fmts, prompts, contexts := spec.Formats, spec.Prompts, spec.Contexts
	if env.Quick {
		fmts, prompts, contexts = spec.QuickFormats, spec.QuickPrompts, spec.QuickContexts
	}
	biggest := s.FLOPs(slices.Max(prompts), 0)
	if env.Quick && s.FLOPs(slices.Max(spec.Prompts), 0) > CPUMaxFLOPs {
		env.Logf("%s: not run in a quick run (a quick run keeps the small shapes); its footprint per format only", spec.Name)
		return footprint(env, s, fmts)
	}
	if dev == nil && biggest > CPUMaxFLOPs {
		env.Logf("%s: not run on %s: its largest forward is %.0f GFLOP, over the cpu's %.0f GFLOP cap; run it on a GPU backend (its footprint per format only)",
			spec.Name, env.Backend.Name(), biggest/1e9, CPUMaxFLOPs/1e9)
		return footprint(env, s, fmts)
	}
	var roof suite.Roofline
	var err error
	if dev != nil {
		roof, err = suite.MeasureCopy(dev, suite.CopyBytes(dev, suite.DefaultDeviceBenchElems))
	} else {
		roof, err = suite.MeasureHostCopy(suite.HostCopyBytes)
	}
	if err != nil {
		return fmt.Errorf("%s: copy roofline: %w", spec.Name, err)
	}
	env.Logf("%s: copy bandwidth %.0f GB/s on %s", spec.Name, roof.GBps, env.Backend.Name())
	for _, name := range fmts {
		if env.Ctx.Err() != nil {
			return nil
		}
		f, ok := formats.ByName(name)
		if !ok {
			return fmt.Errorf("%s: unknown format %q", spec.Name, name)
		}
		if err := s.Validate(f); err != nil {
			return fmt.Errorf("%s: %w", spec.Name, err)
		}
		if dev != nil {
			paths, err := Check(dev.Device(), CheckShape(s), f)
			if err != nil {
				return fmt.Errorf("%s: %w", spec.Name, err)
			}
			env.Logf("%s: %s forward agrees with the cpu on the check shape (NMSE ≤ %.0e; x8 decode ≤ %.0e), decode on %v", spec.Name, f.Name, CheckTolerance, CheckToleranceX8, paths)
		}
		w, err := NewWeights(s, f, dev != nil && s.Layers > 8, suite.Seed(spec.Name+"/"+f.Name))
		if err != nil {
			return fmt.Errorf("%s: %w", spec.Name, err)
		}
		var e engine
		if dev != nil {
			e, err = newGPUEngine(dev.Device(), w)
		} else {
			e = newCPUEngine(w)
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", spec.Name, f.Name, err)
		}
		err = measureFormat(env, spec, s, f, w, e, roof, prompts, contexts)
		if cerr := e.close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", spec.Name, f.Name, err)
		}
	}
	return nil
}

// engine is a backend's forward over one format's weights.
type engine interface {
	// session prepares a forward of seq tokens over a cache of capacity
	// rows, the first capacity-seq random context, its projections by path
	// (PathX8: seq 1 only).
	session(seq, capacity int, kvSeed uint64, path Path) (session, error)
	// x8 says why the engine has no x8 decode path (nil: it has one).
	x8() error
	// replay says why the engine cannot record a forward and replay it
	// (nil: it can).
	replay() error
	inUse() uint64 // device (or host) bytes held now
	peak() uint64  // the allocator's peak
	peakTFLOPS() float64
	close() error
}

type session interface {
	// timed runs n forwards and returns their time in all (device events
	// around them on a GPU, the wall clock on the cpu).
	timed(x, logits []float32, n int) (time.Duration, error)
	// replayed is timed with the forward recorded once (at the first call)
	// and replayed as one graph, its transfers around each replay.
	replayed(x, logits []float32, n int) (time.Duration, error)
	// launches is the kernel launches of one forward.
	launches() (int, error)
	// breakdown runs one forward and returns its time by component.
	breakdown(x, logits []float32) ([NumComponents]time.Duration, error)
	close() error
}

func measureFormat(env *suite.Env, spec workloads.Decoder, s Shape, f *formats.Format, w *Weights, e engine, roof suite.Roofline, prompts, contexts []int) error {
	weightBytes := s.WeightBytes(f)
	base := e.inUse()
	var maxScratch, maxKV uint64
	logits := make([]float32, s.Vocab)
	for _, p := range prompts {
		if env.Ctx.Err() != nil {
			return nil
		}
		x := Inputs(s, p, suite.Seed(fmt.Sprintf("%s/prompt/%d", spec.Name, p)))
		ss, err := e.session(p, p, 0, PathF32)
		if err != nil {
			return fmt.Errorf("prefill %d: %w", p, err)
		}
		kv := uint64(s.Layers) * 2 * 2 * uint64(s.KVHeads) * uint64(p) * uint64(s.HeadDim)
		maxKV = max(maxKV, kv)
		if in := e.inUse(); in > base+kv {
			maxScratch = max(maxScratch, in-base-kv)
		}
		samples, err := env.Sample(func() (time.Duration, error) { return ss.timed(x, logits, 1) })
		var parts [NumComponents]time.Duration
		if err == nil && samples != nil {
			parts, err = ss.breakdown(x, logits)
		}
		if cerr := ss.close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("prefill %d: %w", p, err)
		}
		if samples == nil {
			return nil
		}
		if err := finite(logits); err != nil {
			return fmt.Errorf("prefill %d: %w", p, err)
		}
		med := median(samples).Seconds()
		flops := s.FLOPs(p, 0)
		m := suite.Measurement{Case: fmt.Sprintf("%s/prefill_p%d", f.Name, p), Shape: []int{p, s.Hidden, s.Layers},
			Elements: int64(p), BytesRead: weightBytes, FLOPs: int64(flops), Samples: samples}
		m.Add("ttft_ms", med*1e3, "ms")
		m.Add("tokens_per_s", float64(p)/med, "1/s")
		addBreakdown(&m, parts)
		est := float64(weightBytes) / (roof.GBps * 1e9)
		if pk := e.peakTFLOPS(); pk > 0 {
			est = math.Max(est, flops/(pk*1e12))
			m.Add("peak_tflops", pk, "TFLOPS")
		}
		m.Add("ttft_roofline_ms", est*1e3, "ms")
		env.Report(m)
	}
	paths := []Path{PathF32}
	if err := e.x8(); err != nil {
		env.Logf("%s: %s decode on matvec_f32 only: %v", spec.Name, f.Name, err)
	} else {
		paths = append(paths, PathX8)
	}
	replay := e.replay()
	if replay != nil {
		env.Logf("%s: %s decode launched only, not replayed: %v", spec.Name, f.Name, replay)
	}
	for _, c := range contexts {
		var f32tps float64
		for _, path := range paths {
			if env.Ctx.Err() != nil {
				return nil
			}
			steps := spec.DecodeSteps
			x := Inputs(s, 1, suite.Seed(fmt.Sprintf("%s/decode/%d", spec.Name, c)))
			ss, err := e.session(1, c+1, suite.Seed(fmt.Sprintf("%s/kv/%d", spec.Name, c)), path)
			if err != nil {
				return fmt.Errorf("decode at %d (%v): %w", c, path, err)
			}
			kv := uint64(s.Layers) * 2 * 2 * uint64(s.KVHeads) * uint64(c+1) * uint64(s.HeadDim)
			maxKV = max(maxKV, kv)
			if in := e.inUse(); in > base+kv {
				maxScratch = max(maxScratch, in-base-kv)
			}
			d := decodeReport{s: s, f: f, c: c, path: path, steps: steps, weightBytes: weightBytes, kv: kv, roof: roof}
			if d.launches, err = ss.launches(); err != nil {
				ss.close()
				return fmt.Errorf("decode at %d (%v): %w", c, path, err)
			}
			samples, err := env.Sample(func() (time.Duration, error) { return ss.timed(x, logits, steps) })
			var tps float64
			var parts [NumComponents]time.Duration
			if err == nil && samples != nil {
				parts, err = ss.breakdown(x, logits)
			}
			if err == nil && samples != nil {
				if err = finite(logits); err == nil {
					var m suite.Measurement
					m, tps = d.measure(samples, false)
					addBreakdown(&m, parts)
					if path == PathF32 {
						f32tps = tps
					} else if f32tps > 0 {
						m.Add("speedup_vs_f32", tps/f32tps, "x")
					}
					env.Report(m)
				}
			}
			if err == nil && samples != nil && replay == nil && env.Ctx.Err() == nil {
				clear(logits)
				var rs []time.Duration
				rs, err = env.Sample(func() (time.Duration, error) { return ss.replayed(x, logits, steps) })
				if err == nil && rs != nil {
					if err = finite(logits); err == nil {
						m, rtps := d.measure(rs, true)
						m.Add("speedup_vs_launched", rtps/tps, "x")
						m.Add("launch_overhead_ms", 1e3/tps-1e3/rtps, "ms")
						env.Report(m)
					}
				}
			}
			if cerr := ss.close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("decode at %d (%v): %w", c, path, err)
			}
			if samples == nil {
				return nil
			}
		}
	}
	m := suite.Measurement{Case: f.Name + "/memory", Shape: []int{s.Hidden, s.Layers}}
	m.Add("weights_bytes", float64(base), "B")
	m.Add("kv_cache_bytes", float64(maxKV), "B")
	m.Add("scratch_bytes", float64(maxScratch), "B")
	m.Add("peak_device_bytes", float64(e.peak()), "B")
	env.Report(m)
	return nil
}

// addBreakdown adds a forward's time by component to m: <component>_ms and
// <component>_pct of their sum.
func addBreakdown(m *suite.Measurement, parts [NumComponents]time.Duration) {
	var total time.Duration
	for _, d := range parts {
		total += d
	}
	for c, d := range parts {
		m.Add(ComponentNames[c]+"_ms", d.Seconds()*1e3, "ms")
	}
	for c, d := range parts {
		pct := 0.0
		if total > 0 {
			pct = 100 * d.Seconds() / total.Seconds()
		}
		m.Add(ComponentNames[c]+"_pct", pct, "%")
	}
}

// DecodeCase is the case name of format f's decode at context c on path:
// "<fmt>/decode_c<C>" for matvec_f32 (the name the suite has always
// reported, so that baselines compare) and "<fmt>/decode_x8_c<C>" for
// matvec_x8; replayed, "<fmt>/decode_replay_c<C>" and
// "<fmt>/decode_x8_replay_c<C>".
func DecodeCase(f *formats.Format, c int, path Path, replayed bool) string {
	name := "decode"
	if path == PathX8 {
		name += "_x8"
	}
	if replayed {
		name += "_replay"
	}
	return fmt.Sprintf("%s/%s_c%d", f.Name, name, c)
}

// decodeReport is what a decode case's measurement is computed from.
type decodeReport struct {
	s           Shape
	f           *formats.Format
	c, steps    int
	launches    int // kernel launches per token
	path        Path
	weightBytes int64
	kv          uint64
	roof        suite.Roofline
}

// measure is the decode case of samples (each of d.steps forwards), and
// its tokens/s. A replayed forward is one host launch (the graph) of the
// step's kernels.
func (d decodeReport) measure(samples []time.Duration, replayed bool) (suite.Measurement, float64) {
	s, steps := d.s, d.steps
	med := median(samples).Seconds()
	m := suite.Measurement{Case: DecodeCase(d.f, d.c, d.path, replayed), Shape: []int{d.c, s.Hidden, s.Layers},
		Elements: int64(steps), BytesRead: int64(steps) * d.weightBytes, FLOPs: int64(float64(steps) * s.FLOPs(1, d.c)), Samples: samples}
	tps := float64(steps) / med
	rtps := d.roof.GBps * 1e9 / float64(d.weightBytes)
	m.Add("tokens_per_s", tps, "1/s")
	m.Add("ms_per_token", 1e3/tps, "ms")
	m.Add("roofline_tokens_per_s", rtps, "1/s")
	m.Add("roofline_pct", 100*tps/rtps, "%")
	rkv := d.roof.GBps * 1e9 / float64(uint64(d.weightBytes)+d.kv)
	m.Add("roofline_kv_tokens_per_s", rkv, "1/s")
	m.Add("roofline_kv_pct", 100*tps/rkv, "%")
	m.Add("weight_bytes_per_token", float64(d.weightBytes), "B")
	m.Add("kv_bytes_per_token", float64(d.kv), "B")
	m.Add("launches_per_token", float64(d.launches), "")
	host := d.launches
	if replayed {
		host = 1
	}
	m.Add("host_launches_per_token", float64(host), "")
	return m, tps
}

// footprint reports, per format, what a shape that is not run would
// stream and hold: a case of counts alone ("<fmt>/footprint"), so that a
// skipped spec says what it is rather than nothing.
func footprint(env *suite.Env, s Shape, fmts []string) error {
	for _, name := range fmts {
		f, ok := formats.ByName(name)
		if !ok {
			return fmt.Errorf("unknown format %q", name)
		}
		if err := s.Validate(f); err != nil {
			return err
		}
		m := suite.Measurement{Case: f.Name + "/footprint", Shape: []int{s.Hidden, s.Layers}}
		m.Add("weight_bytes_per_token", float64(s.WeightBytes(f)), "B")
		m.Add("kv_cache_bytes_per_token", float64(4*s.Layers*s.KVHeads*s.HeadDim), "B")
		m.Add("gflop_per_token", s.FLOPs(1, 0)/1e9, "GFLOP")
		env.Report(m)
	}
	return nil
}

func finite(x []float32) error {
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("logit %d is %g", i, v)
		}
	}
	return nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// NMSE is Σ(a−ref)²/Σref² (+Inf for a NaN).
func NMSE(a, ref []float32) float64 {
	var num, den float64
	for i, r := range ref {
		d := float64(a[i]) - float64(r)
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		num += d * d
		den += float64(r) * float64(r)
	}
	if den == 0 {
		if num == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return num / den
}
