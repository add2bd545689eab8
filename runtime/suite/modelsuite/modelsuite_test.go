package modelsuite

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/workloads"
)

var tiny = Shape{Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 16, FFN: 96, Vocab: 50, Eps: 1e-5, Theta: 10000}

// refForward is an independent float64 decoder: the weights dequantized
// once to float64 matrices, RoPE as a complex rotation of (x[2i], x[2i+1]),
// attention as a plain causal softmax, no f16 rounding anywhere. ctxK and
// ctxV hold each layer's first pos cache rows ([kv_heads, pos+seq,
// head_dim] layout, as KVFill draws them).
func refForward(t *testing.T, w *Weights, x []float32, seq, pos int, ctxK, ctxV [][]float32) (logits, layer1 []float64) {
	s, f := w.Shape, w.Format
	deq := func(b []byte, rows, cols int) [][]float64 {
		tmp := make([]float32, rows*cols)
		if err := f.Dequantize(tmp, b); err != nil {
			t.Fatal(err)
		}
		m := make([][]float64, rows)
		for r := range m {
			m[r] = make([]float64, cols)
			for c := range cols {
				m[r][c] = float64(tmp[r*cols+c])
			}
		}
		return m
	}
	mul := func(m [][]float64, v []float64) []float64 {
		out := make([]float64, len(m))
		for r, row := range m {
			for c, a := range row {
				out[r] += a * v[c]
			}
		}
		return out
	}
	norm := func(v []float64, w []float32) []float64 {
		var ss float64
		for _, a := range v {
			ss += a * a
		}
		inv := 1 / math.Sqrt(ss/float64(len(v))+float64(s.Eps))
		out := make([]float64, len(v))
		for i, a := range v {
			out[i] = a * inv * float64(w[i])
		}
		return out
	}
	rope := func(v []float64, heads, p int) {
		for h := range heads {
			for i := range s.HeadDim / 2 {
				z := complex(v[h*s.HeadDim+2*i], v[h*s.HeadDim+2*i+1])
				ang := float64(p) / math.Pow(s.Theta, float64(2*i)/float64(s.HeadDim))
				z *= complex(math.Cos(ang), math.Sin(ang))
				v[h*s.HeadDim+2*i], v[h*s.HeadDim+2*i+1] = real(z), imag(z)
			}
		}
	}
	hs := make([][]float64, seq)
	for t := range seq {
		hs[t] = make([]float64, s.Hidden)
		for j := range s.Hidden {
			hs[t][j] = float64(x[t*s.Hidden+j])
		}
	}
	n := pos + seq
	for l, ly := range w.Layers {
		var m [numMatrices][][]float64
		for k := range numMatrices {
			r, c := s.dims(k)
			m[k] = deq(ly.M[k], r, c)
		}
		// keys[kh][j], vals[kh][j]: the context, then this forward's tokens.
		keys := make([][][]float64, s.KVHeads)
		vals := make([][][]float64, s.KVHeads)
		for kh := range s.KVHeads {
			keys[kh], vals[kh] = make([][]float64, n), make([][]float64, n)
			for j := range pos {
				keys[kh][j], vals[kh][j] = make([]float64, s.HeadDim), make([]float64, s.HeadDim)
				for d := range s.HeadDim {
					keys[kh][j][d] = float64(ctxK[l][(kh*n+j)*s.HeadDim+d])
					vals[kh][j][d] = float64(ctxV[l][(kh*n+j)*s.HeadDim+d])
				}
			}
		}
		qs := make([][]float64, seq)
		for t := range seq {
			xn := norm(hs[t], ly.AttnNorm)
			q, k, v := mul(m[mQ], xn), mul(m[mK], xn), mul(m[mV], xn)
			rope(q, s.Heads, pos+t)
			rope(k, s.KVHeads, pos+t)
			qs[t] = q
			for kh := range s.KVHeads {
				keys[kh][pos+t] = k[kh*s.HeadDim : (kh+1)*s.HeadDim]
				vals[kh][pos+t] = v[kh*s.HeadDim : (kh+1)*s.HeadDim]
			}
		}
		for t := range seq {
			att := make([]float64, s.Q())
			for h := range s.Heads {
				kh := h / (s.Heads / s.KVHeads)
				q := qs[t][h*s.HeadDim : (h+1)*s.HeadDim]
				sc := make([]float64, pos+t+1)
				mx := math.Inf(-1)
				for j := range sc {
					for d := range s.HeadDim {
						sc[j] += q[d] * keys[kh][j][d]
					}
					sc[j] /= math.Sqrt(float64(s.HeadDim))
					mx = math.Max(mx, sc[j])
				}
				var sum float64
				for j := range sc {
					sc[j] = math.Exp(sc[j] - mx)
					sum += sc[j]
				}
				for j := range sc {
					for d := range s.HeadDim {
						att[h*s.HeadDim+d] += sc[j] / sum * vals[kh][j][d]
					}
				}
			}
			o := mul(m[mO], att)
			for j := range o {
				hs[t][j] += o[j]
			}
			xn := norm(hs[t], ly.FFNNorm)
			g, u := mul(m[mGate], xn), mul(m[mUp], xn)
			for i := range g {
				g[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
			}
			d := mul(m[mDown], g)
			for j := range d {
				hs[t][j] += d[j]
			}
		}
		if l == 0 {
			for t := range seq {
				layer1 = append(layer1, hs[t]...)
			}
		}
	}
	head := deq(w.Head, s.Vocab, s.Hidden)
	return mul(head, norm(hs[seq-1], w.Norm)), layer1
}

func nmse64(a []float32, ref []float64) float64 {
	var num, den float64
	for i, r := range ref {
		d := float64(a[i]) - r
		num += d * d
		den += r * r
	}
	return num / den
}

// TestCPUForwardReference checks the cpu forward (the Go glue, runtime/backend/cpu's
// MatVec/MatMul/AttentionRef, the f16 roundings the GPU path makes) against
// refForward on a tiny shape, a prefill and a decode step over random
// context: NMSE ≤ 1e-5 (the f16 roundings of q, k, v and the attention
// output, relative 2^-12 rms each: NMSE ~1e-7, grown through two layers).
func TestCPUForwardReference(t *testing.T) {
	for _, name := range []string{"Q8_0", "F16", "Q4_0"} {
		f, _ := formats.ByName(name)
		w, err := NewWeights(tiny, f, false, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ seq, pos int }{{5, 0}, {1, 6}, {3, 4}} {
			x := Inputs(tiny, c.seq, 11)
			logits, l1, err := CPUForward(w, x, c.seq, c.pos, 77, PathF32)
			if err != nil {
				t.Fatal(err)
			}
			var ck, cv [][]float32
			for l := range tiny.Layers {
				ck = append(ck, KVFill(tiny, c.pos, c.pos+c.seq, 77+uint64(2*l)))
				cv = append(cv, KVFill(tiny, c.pos, c.pos+c.seq, 77+uint64(2*l+1)))
			}
			wantLogits, wantL1 := refForward(t, w, x, c.seq, c.pos, ck, cv)
			e1, e2 := nmse64(l1, wantL1), nmse64(logits, wantLogits)
			t.Logf("%s seq %d pos %d: NMSE layer 1 %.3g, logits %.3g", name, c.seq, c.pos, e1, e2)
			if !(e1 <= 1e-5) || !(e2 <= 1e-5) {
				t.Errorf("%s seq %d pos %d: cpu forward vs float64 reference: NMSE %.3g (layer 1), %.3g (logits), bound 1e-5", name, c.seq, c.pos, e1, e2)
			}
		}
	}
}

// TestDecodeUsesContext: a decode step's logits are finite and depend on
// the cached context (different context, different logits).
func TestDecodeUsesContext(t *testing.T) {
	f, _ := formats.ByName("Q8_0")
	w, err := NewWeights(tiny, f, false, 5)
	if err != nil {
		t.Fatal(err)
	}
	x := Inputs(tiny, 1, 3)
	a, _, err := CPUForward(w, x, 1, 8, 1, PathF32)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := CPUForward(w, x, 1, 8, 2, PathF32)
	if err != nil {
		t.Fatal(err)
	}
	if err := finite(a); err != nil {
		t.Fatal(err)
	}
	if NMSE(a, b) < 1e-6 {
		t.Errorf("a decode step's logits do not depend on the cached context")
	}
}

func TestSharedWeights(t *testing.T) {
	f, _ := formats.ByName("Q4_K")
	s := Shape{Hidden: 256, Layers: 3, Heads: 2, KVHeads: 1, HeadDim: 128, FFN: 512, Vocab: 5000, Eps: 1e-5, Theta: 1e4}
	w, err := NewWeights(s, f, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	if w.Layers[0] != w.Layers[2] || int64(len(w.Head)) != s.HeadBytes(f) {
		t.Errorf("shared weights: layers %p %p, head %d bytes, want %d", w.Layers[0], w.Layers[2], len(w.Head), s.HeadBytes(f))
	}
	if _, err := NewWeights(Shape{Hidden: 100, Layers: 1, Heads: 2, KVHeads: 1, HeadDim: 50, FFN: 256, Vocab: 4}, f, false, 1); err == nil {
		t.Error("a hidden size of 100 was accepted for Q4_K's 256-element blocks")
	}
}

// TestScenarioCPU runs the small spec's quick cases on the cpu backend and
// checks the reported cases and metrics; the 7B spec is skipped there.
func TestScenarioCPU(t *testing.T) {
	var ms []suite.Measurement
	var logs []string
	env := &suite.Env{
		Ctx: context.Background(), Backend: cpu.New(0), Quick: true,
		Sample: func(once func() (time.Duration, error)) ([]time.Duration, error) {
			d, err := once()
			return []time.Duration{d}, err
		},
		Report: func(m suite.Measurement) { ms = append(ms, m) },
		Logf:   func(format string, args ...any) { logs = append(logs, format) },
	}
	if err := Decoder(workloads.DecoderLlama7B).Run(env); err != nil || len(ms) != len(workloads.DecoderLlama7B.QuickFormats) {
		t.Fatalf("7B on the cpu: %v, %d measurements, want a footprint per quick format", err, len(ms))
	}
	if m, ok := ms[0].Metric("weight_bytes_per_token"); !ok || m.Value < 4e9 || m.Value > 6e9 {
		t.Errorf("7B Q4_K footprint: %+v, want about 4.9 GB of weights per token", ms[0])
	}
	ms = nil
	if err := Decoder(workloads.DecoderSmall).Run(env); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"prefill_p16":   {"ttft_ms", "projections_pct", "attention_ms", "ffn_ms", "norms_glue_ms", "kv_append_ms", "transfers_ms", "ttft_roofline_ms"},
		"decode_c64":    {"tokens_per_s", "roofline_tokens_per_s", "roofline_pct", "kv_bytes_per_token", "roofline_kv_tokens_per_s", "roofline_kv_pct"},
		"decode_x8_c64": {"tokens_per_s", "roofline_tokens_per_s", "roofline_pct", "roofline_kv_pct", "speedup_vs_f32"},
		"memory":        {"weights_bytes", "kv_cache_bytes", "scratch_bytes", "peak_device_bytes"},
	}
	n := 0
	for _, m := range ms {
		_, c, _ := strings.Cut(m.Case, "/")
		for _, name := range want[c] {
			if _, ok := m.Metric(name); !ok {
				t.Errorf("%s: no %s", m.Case, name)
			}
		}
		n++
	}
	// prefill, decode on each path the format has, memory.
	wantN := 0
	for _, name := range workloads.DecoderSmall.QuickFormats {
		f, _ := formats.ByName(name)
		wantN += 3
		if f.HasIntForm() {
			wantN++
		}
	}
	if n != wantN {
		t.Errorf("%d measurements, want %d", n, wantN)
	}
	var pct float64
	for _, m := range ms {
		if strings.HasSuffix(m.Case, "prefill_p16") {
			for _, c := range ComponentNames {
				x, _ := m.Metric(c + "_pct")
				pct += x.Value
			}
			break
		}
	}
	if math.Abs(pct-100) > 0.01 {
		t.Errorf("the breakdown's percentages add up to %g", pct)
	}
	// The K/V a decode token reads at context 64: every layer's K and V,
	// f16, 65 positions; the roofline with them is the weights' scaled by
	// weights ÷ (weights + K/V).
	sh := ShapeOf(workloads.DecoderSmall)
	seen := 0
	for _, m := range ms {
		if !strings.HasSuffix(m.Case, "/decode_c64") {
			continue
		}
		seen++
		kv, _ := m.Metric("kv_bytes_per_token")
		w, _ := m.Metric("weight_bytes_per_token")
		r, _ := m.Metric("roofline_tokens_per_s")
		rkv, _ := m.Metric("roofline_kv_tokens_per_s")
		pw, _ := m.Metric("roofline_pct")
		pkv, _ := m.Metric("roofline_kv_pct")
		if want := float64(sh.Layers * 2 * 2 * sh.KVHeads * 65 * sh.HeadDim); kv.Value != want {
			t.Errorf("%s: kv_bytes_per_token %g, want %g", m.Case, kv.Value, want)
		}
		if got, want := rkv.Value, r.Value*w.Value/(w.Value+kv.Value); math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: roofline_kv_tokens_per_s %g, want %g", m.Case, got, want)
		}
		if !(pkv.Value > pw.Value) {
			t.Errorf("%s: roofline_kv_pct %g is not above roofline_pct %g", m.Case, pkv.Value, pw.Value)
		}
	}
	if seen == 0 {
		t.Error("no decode_c64 case")
	}
}

// TestCPUForwardX8 runs the x8 decode path on the cpu backend (its
// matvec_x8: formats.QuantizeX8 and the spec's DotX8) for formats of each
// kind of integer form, on the check shape (256 wide: the K-quants' blocks),
// against the f32 path's forward. Each quantized input adds the
// activations' 8-bit rounding, NMSE ≈ E[D²/12]/σ² with D = amax/127 of 32
// roughly normal values (amax ≈ 2.2σ): ~3e-5 per projection input, about
// 4e-5 measured on the residual stream after one layer and ~1e-4 on the
// logits after two. So: above 1e-6 (the x8 path ran, not the float one)
// and at most 1e-3 (an order of magnitude over what the rounding makes; a
// wrong input quantized, a stale X8 vector or a wrong row's weights are
// NMSE ~1).
func TestCPUForwardX8(t *testing.T) {
	s := CheckShape(ShapeOf(workloads.DecoderSmall))
	for _, name := range []string{"Q4_0", "Q4_K", "Q8_0", "Q6_K", "Q3_K", "MXFP4"} {
		f, _ := formats.ByName(name)
		if !f.HasIntForm() {
			t.Fatalf("%s has no integer form", name)
		}
		w, err := NewWeights(s, f, false, 5)
		if err != nil {
			t.Fatal(err)
		}
		x := Inputs(s, 1, 11)
		want, wantL1, err := CPUForward(w, x, 1, 9, 77, PathF32)
		if err != nil {
			t.Fatal(err)
		}
		got, gotL1, err := CPUForward(w, x, 1, 9, 77, PathX8)
		if err != nil {
			t.Fatalf("%s on the x8 path: %v", name, err)
		}
		e1, e2 := NMSE(gotL1, wantL1), NMSE(got, want)
		t.Logf("%s: x8 against f32: NMSE layer 1 %.3g, logits %.3g", name, e1, e2)
		for _, e := range []float64{e1, e2} {
			if !(e > 1e-6 && e <= 1e-3) {
				t.Errorf("%s: x8 forward against the f32 forward: NMSE %.3g (layer 1), %.3g (logits), want in (1e-6, 1e-3]", name, e1, e2)
				break
			}
		}
	}
	f, _ := formats.ByName("Q8_0")
	w, err := NewWeights(s, f, false, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := CPUForward(w, Inputs(s, 4, 1), 4, 0, 1, PathX8); err == nil {
		t.Error("a prefill of 4 tokens ran on the x8 path, a decode step's")
	}
	f16, _ := formats.ByName("F16")
	w, err = NewWeights(s, f16, false, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := CPUForward(w, Inputs(s, 1, 1), 1, 3, 1, PathX8); err == nil || !strings.Contains(err.Error(), "integer form") {
		t.Errorf("F16 on the x8 path: %v, want an error that it has no integer form", err)
	}
}

// runQuick runs spec's quick cases on the cpu backend, one sample each.
func runQuick(t *testing.T, spec workloads.Decoder) (ms []suite.Measurement, logs []string) {
	t.Helper()
	env := &suite.Env{
		Ctx: context.Background(), Backend: cpu.New(0), Quick: true,
		Sample: func(once func() (time.Duration, error)) ([]time.Duration, error) {
			d, err := once()
			return []time.Duration{d}, err
		},
		Report: func(m suite.Measurement) { ms = append(ms, m) },
		Logf:   func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) },
	}
	if err := Decoder(spec).Run(env); err != nil {
		t.Fatalf("%s: %v", spec.Name, err)
	}
	return ms, logs
}

// TestScenarioDecodePaths: on the cpu backend, a format with an integer
// form reports decode on both paths (decode_c<C>, decode_x8_c<C>, each
// with tokens/s and its roofline share, the x8 one its speedup), and F16,
// which has none, reports the f32 path alone and says why.
func TestScenarioDecodePaths(t *testing.T) {
	spec := workloads.DecoderSmall
	spec.QuickFormats = []string{"Q4_0", "F16"}
	spec.QuickContexts = []int{32}
	ms, logs := runQuick(t, spec)
	cases := map[string]suite.Measurement{}
	for _, m := range ms {
		cases[m.Case] = m
	}
	for _, c := range []string{"Q4_0/decode_c32", "Q4_0/decode_x8_c32", "F16/decode_c32"} {
		m, ok := cases[c]
		if !ok {
			t.Errorf("no %s case (have %v)", c, slices.Sorted(maps.Keys(cases)))
			continue
		}
		for _, name := range []string{"tokens_per_s", "roofline_tokens_per_s", "roofline_pct"} {
			if v, ok := m.Metric(name); !ok || !(v.Value > 0) {
				t.Errorf("%s: %s %+v, want a positive figure", c, name, v)
			}
		}
		if v, ok := m.Metric("speedup_vs_f32"); ok != strings.Contains(c, "x8") || ok && !(v.Value > 0) {
			t.Errorf("%s: speedup_vs_f32 %+v (reported: %v), want it on the x8 case alone", c, v, ok)
		}
	}
	mf, mx := cases["Q4_0/decode_c32"], cases["Q4_0/decode_x8_c32"]
	f32, _ := mf.Metric("launches_per_token")
	x8, _ := mx.Metric("launches_per_token")
	// 12 a layer (norm, q·k·v stacked, RoPE with q's layout and the KV
	// append, attention, its layout back, o, add, norm, gate·up stacked,
	// SiLU-gate, down, add) and the final norm and LM head; on x8, 10 a
	// layer (the layout back, the SiLU-gate and each add with the norm
	// after it quantizing their outputs: no separate norm or
	// quantization), the first norm and the LM head.
	if s := ShapeOf(spec); f32.Value != float64(12*s.Layers+2) || x8.Value != float64(10*s.Layers+2) {
		t.Errorf("launches per token: %g (f32), %g (x8), want %d and %d", f32.Value, x8.Value, 12*s.Layers+2, 10*s.Layers+2)
	}
	if _, ok := cases["Q4_0/decode_replay_c32"]; ok {
		t.Error("the cpu reported a replayed decode")
	}
	if _, ok := cases["F16/decode_x8_c32"]; ok {
		t.Error("F16, which has no integer form, reported an x8 decode")
	}
	if !slices.ContainsFunc(logs, func(l string) bool { return strings.Contains(l, "F16 decode on matvec_f32 only") }) {
		t.Errorf("no log line says why F16 has no x8 decode: %q", logs)
	}
	if a, b := cases["Q4_0/decode_c32"], cases["Q4_0/decode_x8_c32"]; a.BytesRead != b.BytesRead || a.Elements != b.Elements {
		t.Errorf("the two paths' decode count different work: %d/%d bytes, %d/%d tokens", a.BytesRead, b.BytesRead, a.Elements, b.Elements)
	}
}
