package main

import (
	"strings"
	"testing"

	"github.com/rocmforge/forge/internal/modtest"
)

// TestExplainMatVecPath: explain says which matvec, dequant and matmul path
// a format takes and why, from the spec: the integer form's sub-block and
// functions, or the spec's reason for having none; whether the form
// reproduces Dequant bit for bit.
func TestExplainMatVecPath(t *testing.T) {
	root := modtest.Root(t)
	for _, c := range []struct{ format, want string }{
		{"Q4_K", "integer form: sub-blocks of 32, codes four int8 to a 32-bit word (forge_BlockQ4_K_Codes, word loads assume 4-byte aligned blocks), a scale (forge_BlockQ4_K_Scale) and an offset per sub-block (forge_BlockQ4_K_Offset); matvec_x8 uses it"},
		{"q6_k", "integer form: sub-blocks of 16,"},
		{"Q4_K", "integer form: sub-blocks of 32, codes four int8 to a 32-bit word (forge_BlockQ4_K_Codes, word loads assume 4-byte aligned blocks), a scale (forge_BlockQ4_K_Scale) and an offset per sub-block (forge_BlockQ4_K_Offset); matvec_x8 uses it (activations quantized to 8 bits per 32, 4-way integer dot products); a super form: each scale an int8-range integer (forge_BlockQ4_K_SubScale) times the block's scale (forge_BlockQ4_K_SuperScale), each offset likewise (forge_BlockQ4_K_SubOffset, forge_BlockQ4_K_SuperOffset)"},
		{"Q8_0", "integer form: sub-blocks of 32, codes four int8 to a 32-bit word (forge_BlockQ8_0_Codes, word loads assume 2-byte aligned blocks), a scale (forge_BlockQ8_0_Scale) and no offset; matvec_x8 uses it"},
		{"MXFP6_E3M2", "no integer form: its values times 16 (the inverse of its smallest step, 1/16) reach 448, beyond int8 codes; matvec takes the f32 path"},
		{"F16", "no integer form: a float format: its values are not integer codes times a per-sub-block scale; matvec takes the f32 path"},
		// and which dequant path:
		{"Q4_K", "dequant takes the integer form (one word of four codes per four elements): Scale·code + Offset is Dequant bit for bit (Meta.IntExact)"},
		{"Q6_K", "dequant takes the integer form (one word of four codes per four elements): (code − 32)·Scale is Dequant's own arithmetic, bit for bit (Meta.IntZero)"},
		{"Q1_0", "dequant calls Dequant per element: Scale·code + Offset differs from it in the sign of a zero"},
		{"F16", "dequant calls Dequant per element"},
		// and which matmul path:
		{"Q4_0", "matmul takes the integer path on gfx1030 (dot4), gfx1100 (WMMA), gfx90a (MFMA), sm_90 (mma.sync) (MatMulInt): X quantized to 8 bits per 32, W decoded in shared memory to int8 codes, int8 products scaled per 32-element sub-block, codes minus 8 (Meta.IntZero), so no offset term;"},
		{"Q4_K", "matmul takes the integer path on gfx1030 (dot4), gfx1100 (WMMA), gfx90a (MFMA), sm_90 (mma.sync) (MatMulInt): X quantized to 8 bits per 32, W decoded in shared memory to int8 codes, int8 products scaled per 32-element sub-block, an offset term from X's sums per 16;"},
		{"Q8_0", "matmul takes the integer path on gfx1030 (dot4), gfx1100 (WMMA), gfx90a (MFMA), sm_90 (mma.sync) (MatMulInt): X quantized to 8 bits per 32, W decoded in shared memory to int8 codes, int8 products scaled per 32-element sub-block, no offset term;"},
		{"Q6_K", "matmul takes the integer path on gfx1030 (dot4), gfx1100 (WMMA), gfx90a (MFMA), sm_90 (mma.sync) (MatMulInt): X quantized to 8 bits per 32, W decoded in shared memory to int8 codes, int8 products scaled per 16-element sub-block, codes minus 32 (Meta.IntZero), so no offset term;"},
		{"F16", "matmul takes the mma.sync f16 path on sm_90 (MatMulHalf): X converted to f16, W's rows and X by cp.async, mma.sync m16n8k16 with f32 accumulation; Dequant per element elsewhere (the f16 tensor-core path on gfx1100, gfx90a, the f32 path on the rest) and for a launch that path cannot take; on sm_90 (WGMMA) Hopper's wgmma instead: tiles of 128 rows as wide as the batch to 64 columns"},
		{"Q4_K", "matmul takes the integer path on gfx1030 (dot4), gfx1100 (WMMA), gfx90a (MFMA), sm_90 (mma.sync) (MatMulInt): X quantized to 8 bits per 32, W decoded in shared memory to int8 codes, int8 products scaled per 32-element sub-block, an offset term from X's sums per 16; Dequant per element on the other targets and for a launch that path cannot take; the K-quant-style super form instead (SuperScale, SubScale): X quantized per 256-element block, a block's code·SubScale products (and SubOffset·sum terms) summed in int32 and scaled once a block (NVIDIA: warp tiles of at most 8 16×8 pieces, a larger one has its columns halved; -DFORGE_MM_INT_SUPER=0: the plain form); in the classes up to batch 16 and 64 on sm_90 (MatMulIntF16, each class's int8 knob 0) the integer form is decoded to f16 in mma.sync's fragments instead of int8 products (X converted to f16, each lane's codes to f16 scale·code + offset, no scaling per sub-block); from batch 65 on sm_90 (MatMulF16MinBatch) W is dequantized once to f16 (dequant_f16) and multiplied by F16's product (wgmma where the target has WGMMA, mma.sync elsewhere); with -DFORGE_MM_WGMMA_Q (experimental, sm_90) wgmma with W dequantized inside the product through the integer form instead"},
		{"BF16", "matmul calls Dequant per element (the f16 tensor-core path on gfx1100, gfx90a, sm_90, the f32 path elsewhere)"},
		// a quantized format without the integer form: the route through f16 on sm_90 all the same
		{"MXFP6_E3M2", "matmul calls Dequant per element (the f16 tensor-core path on gfx1100, gfx90a, sm_90, the f32 path elsewhere); from batch 65 on sm_90 (MatMulF16MinBatch) W is dequantized once to f16 (dequant_f16) and multiplied by F16's product (wgmma where the target has WGMMA, mma.sync elsewhere)"},
	} {
		code, stdout, stderr := forgegen(t, "--root", root, "explain", c.format)
		if code != 0 {
			t.Errorf("explain %s: exit %d\n%s", c.format, code, stderr)
			continue
		}
		if !strings.Contains(stdout, "\n"+c.want) {
			t.Errorf("explain %s: no line starting %q in:\n%s", c.format, c.want, stdout[:min(len(stdout), 1200)])
		}
	}
}

// TestExplainIntF16Choice: which integer-path classes take the f16
// fragments on sm_90 is each class's int8 knob, from the winners file
// where a format has one (Q3_K and Q6_K keep the int8 products there),
// and explain says so.
func TestExplainIntF16Choice(t *testing.T) {
	root := modtest.Root(t)
	for _, c := range []struct {
		format      string
		want, avoid string
	}{
		{"Q3_K", "; on sm_90 it keeps the int8 products in every class (their int8 knob is 1", "in the classes up to batch"},
		{"Q6_K", "; on sm_90 it keeps the int8 products in every class (their int8 knob is 1", "in the classes up to batch"},
		{"Q4_0", "; in the classes up to batch 16 and 64 on sm_90 (MatMulIntF16, each class's int8 knob 0)", "keeps the int8 products"},
	} {
		code, stdout, stderr := forgegen(t, "--root", root, "explain", c.format)
		if code != 0 {
			t.Errorf("explain %s: exit %d\n%s", c.format, code, stderr)
			continue
		}
		if !strings.Contains(stdout, c.want) || strings.Contains(stdout, c.avoid) {
			t.Errorf("explain %s: want %q and not %q in:\n%s", c.format, c.want, c.avoid, stdout)
		}
	}
}

// TestListTargets: list names each target's matrix instructions: the int8
// product of matmul's integer path and the f16 tensor-core paths'.
func TestListTargets(t *testing.T) {
	code, stdout, stderr := forgegen(t, "--root", modtest.Root(t), "list")
	if code != 0 {
		t.Fatalf("list: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"INT8 MATMUL", "F16 TENSOR CORES"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("list lacks the column %q", want)
		}
	}
	for _, c := range []struct{ target, i8, f16 string }{{"gfx1030", "dot4", "-"}, {"gfx1100", "WMMA", "WMMA"}, {"gfx90a", "MFMA", "MFMA"}, {"sm_90", "mma.sync", "wmma"}} {
		found := false
		for _, line := range strings.Split(stdout, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == c.target {
				found = true
				if !strings.Contains(line, " "+c.i8+" ") || !strings.Contains(line, " "+c.f16+" ") {
					t.Errorf("%s: %q lacks %s and %s", c.target, line, c.i8, c.f16)
				}
			}
		}
		if !found {
			t.Errorf("list has no line for %s:\n%s", c.target, stdout)
		}
	}
}
