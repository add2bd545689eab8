package load_test

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/rocmforge/forge/gen/load"
	"github.com/rocmforge/forge/gen/translate"
	"github.com/rocmforge/forge/internal/modtest"
	"github.com/rocmforge/forge/specs/families"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/targets"
)

// TestLoadRealSpecs: what the loader reads from source agrees with what the
// spec packages register when they run.
func TestLoadRealSpecs(t *testing.T) {
	r, err := load.Load(modtest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	s := r.Spec
	if s.Module != "github.com/rocmforge/forge" {
		t.Errorf("module %q", s.Module)
	}
	all := formats.All()
	if len(s.Formats) != len(all) {
		t.Fatalf("loaded %d formats, the registry has %d", len(s.Formats), len(all))
	}
	for i, f := range s.Formats {
		want := all[i]
		if f.Name != want.Name || f.GGMLType != want.GGMLType || f.BlockElems != want.BlockElems ||
			f.BlockBytes != want.BlockBytes || f.Doc != want.Doc {
			t.Errorf("format %d: loaded %+v, registry %+v", i, *f, want.Meta)
		}
	}
	if len(s.Targets) != len(targets.All()) {
		t.Errorf("loaded %d targets, the registry has %d", len(s.Targets), len(targets.All()))
	}
	for _, tg := range s.Targets {
		// Decoded from source, every field equals the compiled spec's.
		if want, ok := targets.ByName(tg.Name); !ok || !reflect.DeepEqual(tg.Target, *want) {
			t.Errorf("target %s: loaded %+v, registry %+v", tg.Name, tg.Target, want)
		}
	}
	// Every family by name, the attention family's Family among them.
	var names []string
	for _, f := range s.Families {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"attention", "dequant", "glue", "matmul", "matvec"}) {
		t.Fatalf("families %v", names)
	}
	at, dq, gl, mm, mv := s.Families[0], s.Families[1], s.Families[2], s.Families[3], s.Families[4]
	if !at.Shared || at.Signature != "attention" || len(at.Kernels) != 4 || at.Kernels[3] != (families.Kernel{Name: "attention_f32_d128", Output: "f32", HeadDim: 128}) ||
		dq.Shared || dq.Signature != "blocks" || len(dq.Kernels) != 2 ||
		!gl.Shared || len(gl.Kernels) != 12 || gl.SignatureOf(gl.Kernels[6]) != "glue_quantize" || gl.SignatureOf(gl.Kernels[7]) != "glue_norm" || gl.SignatureOf(gl.Kernels[1]) != "glue_rope" || gl.Kernels[1].Doc == "" ||
		gl.Kernels[8].Name != "glue_silu_mul_x8" || gl.SignatureOf(gl.Kernels[8]) != "glue_binary" || gl.Kernels[9].Name != "glue_tokens_x8" || gl.SignatureOf(gl.Kernels[9]) != "glue_layout" ||
		gl.Kernels[10].Name != "glue_add_rmsnorm_x8" || gl.SignatureOf(gl.Kernels[10]) != "glue_add_norm" || gl.Kernels[11].Name != "glue_rope_kv" || gl.SignatureOf(gl.Kernels[11]) != "glue_rope_kv" ||
		mm.Signature != "matmul" || len(mm.Kernels) != 1 || mm.Kernels[0] != (families.Kernel{Name: "matmul_f32", Output: "f32"}) ||
		mv.Signature != "matvec" || len(mv.Kernels) != 2 || mv.Kernels[0] != (families.Kernel{Name: "matvec_f32", Output: "f32", Doc: "y = W·x, float32 x"}) ||
		mv.Kernels[1].Name != "matvec_x8" || !mv.Kernels[1].IntForm || mv.SignatureOf(mv.Kernels[1]) != "matvec_x8" {
		t.Errorf("families: %+v %+v %+v %+v %+v", at, dq, gl, mm, mv)
	}
}

// TestValidation breaks several specs at once in a copy of the tree: every
// problem is reported, at its position, in one run.
func TestValidation(t *testing.T) {
	dir := modtest.Copy(t, "specs")
	modtest.Edit(t, dir, "specs/formats/q4_0.go", "BlockBytes: 18", "BlockBytes: 19")
	modtest.Edit(t, dir, "specs/formats/q4_1.go", `Name: "Q4_1", GGMLType: 3`, `Name: "Q4_0", GGMLType: 2`)
	modtest.Edit(t, dir, "specs/formats/q8_0.go", "BlockElems: 32", "BlockElems: 48")
	modtest.Edit(t, dir, "specs/formats/q4_k.go", "SubBlock: 32", "SubBlock: 24")
	space := "\tMatVecSpace: MatVecSpace{\n\t\tThreadsPerBlock: []int{64, 128, 256, 512},\n\t\tRowsPerBlock:    []int{1, 2, 4, 8},\n\t\tChunk:           []int{8, 16, 32},\n\t},\n"
	// gfx1030's tuning, the last before GFX90A's: Dequant, MatVec, MatMul,
	// the integer path's classes (MatMulInt, kept but for one value) and the
	// tuning spaces (MatMulIntSpace dropped).
	intClasses := func(warpRows int) string {
		return fmt.Sprintf("\tMatMulInt: []MatMulIntBatch{\n\t\t{MaxBatch: 16, Tuning: MatMulIntTuning{ThreadsPerBlock: 128, TileRows: 64, TileCols: 16, TileK: 128, WarpRows: %d, SplitK: 4}},\n"+
			"\t\t{MaxBatch: 0, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 128, WarpRows: 4}},\n\t},\n", warpRows)
	}
	gfx1030 := "Dequant:   DequantTuning{ThreadsPerBlock: 256, VectorsPerThread: 1},\n\tMatVec:    MatVecTuning{ThreadsPerBlock: 256, RowsPerBlock: 4, Chunk: 8},\n\t// 16 × 16 threads, each a 4 × 4 register tile of Y.\n\tMatMul: MatMulTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 32, ThreadRows: 4},\n"
	modtest.EditRegexp(t, dir, "specs/targets/amd.go", regexp.QuoteMeta(gfx1030)+`(?:\t//[^\n]*\n)*`+regexp.QuoteMeta(intClasses(4))+`(?s:.*?)`+regexp.QuoteMeta(space+"})\n\n// GFX90A"),
		"Dequant:  DequantTuning{ThreadsPerBlock: 48, VectorsPerThread: 0},\n\tMatVec:   MatVecTuning{ThreadsPerBlock: 2048, RowsPerBlock: 17, Chunk: 12},\n\tMatMul:   MatMulTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 32, ThreadRows: 3, WarpRows: 2},\n"+
			intClasses(3)+"\tMatVecSpace: MatVecSpace{ThreadsPerBlock: []int{64, 100, 64}, RowsPerBlock: []int{}, Chunk: []int{8, 12}},\n})\n\n// GFX90A")
	modtest.Edit(t, dir, "specs/targets/nvidia.go", "TileK: 32, ThreadRows: 8, WarpRows: 2}", "TileK: 32, ThreadRows: 8, WarpRows: 3}")
	modtest.Edit(t, dir, "specs/targets/nvidia.go", `WaveSize:     32,`, `WaveSize:     32, Default: true,`)
	modtest.Edit(t, dir, "specs/families/families.go", `{Name: "dequant_f16", Output: "f16"},`, `{Name: "dequant_f16", Output: "bf16"},`)
	modtest.Edit(t, dir, "specs/families/attention.go", `HeadDims: []int{64, 128},`, `HeadDims: []int{64, 100, 64},`)
	modtest.Edit(t, dir, "specs/targets/nvidia.go", `WmmaWarps: 4, WmmaKeysPerTile: 32, MmaWarps: 4, MmaKeysPerTile: 32,`, `WmmaWarps: 4, WmmaKeysPerTile: 64, MmaWarps: 8, MmaKeysPerTile: 192,`)
	_, err := load.Load(dir)
	var list translate.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want an ErrorList, got %v", err)
	}
	want := []string{
		`^specs/families/attention\.go:\d+:\d+: attention family Attention: HeadDims: 100 must be a multiple of 16 in \[16, 256\], each at most once$`,
		`^specs/families/attention\.go:\d+:\d+: attention family Attention: HeadDims: 64 must be a multiple of 16 in \[16, 256\], each at most once$`,
		`^specs/families/families\.go:\d+:\d+: family dequant: kernel dequant_f16: Output "bf16" must be "f32" or "f16"$`,
		`^specs/formats/q4_0\.go:\d+:\d+: format Q4_0: block struct BlockQ4_0 is 18 bytes, but the spec declares BlockBytes 19$`,
		`^specs/formats/q4_1\.go:\d+:\d+: format name Q4_0 is also used by Q4_0 \(specs/formats/q4_0\.go:\d+:\d+\)$`,
		`^specs/formats/q4_1\.go:\d+:\d+: ggml type 2 of Q4_0 is also used by Q4_0 \(specs/formats/q4_0\.go:\d+:\d+\)$`,
		`^specs/formats/q8_0\.go:\d+:\d+: format Q8_0: BlockElems 48 must be 1 \(a scalar format\) or a positive multiple of 32$`,
		`^specs/formats/q4_k\.go:\d+:\d+: format Q4_K: SubBlock 24 must be 16 or 32 \(elements per sub-block of the integer form\), or 0 for none$`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: Dequant\.ThreadsPerBlock 48 must be a multiple of the wave size 32`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: Dequant\.VectorsPerThread 0 must be in \[1, 16\]$`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: MatVec\.ThreadsPerBlock 2048 must be a multiple of the wave size 32, at most 1024$`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: MatVec\.RowsPerBlock 17 must be in \[1, 16\]$`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: MatVec\.Chunk 12 must be a power of two in \[4, 64\]$`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: MatMul\.ThreadRows 3 must divide TileRows 64$`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: MatMul\.WarpRows 2: only targets with tensor cores \(NVIDIA, AMD with WMMA or MFMA\) have the tensor-core path; leave it 0$`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: MatMulInt\.WarpRows 3 must divide the 4 warps$`,
		`^specs/targets/nvidia\.go:\d+:\d+: target sm_90: MatMul\.WarpRows 3 must divide the 8 warps`,
		`^specs/targets/nvidia\.go:\d+:\d+: target sm_90: Attention: the tensor-core path takes 54528 bytes of shared memory at head dimension 64, more than 49152$`,
		`^specs/targets/nvidia\.go:\d+:\d+: target sm_90: Attention: the mma\.sync path's K and V tiles take 55296 bytes of shared memory at head dimension 64, more than 49152$`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: MatVecSpace\.ThreadsPerBlock: 100 must be a multiple of the wave size 32, at most 1024$`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: MatVecSpace\.ThreadsPerBlock: 64 is listed twice$`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: MatVecSpace\.RowsPerBlock: the tuning space needs at least one value$`,
		`^specs/targets/amd\.go:\d+:\d+: target gfx1030: MatVecSpace\.Chunk: 12 must be a power of two in \[4, 64\]$`,
		`^specs/targets/nvidia\.go:\d+:\d+: target sm_90 is Default, and so is gfx1100 \(specs/targets/amd\.go:\d+:\d+\): exactly one target must be$`,
	}
	got := map[string]bool{}
	for _, e := range list {
		got[e.Error()] = true
	}
	for _, w := range want {
		re := regexp.MustCompile(w)
		found := false
		for g := range got {
			if re.MatchString(g) {
				found = true
			}
		}
		if !found {
			t.Errorf("no error matching %s; got:\n%v", w, list)
		}
	}
}

func TestNonConstantField(t *testing.T) {
	dir := modtest.Copy(t, "specs")
	modtest.Edit(t, dir, "specs/targets/amd.go", `WaveSize: 64,`, `WaveSize: len(all) + 64,`)
	_, err := load.Load(dir)
	if err == nil || !regexp.MustCompile(`specs/targets/amd\.go:\d+:\d+: target GFX90A\.WaveSize is not a constant`).MatchString(err.Error()) {
		t.Fatalf("err = %v", err)
	}
}

func TestSyntaxErrorPositioned(t *testing.T) {
	dir := modtest.Copy(t, "specs")
	modtest.Edit(t, dir, "specs/formats/q4_0.go", "return float32(int32(q&15)-8) * b.D.Float32()", "return float32(int32(q&15)-8) * b.D.Float32(")
	_, err := load.Load(dir)
	if err == nil || !regexp.MustCompile(`specs/formats/q4_0\.go:\d+:\d+: `).MatchString(err.Error()) {
		t.Fatalf("err = %v", err)
	}
}
