package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/rocmforge/forge/generated/suites" // registers the suites GGUFTargets looks up
	"github.com/rocmforge/forge/internal/sharedtest"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/gguf"
	"github.com/rocmforge/forge/runtime/gguf/ggufwrite"
	"github.com/rocmforge/forge/specs/formats"
)

// TestGGUFTiny benchmarks every tensor of tiny.gguf: its real bytes at
// its shape.
func TestGGUFTiny(t *testing.T) {
	f, err := gguf.Open(sharedtest.Path(t, "testdata/tiny.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	targets, skipped := GGUFTargets(f, "dequant_f32")
	if len(skipped) != 0 || len(targets) != len(f.Tensors) {
		t.Fatalf("%d targets, skipped %v; tiny.gguf has %d tensors, all of types forge has specs for", len(targets), skipped, len(f.Tensors))
	}
	run, err := Measure(context.Background(), cpu.New(1), targets, Options{Count: 2, Warmup: 1, CopyBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != len(f.Tensors) {
		t.Fatalf("%d results", len(run.Results))
	}
	for i, r := range run.Results {
		tt := &f.Tensors[i] // GGUF targets keep the file's order
		format, _ := tt.Format()
		if r.Name != "gguf/"+tt.Name+"/dequant_f32" || r.Suite != "dequant_f32/"+format.Name || r.Format != format.Name {
			t.Errorf("result %d: %s (%s), tensor %s %s", i, r.Name, r.Suite, tt.Name, tt.TypeName())
		}
		if r.Elements != tt.Elements() || r.BytesRead != tt.Bytes() || r.BytesWritten != 4*tt.Elements() || len(r.Shape) != len(tt.Dims) || int64(r.Shape[0]) != tt.Dims[0] {
			t.Errorf("%s: shape %v, %d elements, %d bytes read; tensor %v, %d, %d", r.Name, r.Shape, r.Elements, r.BytesRead, tt.Dims, tt.Elements(), tt.Bytes())
		}
		if r.Stats.N != 2 {
			t.Errorf("%s: %d samples", r.Name, r.Stats.N)
		}
	}
}

// TestGGUFSkipped: tensors of types forge has no spec for are skipped,
// each with the reason.
func TestGGUFSkipped(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mixed.gguf")
	writeGGUF(t, p, []ggufTensor{
		{"q4", []uint64{64}, 2, make([]byte, 36)},        // Q4_0
		{"iq2", []uint64{256}, 16, make([]byte, 66)},     // IQ2_XXS: no forge spec
		{"ints", []uint64{4}, 26, make([]byte, 16)},      // I32
		{"q8 odd", []uint64{32, 2}, 8, make([]byte, 68)}, // Q8_0, a space in its name
	})
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	targets, skipped := GGUFTargets(f, "dequant_f32")
	var names, skips []string
	for _, tg := range targets {
		names = append(names, tg.Name)
	}
	for _, s := range skipped {
		skips = append(skips, s.String())
	}
	if got := strings.Join(names, ","); got != "gguf/q4/dequant_f32,gguf/q8_odd/dequant_f32" {
		t.Errorf("targets %s", got)
	}
	if got := strings.Join(skips, "; "); got != "iq2 (IQ2_XXS): no forge spec for ggml type 16; ints (I32): no forge spec for ggml type 26" {
		t.Errorf("skipped %s", got)
	}
	run, err := Measure(context.Background(), cpu.New(1), targets, Options{Count: 1, CopyBytes: -1})
	if err != nil || len(run.Results) != 2 || run.Results[1].Elements != 64 {
		t.Errorf("run %+v, %v", run, err)
	}
}

type ggufTensor struct {
	name string
	dims []uint64
	typ  uint32
	data []byte
}

// ggufKV is a metadata entry: a string or a uint32 value.
type ggufKV struct {
	key string
	val any
}

// writeGGUF writes a GGUF v3 file with the given metadata and tensors,
// each at the next 32-byte aligned offset.
func writeGGUF(t *testing.T, path string, ts []ggufTensor, kvs ...ggufKV) {
	t.Helper()
	var all []ggufwrite.KV
	for _, kv := range kvs {
		switch v := kv.val.(type) {
		case string:
			all = append(all, ggufwrite.KV{Key: kv.key, Type: gguf.TypeString, Val: v})
		case uint32:
			all = append(all, ggufwrite.KV{Key: kv.key, Type: gguf.TypeUint32, Val: v})
		default:
			t.Fatalf("writeGGUF: a %T value", v)
		}
	}
	var wt []ggufwrite.Tensor
	for _, tt := range ts {
		wt = append(wt, ggufwrite.Tensor{Name: tt.name, Dims: tt.dims, Type: tt.typ, Data: tt.data})
	}
	if err := ggufwrite.File(path, all, wt); err != nil {
		t.Fatal(err)
	}
}

// TestGGUFWrongGeometry: a tensor whose type id a spec claims with other
// blocks than ggml's is skipped with the reason, like a type with no spec
// (it was made a benchmark that decodes the data with the wrong blocks).
func TestGGUFWrongGeometry(t *testing.T) {
	old := specOf
	t.Cleanup(func() { specOf = old })
	specOf = func(t *gguf.Tensor) (*formats.Format, bool) {
		f, ok := t.Format()
		if ok && f.Name == "Q8_0" {
			wrong := *f // as a spec that got ggml's Q8_0 geometry wrong would
			wrong.BlockBytes = 36
			return &wrong, true
		}
		return f, ok
	}
	p := filepath.Join(t.TempDir(), "geometry.gguf")
	writeGGUF(t, p, []ggufTensor{
		{"q4", []uint64{64}, 2, make([]byte, 36)},
		{"q8", []uint64{32, 2}, 8, make([]byte, 68)},
	})
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	targets, skipped := GGUFTargets(f, "dequant_f32")
	if len(targets) != 1 || targets[0].Name != "gguf/q4/dequant_f32" || len(skipped) != 1 ||
		skipped[0].String() != "q8 (Q8_0): forge's spec Q8_0 has 32-element blocks of 36 bytes, ggml's type 8 has 32-element blocks of 34 bytes" {
		t.Errorf("targets %v, skipped %v", targets, skipped)
	}
	if _, err := TensorFormat(&f.Tensors[1]); err == nil {
		t.Error("TensorFormat took the wrong spec")
	}
	// What SpecFits checks besides the geometry: whole blocks.
	q4, _ := formats.ByName("Q4_0")
	if err := SpecFits(q4, &f.Tensors[0]); err != nil {
		t.Errorf("Q4_0 tensor with Q4_0's spec: %v", err)
	}
	if err := SpecFits(q4, &f.Tensors[1]); err == nil {
		t.Error("Q8_0 tensor with Q4_0's spec fits")
	}
}

// TestGGUFTargetNames: a tensor name's control bytes and invalid UTF-8
// are escaped in its benchmark's name (and the skipped list), so that
// every output, JSON included, carries the name safely and distinctly.
func TestGGUFTargetNames(t *testing.T) {
	p := filepath.Join(t.TempDir(), "names.gguf")
	writeGGUF(t, p, []ggufTensor{
		{"a\x1b[31m b", []uint64{32}, 2, make([]byte, 18)},
		{"c\xff", []uint64{32}, 2, make([]byte, 18)},
		{"c\xfe", []uint64{32}, 2, make([]byte, 18)},
		{"iq2\x07", []uint64{256}, 16, make([]byte, 66)},
	})
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	targets, skipped := GGUFTargets(f, "dequant_f32")
	var names []string
	for _, tg := range targets {
		names = append(names, tg.Name)
	}
	if got := strings.Join(names, " "); got != `gguf/a\x1b[31m_b/dequant_f32 gguf/c\xff/dequant_f32 gguf/c\xfe/dequant_f32` {
		t.Errorf("targets %s", got)
	}
	if len(skipped) != 1 || skipped[0].String() != `iq2\a (IQ2_XXS): no forge spec for ggml type 16` {
		t.Errorf("skipped %v", skipped)
	}
}

// modelGGUF writes a small model: an embedding and an output head of the
// same type and shape, two attention weights of another, two norms (1-D)
// and a tensor of a type forge has no spec for.
func modelGGUF(t *testing.T, withOutput bool) string {
	ts := []ggufTensor{
		{"token_embd.weight", []uint64{64, 10}, 8, make([]byte, 680)},  // Q8_0
		{"blk.0.attn_norm.weight", []uint64{64}, 0, make([]byte, 256)}, // F32
		{"blk.0.attn_q.weight", []uint64{64, 8}, 2, make([]byte, 288)}, // Q4_0
		{"blk.1.attn_norm.weight", []uint64{64}, 0, make([]byte, 256)},
		{"blk.1.attn_q.weight", []uint64{64, 8}, 2, make([]byte, 288)},
		{"iq2", []uint64{256}, 16, make([]byte, 66)}, // IQ2_XXS: no forge spec
	}
	if withOutput {
		ts = append(ts, ggufTensor{"output.weight", []uint64{64, 10}, 8, make([]byte, 680)})
	}
	p := filepath.Join(t.TempDir(), "model.gguf")
	writeGGUF(t, p, ts, ggufKV{"general.architecture", "llama"}, ggufKV{"general.name", "Tiny\x1b[2J Llama"}, ggufKV{"general.file_type", uint32(15)})
	return p
}

// TestGGUFModelGroups: a model's tensors are grouped by (type, shape),
// each group measured once with the count of tensors it stands for:
// dequant for every group, matvec (f32 and x8) for the 2-D weights a
// token multiplies by, matmul at each prompt length for those a prompt
// multiplies by (not the output head, not the embedding lookup); the file
// is identified.
func TestGGUFModelGroups(t *testing.T) {
	p := modelGGUF(t, true)
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := NewGGUFModel(f, p, []int{2, 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tg := range m.Targets {
		names = append(names, fmt.Sprintf("%s:%d", tg.Name, m.stands[tg.Name]))
	}
	want := []string{
		"gguf/Q8_0/10x64/dequant_f32:2", "gguf/Q8_0/10x64/matvec_f32:1", "gguf/Q8_0/10x64/matvec_x8:1",
		"gguf/F32/64/dequant_f32:2",
		"gguf/Q4_0/8x64/dequant_f32:2", "gguf/Q4_0/8x64/matvec_f32:2", "gguf/Q4_0/8x64/matvec_x8:2",
		"gguf/Q4_0/8x64/matmul_f32/batch2:2", "gguf/Q4_0/8x64/matmul_f32/batch4:2",
	}
	if got := strings.Join(names, " "); got != strings.Join(want, " ") {
		t.Errorf("targets\n%s\nwant\n%s", got, strings.Join(want, " "))
	}
	if len(m.Skipped) != 1 || m.Skipped[0].Tensor != "iq2" {
		t.Errorf("skipped %v", m.Skipped)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	info := m.Info
	if info.Path != p || info.Size != int64(len(data)) || info.SHA256 != hex.EncodeToString(sum[:]) || info.Name != `Tiny\x1b[2J Llama` ||
		info.Architecture != "llama" || info.FileType != "Q4_K_M" || info.Tensors != 7 || info.Skipped != 1 || !slices.Equal(info.Prompts, []int{2, 4}) {
		t.Errorf("identity %+v", info)
	}
	g := info.Groups[0]
	if len(info.Groups) != 3 || g.Name != "Q8_0/10x64" || !slices.Equal(g.Dims, []int64{64, 10}) || g.Bytes != 680 ||
		!slices.Equal(g.Tensors, []string{"token_embd.weight", "output.weight"}) || g.Decode != 1 || g.Prefill != 0 {
		t.Errorf("groups %+v", info.Groups)
	}
	if g := info.Groups[2]; g.Decode != 2 || g.Prefill != 2 || info.Groups[1].Decode != 0 {
		t.Errorf("groups %+v", info.Groups)
	}

	// The targets run (the cpu backend) and the run is completed.
	run, err := Measure(context.Background(), cpu.New(1), m.Targets, Options{Count: 1, Warmup: -1, CopyBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	m.Finish(run)
	if run.Meta.Model != info {
		t.Error("the run does not record the model")
	}
	for _, r := range run.Results {
		if r.Stats.N > 0 && r.Tensors != m.stands[r.Name] {
			t.Errorf("%s stands for %d tensors, want %d", r.Name, r.Tensors, m.stands[r.Name])
		}
	}
	if _, ok := figure(run, "gguf/model/total", "decode_per_token"); !ok {
		t.Errorf("no decode total: %+v", run.Results[len(run.Results)-1])
	}
	var table strings.Builder
	if err := WriteTable(&table, run); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"model: Tiny\\x1b[2J Llama (llama, Q4_K_M), file " + p, "sha256 " + info.SHA256,
		"6 tensors in 3 groups", "1 tensors skipped", "count the weight matrices alone", "gguf/model", "decode_per_token (s)"} {
		if !strings.Contains(table.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, table.String())
		}
	}

	// Tied embeddings: without output.weight, token_embd is the head.
	p = modelGGUF(t, false)
	f2, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	m, err = NewGGUFModel(f2, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := m.Info.Groups[0]; len(g.Tensors) != 1 || g.Decode != 1 || g.Prefill != 0 || !slices.Equal(m.Info.Prompts, DefaultPrompts) {
		t.Errorf("tied embeddings: %+v, prompts %v", g, m.Info.Prompts)
	}
}

// figure finds a figure of the result named name.
func figure(run *Run, name, metric string) (float64, bool) {
	for _, r := range run.Results {
		if r.Name == name {
			for _, m := range r.Metrics {
				if m.Name == metric {
					return m.Value, true
				}
			}
		}
	}
	return 0, false
}

// TestGGUFModelTotals: the model's figures from known medians: decode per
// token the Σ of each group's decode tensors × its faster matvec, prefill
// the Σ of its prompt tensors × matmul at that batch plus the head's
// matvec; a total a group is missing from is left out, and the others
// stay.
func TestGGUFModelTotals(t *testing.T) {
	p := modelGGUF(t, true)
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := NewGGUFModel(f, p, []int{2, 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p50 := map[string]time.Duration{
		"gguf/Q8_0/10x64/dequant_f32": 10, "gguf/Q8_0/10x64/matvec_f32": 30, "gguf/Q8_0/10x64/matvec_x8": 20,
		"gguf/F32/64/dequant_f32":    5,
		"gguf/Q4_0/8x64/dequant_f32": 7, "gguf/Q4_0/8x64/matvec_f32": 11, "gguf/Q4_0/8x64/matvec_x8": 13,
		"gguf/Q4_0/8x64/matmul_f32/batch2": 100, "gguf/Q4_0/8x64/matmul_f32/batch4": 1000,
	}
	results := func(skip string) *Run {
		run := &Run{}
		for _, tg := range m.Targets {
			if tg.Name == skip {
				continue
			}
			run.Results = append(run.Results, Result{Name: tg.Name, Suite: tg.Suite.Name, Kernel: tg.Suite.Kernel, Shape: tg.Shape,
				Stats: Stats{N: 1, P50: p50[tg.Name] * time.Microsecond}})
		}
		return run
	}
	run := results("")
	m.Finish(run)
	const us = 1e-6
	for _, w := range []struct {
		name, metric string
		want         float64
	}{
		{"gguf/model/total", "tensors", 6},
		{"gguf/model/total", "skipped", 1},
		{"gguf/model/total", "weight_bytes", 680 + 2*288},
		{"gguf/model/total", "dequant_all", (2*10 + 2*5 + 2*7) * us},
		{"gguf/model/total", "decode_per_token", (20 + 2*11) * us},
		{"gguf/model/total", "decode_tokens_per_s", 1 / ((20 + 2*11) * us)},
		{"gguf/model/total", "prefill_2", (2*100 + 20) * us},
		{"gguf/model/total", "prefill_4", (2*1000 + 20) * us},
		{"gguf/model/total", "prefill_4_tokens_per_s", 4 / ((2*1000 + 20) * us)},
		{"gguf/groups/Q4_0/8x64", "tensors", 2},
		{"gguf/groups/Q4_0/8x64", "decode", 22 * us},
		{"gguf/groups/Q4_0/8x64", "decode_share", 100 * 22.0 / 42},
		{"gguf/groups/Q4_0/8x64", "prefill_4", 2000 * us},
		{"gguf/groups/F32/64", "dequant_all", 10 * us},
	} {
		got, ok := figure(run, w.name, w.metric)
		if !ok || math.Abs(got-w.want) > 1e-9*math.Abs(w.want) {
			t.Errorf("%s %s = %v (%v), want %v", w.name, w.metric, got, ok, w.want)
		}
	}
	if r := run.Results[len(run.Results)-1]; r.Suite != "gguf" || r.Stats.N != 0 || len(r.Samples) != 0 {
		t.Errorf("the totals are not figures alone: %+v", r)
	}
	// The head's matvec left out: no decode total, no prefill total; the
	// dequant total stays.
	run = results("gguf/Q8_0/10x64/matvec_x8")
	run.Results = slices.DeleteFunc(run.Results, func(r Result) bool { return r.Name == "gguf/Q8_0/10x64/matvec_f32" })
	m.Finish(run)
	for _, metric := range []string{"decode_per_token", "prefill_2", "prefill_4"} {
		if _, ok := figure(run, "gguf/model/total", metric); ok {
			t.Errorf("%s given without the head's matvec", metric)
		}
	}
	if _, ok := figure(run, "gguf/model/total", "dequant_all"); !ok {
		t.Error("dequant_all left out")
	}
	// A prompt length left out: that prefill only.
	run = results("gguf/Q4_0/8x64/matmul_f32/batch4")
	m.Finish(run)
	_, ok2 := figure(run, "gguf/model/total", "prefill_2")
	_, ok4 := figure(run, "gguf/model/total", "prefill_4")
	if !ok2 || ok4 {
		t.Errorf("prefill_2 %v, prefill_4 %v; want only prefill_2", ok2, ok4)
	}
}

func TestParsePrompts(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []int
	}{
		{nil, DefaultPrompts},
		{[]string{"512,128"}, []int{128, 512}},
		{[]string{"1", " 64 ,1", "65536"}, []int{1, 64, 65536}},
	} {
		if got, err := ParsePrompts(c.in); err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range [][]string{{"0"}, {"-1"}, {"65537"}, {"12x"}, {""}, {","}, {"9223372036854775808"},
		{"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"}} {
		if got, err := ParsePrompts(bad); err == nil || !strings.Contains(err.Error(), "--prompt") {
			t.Errorf("%q: %v, %v", bad, got, err)
		}
	}
}

// TestRooflineSmall: a benchmark that moves less than RooflineMinBytes
// (or the roofline's buffer, if smaller) gets no %copy: a 16 KiB tensor
// was "51% of copy" of a 256 MiB roofline.
func TestRooflineSmall(t *testing.T) {
	roof := &Roofline{Bytes: 256 << 20, GBps: 20}
	for _, c := range []struct {
		roof  *Roofline
		bytes int64
		want  float64
	}{
		{roof, 16 << 10, 0},
		{roof, RooflineMinBytes - 1, 0},
		{roof, RooflineMinBytes, 20},
		{&Roofline{Bytes: 1 << 20, GBps: 5}, 1 << 20, 5},
		{&Roofline{Bytes: 1 << 20, GBps: 5}, 1<<20 - 1, 0},
		{nil, 1 << 30, 0},
		{&Roofline{GBps: 7}, 16 << 10, 0}, // a run that did not record its buffer: the constant
		{&Roofline{GBps: 7}, RooflineMinBytes, 7},
	} {
		if got := RooflineFor(c.roof, c.bytes); got != c.want {
			t.Errorf("%+v, %d bytes: %v, want %v", c.roof, c.bytes, got, c.want)
		}
	}
	// Through the engine: tiny.gguf's tensors (16 KiB or less) against a
	// 1 MiB roofline have none.
	f, err := gguf.Open(sharedtest.Path(t, "testdata/tiny.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	targets, _ := GGUFTargets(f, "dequant_f32")
	run, err := Measure(context.Background(), cpu.New(1), targets[:2], Options{Count: 1, CopyBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if run.Roofline == nil || run.Results[0].Stats.PctCopy != 0 || run.Results[0].Stats.GBps <= 0 {
		t.Errorf("roofline %+v, first result %+v", run.Roofline, run.Results[0].Stats)
	}
}
