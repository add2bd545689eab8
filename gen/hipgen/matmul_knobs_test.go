package hipgen_test

import (
	"regexp"
	"testing"

	"github.com/rocmforge/forge/gen"
	"github.com/rocmforge/forge/internal/modtest"
)

// TestMatMulIntOffsetWarpRows: a MatMulInt class's OffsetWarpRows is the
// WARP_ROWS of the formats whose integer form leaves an offset term, and
// WarpRows that of the others (sm_90's batch <= 64 class: 2 and 8).
func TestMatMulIntOffsetWarpRows(t *testing.T) {
	_, files, err := gen.Render(modtest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string][]byte{}
	for _, f := range files {
		byPath[f.Path] = f.Data
	}
	re := regexp.MustCompile(`(?m)^#define FORGE_TUNE_MATMUL_INT_UPTO64_WARP_ROWS (\d+)`)
	for file, want := range map[string]string{
		"q4_0": "8", "q8_0": "8", "q6_k": "8", "q3_k": "8", "mxfp4": "8", // no offset term (or IntZero)
		"q4_1": "2", "q5_1": "2", "q2_k": "2", "q4_k": "2", "q5_k": "2", // an offset term
	} {
		p := "generated/hip/sm_90/" + file + "_matmul.hip"
		data, ok := byPath[p]
		if !ok {
			t.Errorf("%s not rendered", p)
			continue
		}
		m := re.FindSubmatch(data)
		if m == nil || string(m[1]) != want {
			t.Errorf("%s: UPTO64_WARP_ROWS %q, want %s", p, m, want)
		}
	}
}
