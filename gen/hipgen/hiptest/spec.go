package hiptest

import (
	"go/token"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/specs/families"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/targets"
)

// Spec and its helpers build a synthetic model by hand, for the tests of
// the packages that render and build HIP (gen/hipgen, gen/build): real
// targets and families (values copied from specs/targets and
// specs/families), and formats whose device code is written the way the
// translator's contract says it is (struct with the Go field names, layout
// static_asserts, #line directives into the spec, FORGE_DEVICE Func calling
// the scalar intrinsics). So those tests do not depend on the translator or
// on the specs loading.

// q4_0Device is a hand translation of specs/formats/q4_0.go, with its
// struct renamed to block so that formats of the same layout can share it.
func q4_0Device(block string) *ir.Device {
	fn := block + "_Dequant"
	return &ir.Device{
		Block: block,
		Func:  fn,
		Code: `#line 8 "specs/formats/q4_0.go"
struct ` + block + ` {
	forge_half D;
	uint8_t Qs[16];
};
static_assert(sizeof(` + block + `) == 18, "` + block + `: 18 bytes, as the Go struct");
static_assert(offsetof(` + block + `, D) == 0, "` + block + `.D at byte 0");
static_assert(offsetof(` + block + `, Qs) == 2, "` + block + `.Qs at byte 2");

#line 14 "specs/formats/q4_0.go"
FORGE_DEVICE float ` + fn + `(const ` + block + `* __restrict__ b, int32_t j) {
	uint8_t q = b->Qs[j & 15];
	if (j >= 16) {
		q = (uint8_t)(q >> 4);
	}
	return (float)((int32_t)(q & 15) - 8) * forge_half_to_f32(b->D);
}
`,
	}
}

// super256Device is a made-up 256-element, 144-byte format (eight Q4_0
// sub-blocks sharing one struct, with a table and a helper, as k-quants
// have), so that the kernels are also compiled for BlockElems ≠ 32.
func super256Device() *ir.Device {
	return &ir.Device{
		Block: "forge_BlockSuper256",
		Func:  "forge_BlockSuper256_Dequant",
		Code: `#line 1 "specs/formats/super256.go"
struct forge_BlockSuper256 {
	forge_half D[8];
	uint8_t Qs[128];
};
static_assert(sizeof(forge_BlockSuper256) == 144, "forge_BlockSuper256: 144 bytes, as the Go struct");
static_assert(offsetof(forge_BlockSuper256, D) == 0, "forge_BlockSuper256.D at byte 0");
static_assert(offsetof(forge_BlockSuper256, Qs) == 16, "forge_BlockSuper256.Qs at byte 16");

#line 10 "specs/formats/super256.go"
static __device__ const int8_t forge_super256Offsets[2] = {-8, -7};

#line 12 "specs/formats/super256.go"
static FORGE_DEVICE int32_t forge_super256Nibble(uint8_t q, int32_t hi) {
	return (int32_t)((q >> (4 * hi)) & 15);
}

#line 16 "specs/formats/super256.go"
FORGE_DEVICE float forge_BlockSuper256_Dequant(const forge_BlockSuper256* __restrict__ b, int32_t j) {
	int32_t sub = j >> 5;
	int32_t k = j & 31;
	int32_t q = forge_super256Nibble(b->Qs[16 * sub + (k & 15)], (int32_t)(k >= 16));
	return (float)(q + (int32_t)forge_super256Offsets[sub & 1]) * forge_half_to_f32(b->D[sub]);
}
`,
	}
}

// q4_0IntDevice is q4_0Device with an integer form, hand-translated the
// way the translator's contract says (codes four to a word, a scale and an
// offset per 32-element sub-block): codes the nibbles 0..15, Scale d,
// Offset −8d.
func q4_0IntDevice(block string) *ir.Device {
	d := q4_0Device(block)
	d.Int = &ir.IntForm{Sub: 32, Align: 2, Codes: block + "_Codes", Scale: block + "_Scale", Offset: block + "_Offset"}
	d.Code += `
#line 30 "specs/formats/q4_0.go"
FORGE_DEVICE uint32_t ` + block + `_Codes(const ` + block + `* __restrict__ b, int32_t w) {
	uint32_t v;
	memcpy(&v, b->Qs + 4 * (w & 3), 4);
	if (w >= 4) {
		v = v >> 4;
	}
	return v & 0x0f0f0f0fu;
}

#line 40 "specs/formats/q4_0.go"
FORGE_DEVICE float ` + block + `_Scale(const ` + block + `* __restrict__ b, int32_t s) {
	(void)s;
	return forge_half_to_f32(b->D);
}

#line 45 "specs/formats/q4_0.go"
FORGE_DEVICE float ` + block + `_Offset(const ` + block + `* __restrict__ b, int32_t s) {
	(void)s;
	return -8.0f * forge_half_to_f32(b->D);
}
`
	return d
}

func pos(file string, line int) token.Position {
	return token.Position{Filename: file, Line: line, Column: 1}
}

// Spec is a synthetic spec: four formats (two real ones sharing Q4_0's
// layout, Q4_0 alone with an integer form, one without a ggml id, one with
// 256-element blocks), the four real
// targets with their tuning, and the dequant family (SpecMatVec adds matvec).
func Spec() *ir.Spec {
	fs := []*ir.Format{
		{Meta: formats.Meta{Name: "Q4_0", GGMLType: 2, BlockElems: 32, BlockBytes: 18, Doc: "4-bit codes, one fp16 scale per 32 (ggml legacy)"},
			GoVar: "Q4_0", BlockType: "BlockQ4_0", File: "specs/formats/q4_0.go", Pos: pos("specs/formats/q4_0.go", 4),
			Device: q4_0IntDevice("forge_BlockQ4_0")},
		{Meta: formats.Meta{Name: "IQ4_NL", GGMLType: 20, BlockElems: 32, BlockBytes: 18, Doc: "non-linear 4-bit codes (Q4_0's layout)"},
			GoVar: "IQ4_NL", BlockType: "BlockIQ4_NL", File: "specs/formats/iq4_nl.go", Pos: pos("specs/formats/iq4_nl.go", 4),
			Device: q4_0Device("forge_BlockIQ4_NL")},
		{Meta: formats.Meta{Name: "TEST4_0", GGMLType: -1, BlockElems: 32, BlockBytes: 18, Doc: "no ggml id"},
			GoVar: "TEST4_0", BlockType: "BlockTEST4_0", File: "specs/formats/test4_0.go", Pos: pos("specs/formats/test4_0.go", 4),
			Device: q4_0Device("forge_BlockTEST4_0")},
		{Meta: formats.Meta{Name: "SUPER256", GGMLType: -1, BlockElems: 256, BlockBytes: 144, Doc: "256-element super-blocks"},
			GoVar: "SUPER256", BlockType: "BlockSuper256", File: "specs/formats/super256.go", Pos: pos("specs/formats/super256.go", 4),
			Device: super256Device()},
	}
	amd := "specs/targets/amd.go"
	ts := []*ir.Target{
		{Target: targets.Target{Name: "gfx1030", Vendor: "amd", WaveSize: 32, Doc: "AMD RDNA2 (RX 6800/6900), wave32",
			Dequant: targets.DequantTuning{ThreadsPerBlock: 256, VectorsPerThread: 1},
			MatVec:  targets.MatVecTuning{ThreadsPerBlock: 256, RowsPerBlock: 2, Chunk: 8},                             // eight waves: the shared-memory sum
			MatMul:  targets.MatMulTuning{ThreadsPerBlock: 128, TileRows: 32, TileCols: 48, TileK: 16, ThreadRows: 2}}, // 16 × 8 threads, 2 × 6 each
			GoVar: "GFX1030", File: amd, Pos: pos(amd, 14)},
		{Target: targets.Target{Name: "gfx1100", Vendor: "amd", WaveSize: 32, Default: true, Doc: "AMD RDNA3 (RX 7900), wave32",
			Dequant: targets.DequantTuning{ThreadsPerBlock: 256, VectorsPerThread: 1},
			MatVec:  targets.MatVecTuning{ThreadsPerBlock: 256, RowsPerBlock: 8, Chunk: 16},
			MatMul:  targets.MatMulTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 32, ThreadRows: 4}},
			GoVar: "GFX1100", File: amd, Pos: pos(amd, 4)},
		{Target: targets.Target{Name: "gfx90a", Vendor: "amd", WaveSize: 64, Doc: "AMD CDNA2 (Instinct MI210/MI250), wave64",
			Dequant: targets.DequantTuning{ThreadsPerBlock: 256, VectorsPerThread: 1},
			MatVec:  targets.MatVecTuning{ThreadsPerBlock: 64, RowsPerBlock: 3, Chunk: 4},                             // one wave64: no shared-memory sum
			MatMul:  targets.MatMulTuning{ThreadsPerBlock: 64, TileRows: 16, TileCols: 16, TileK: 64, ThreadRows: 1}}, // one wave64, 16 × 4 threads
			GoVar: "GFX90A", File: amd, Pos: pos(amd, 23)},
		{Target: targets.Target{Name: "sm_90", Vendor: "nvidia", WaveSize: 32, CompileFlags: []string{"-arch=sm_90"},
			Doc:     "NVIDIA Hopper (H100), warp 32, via the portability header",
			Dequant: targets.DequantTuning{ThreadsPerBlock: 256, VectorsPerThread: 1},
			MatVec:  targets.MatVecTuning{ThreadsPerBlock: 256, RowsPerBlock: 4, Chunk: 8},
			MatMul:  targets.MatMulTuning{ThreadsPerBlock: 256, TileRows: 128, TileCols: 128, TileK: 32, ThreadRows: 8, WarpRows: 4}},
			GoVar: "SM90", File: "specs/targets/nvidia.go", Pos: pos("specs/targets/nvidia.go", 5)},
	}
	fams := []*ir.Family{
		{Family: families.Family{Name: "dequant", Doc: "quant blocks to f32 and to f16",
			Kernels: []families.Kernel{{Name: "dequant_f32", Output: "f32"}, {Name: "dequant_f16", Output: "f16"}}},
			GoVar: "Dequant", File: "specs/families/families.go", Pos: pos("specs/families/families.go", 33)},
	}
	return &ir.Spec{Module: "github.com/rocmforge/forge", Root: "/nonexistent/forge", Formats: fs, Targets: ts, Families: fams}
}

// SpecMatMul is SpecMatVec with the matmul family as well, where gen/load
// orders it (by name: dequant, matmul, matvec).
func SpecMatMul() *ir.Spec {
	s := SpecMatVec()
	mm := &ir.Family{Family: families.Family{Name: "matmul", Doc: "fused dequant and matrix product for a batch of vectors, f32 out",
		Kernels: []families.Kernel{{Name: "matmul_f32", Output: "f32"}}},
		GoVar: "MatMul", File: "specs/families/families.go", Pos: pos("specs/families/families.go", 60)}
	s.Families = []*ir.Family{s.Families[0], mm, s.Families[1]}
	return s
}

// SpecMatVec is Spec with the matvec family as well, after dequant (as
// gen/load orders families, by name): matvec_f32 for every format,
// matvec_x8 for Q4_0, the one with an integer form.
func SpecMatVec() *ir.Spec {
	s := Spec()
	s.Families = append(s.Families, &ir.Family{Family: families.Family{Name: "matvec", Doc: "fused dequant and matrix-vector product, f32 out",
		Kernels: []families.Kernel{{Name: "matvec_f32", Output: "f32"}, {Name: "matvec_x8", Output: "f32", Signature: "matvec_x8", IntForm: true}}},
		GoVar: "MatVec", File: "specs/families/families.go", Pos: pos("specs/families/families.go", 47)})
	return s
}
