// Package attnsuite is the attention scenario suite: the
// flash-attention forward kernels over sequence length, heads and batch,
// against the cpu reference. The generated package generated/suites
// registers Attention(spec) for each workloads.Attention spec.
//
// On a device backend (backend.Device) each variant (input
// type × head dimension × masking, and decode) is first checked against the cpu
// reference (cpu.Backend.AttentionRef) on small cases — b2 h4 s256, and
// seq_q 100 against seq_kv 300 with 8 query heads over 2 key/value heads;
// for decode, DecodeCheckShapes — within suite.AttentionTolerances; a
// failure is the scenario's error. Decode cases also report kv_gb_per_s,
// the K and V bytes over the time. A sample is one call, or the mean of
// Env.LaunchesPerSample calls back to back (forgebench run
// --launches-per-sample).
// Then every case is timed with its data resident on the device (device
// events), and the cpu reference is timed once on the same case where
// that costs at most CPUMaxFLOPs, giving gpu_cpu_speedup (omitted, shown
// as "-", where it would cost more: never extrapolated). On the cpu
// backend the scenario times the reference itself.
//
// FLOPs per case follow FlashAttention's convention (backend.AttentionShape's
// FLOPs): 4·b·h·s²·d, counting only the attended (query, key) pairs under
// causal masking (about half). BytesRead is q, k and v once; BytesWritten
// o once.
package attnsuite

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/workloads"
)

// CPUMaxFLOPs is the most work the cpu reference is timed on for a GPU/CPU
// speedup (one run of about a second or two on a few cores).
const CPUMaxFLOPs = 2e9

// Case is one timed case of the suite.
type Case struct {
	DType   string
	Shape   backend.AttentionShape
	Name    string // "f16/d128/causal/b1_h32_s2048", "f16/d128/decode/b1_h32_kv8_q1_k4096"
	Variant string // what is checked once before timing: "f16/d128/causal/", "f16/d128/decode/"
	Causal  bool
	Decode  bool // a decode case (seq_q ≤ 8: the launchers' split-KV path)
}

// Cases lists the spec's cases (quick: QuickSeqLens at the smallest heads
// and batch), by dtype, head dimension, masking, then sweep order.
func Cases(spec workloads.Attention, quick bool) []Case {
	type bhs struct{ b, h, s int }
	var sizes []bhs
	add := func(x bhs) {
		if !slices.Contains(sizes, x) {
			sizes = append(sizes, x)
		}
	}
	minB, maxH, minH := slices.Min(spec.Batches), slices.Max(spec.Heads), slices.Min(spec.Heads)
	if quick {
		for _, s := range spec.QuickSeqLens {
			add(bhs{minB, minH, s})
		}
	} else {
		for _, s := range spec.SeqLens {
			add(bhs{minB, maxH, s})
		}
		for _, h := range spec.Heads {
			add(bhs{minB, h, spec.SweepSeq})
		}
		for _, b := range spec.Batches {
			add(bhs{b, maxH, spec.SweepSeq})
		}
	}
	var out []Case
	for _, dt := range spec.DTypes {
		for _, d := range spec.HeadDims {
			for _, causal := range spec.Causal {
				mask := "full"
				if causal {
					mask = "causal"
				}
				variant := fmt.Sprintf("%s/d%d/%s/", dt, d, mask)
				for _, x := range sizes {
					out = append(out, Case{
						DType: dt, Causal: causal, Variant: variant,
						Shape: backend.AttentionShape{Batch: x.b, Heads: x.h, HeadsKV: x.h, SeqQ: x.s, SeqKV: x.s, HeadDim: d,
							Scale: float32(1 / math.Sqrt(float64(d))), Causal: causal},
						Name: variant + fmt.Sprintf("b%d_h%d_s%d", x.b, x.h, x.s),
					})
				}
			}
			seqKV := spec.DecodeSeqKV
			if quick {
				seqKV = spec.QuickDecodeSeqKV
			}
			variant := fmt.Sprintf("%s/d%d/decode/", dt, d)
			for _, sq := range spec.DecodeSeqQ {
				for _, skv := range seqKV {
					out = append(out, Case{
						DType: dt, Causal: true, Decode: true, Variant: variant,
						Shape: backend.AttentionShape{Batch: 1, Heads: spec.DecodeHeads, HeadsKV: spec.DecodeHeadsKV, SeqQ: sq, SeqKV: skv,
							HeadDim: d, Scale: float32(1 / math.Sqrt(float64(d))), Causal: true},
						Name: variant + fmt.Sprintf("b1_h%d_kv%d_q%d_k%d", spec.DecodeHeads, spec.DecodeHeadsKV, sq, skv),
					})
				}
			}
		}
	}
	return out
}

// DecodeCheckShapes are the small cases the decode variant is checked on
// before it is timed on a device: one decode step whose keys the launcher
// splits across workgroups, and speculated tokens under causal masking,
// both grouped-query, and more query rows than keys.
func DecodeCheckShapes(d int) []backend.AttentionShape {
	scale := float32(1 / math.Sqrt(float64(d)))
	return []backend.AttentionShape{
		{Batch: 2, Heads: 32, HeadsKV: 8, SeqQ: 1, SeqKV: 4100, HeadDim: d, Scale: scale, Causal: true},
		{Batch: 1, Heads: 8, HeadsKV: 2, SeqQ: 4, SeqKV: 1000, HeadDim: d, Scale: scale, Causal: true},
		{Batch: 1, Heads: 4, HeadsKV: 4, SeqQ: 8, SeqKV: 5, HeadDim: d, Scale: scale, Causal: true},
	}
}

// CheckShapes are the small cases each variant is checked on before it is
// timed on a device: plain multi-head attention, and seq_q ≠ seq_kv with
// grouped-query heads.
func CheckShapes(d int, causal bool) []backend.AttentionShape {
	scale := float32(1 / math.Sqrt(float64(d)))
	return []backend.AttentionShape{
		{Batch: 2, Heads: 4, HeadsKV: 4, SeqQ: 256, SeqKV: 256, HeadDim: d, Scale: scale, Causal: causal},
		{Batch: 1, Heads: 8, HeadsKV: 2, SeqQ: 100, SeqKV: 300, HeadDim: d, Scale: scale, Causal: causal},
	}
}

// Attention is the scenario of spec.
func Attention(spec workloads.Attention) *suite.Scenario {
	return &suite.Scenario{
		Doc: spec.Doc,
		Run: func(env *suite.Env) error { return run(spec, env) },
	}
}

func run(spec workloads.Attention, env *suite.Env) error {
	ab, ok := backend.AttentionOp.Of(env.Backend)
	if !ok {
		return fmt.Errorf("backend %s has no attention kernels", env.Backend.Name())
	}
	if spec.DecodeHeads%spec.DecodeHeadsKV != 0 {
		return fmt.Errorf("%s: DecodeHeads %d is not a multiple of DecodeHeadsKV %d", spec.Name, spec.DecodeHeads, spec.DecodeHeadsKV)
	}
	for _, sq := range spec.DecodeSeqQ {
		if sq > 8 {
			return fmt.Errorf("%s: DecodeSeqQ %d: the decode path takes at most 8 query rows per sequence", spec.Name, sq)
		}
	}
	_, dev := backend.DeviceOf(env.Backend)
	ref := cpu.New(0)
	checked := map[string]bool{}
	// On a backend without device kernels the case is the Go reference
	// itself; the sweep's large cases (up to hundreds of GFLOP, a minute
	// per sample) are left to a GPU, and the log says which.
	var skipped []string
	var most float64
	defer func() {
		if len(skipped) > 0 {
			env.Logf("%s: %d cases not run on %s, each over the cpu's %.0f GFLOP cap per case (the largest is %.0f GFLOP), from %s on; run them on a GPU backend",
				spec.Name, len(skipped), env.Backend.Name(), CPUMaxFLOPs/1e9, most/1e9, skipped[0])
		}
	}()
	for _, c := range Cases(spec, env.Quick) {
		if env.Ctx.Err() != nil {
			return nil
		}
		if !dev && float64(c.Shape.FLOPs()) > CPUMaxFLOPs {
			skipped = append(skipped, c.Name)
			most = max(most, float64(c.Shape.FLOPs()))
			continue
		}
		variant := c.Variant
		if dev && !checked[variant] {
			checked[variant] = true
			shapes := CheckShapes(c.Shape.HeadDim, c.Causal)
			if c.Decode {
				shapes = DecodeCheckShapes(c.Shape.HeadDim)
			}
			for _, s := range shapes {
				if err := Check(env.Backend.Name(), ab, ref, c.DType, s); err != nil {
					return err
				}
			}
			env.Logf("%s: %s agrees with the cpu reference (NMSE ≤ %.0e, max abs ≤ %.0e)", spec.Name, variant,
				suite.AttentionTolerances[c.DType].NMSE, suite.AttentionTolerances[c.DType].MaxAbs)
		}
		m, err := measure(env, ab, dev, ref, c)
		if err != nil {
			return err
		}
		if m != nil {
			env.Report(*m)
		}
	}
	return nil
}

// Check runs shape s on backend b and compares its output with the cpu
// reference.
func Check(name string, b backend.Attention, ref *cpu.Backend, dtype string, s backend.AttentionShape) error {
	q, k, v := suite.AttentionData(dtype, s, suite.Seed(fmt.Sprintf("attention/%s/%+v", dtype, s)))
	o := make([]float32, s.QElems())
	want := make([]float32, s.QElems())
	if err := b.Attention(dtype, s, q, k, v, o); err != nil {
		return fmt.Errorf("attention %s %+v on %s: %w", dtype, s, name, err)
	}
	if err := ref.AttentionRef(s, q, k, v, want); err != nil {
		return err
	}
	return suite.CheckAttention(fmt.Sprintf("attention %s d%d causal=%v b%d h%d/%d sq%d skv%d on %s",
		dtype, s.HeadDim, s.Causal, s.Batch, s.Heads, s.HeadsKV, s.SeqQ, s.SeqKV, name), dtype, o, want)
}

func measure(env *suite.Env, ab backend.Attention, dev bool, ref *cpu.Backend, c Case) (*suite.Measurement, error) {
	s := c.Shape
	q, k, v := suite.AttentionData(c.DType, s, suite.Seed(c.Name))
	elem := int64(suite.AttentionElemSize(c.DType))
	flops := s.FLOPs()
	m := &suite.Measurement{
		Case:         c.Name,
		Shape:        []int{s.Batch, s.Heads, s.SeqQ, s.HeadDim},
		Elements:     int64(s.QElems()),
		BytesRead:    elem * int64(s.QElems()+2*s.KVElems()),
		BytesWritten: elem * int64(s.QElems()),
		FLOPs:        int64(flops),
	}
	res, err := ab.PrepareAttention(c.DType, s, q, k, v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	n := max(1, env.LaunchesPerSample)
	if n > 1 {
		m.LaunchesPerSample = n
	}
	samples, err := env.Sample(func() (time.Duration, error) {
		d, err := res.Run(n)
		return d / time.Duration(n), err
	})
	if cerr := res.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	if samples == nil {
		return nil, nil // the context ended
	}
	m.Samples = samples
	med := median(samples).Seconds()
	if med > 0 {
		m.Add("tokens_per_s", float64(s.Batch*s.SeqQ)/med, "1/s")
		m.Add("tflops", flops/med/1e12, "TFLOPS")
		if c.Decode { // what bounds a decode step: reading the K/V cache
			m.Add("kv_gb_per_s", float64(2*elem*int64(s.KVElems()))/med/1e9, "GB/s")
		}
	}
	if dev && flops <= CPUMaxFLOPs && med > 0 {
		o := make([]float32, s.QElems())
		t0 := time.Now()
		if err := ref.Attention(c.DType, s, q, k, v, o); err != nil {
			return nil, fmt.Errorf("%s: cpu reference: %w", c.Name, err)
		}
		cpuTime := time.Since(t0).Seconds()
		m.Add("cpu_ms", cpuTime*1e3, "ms")
		m.Add("gpu_cpu_speedup", cpuTime/med, "x")
	}
	return m, nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
