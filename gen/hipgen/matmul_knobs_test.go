package hipgen_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen"
	"github.com/rocmforge/forge/internal/modtest"
)

// TestMatMulIntOffsetWarpRows: a MatMulInt class's OffsetWarpRows is the
// WARP_ROWS of the formats whose integer form leaves an offset term, and
// WarpRows that of the others (sm_90's batch <= 64 class: 2 and 8), for
// the formats no tuned winner overrides; a format with a winner for the
// class (specs/tuned/sm_90.json's matmul_int b64) takes the winner's.
func TestMatMulIntOffsetWarpRows(t *testing.T) {
	root := modtest.Root(t)
	_, files, err := gen.Render(root)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string][]byte{}
	for _, f := range files {
		byPath[f.Path] = f.Data
	}
	want := map[string]string{
		"iq4_nl": "8", "nvfp4": "8", "q8_k": "8", // no offset term
		"q1_0": "2", // an offset term
	}
	data, err := os.ReadFile(filepath.Join(root, "specs", "tuned", "sm_90.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tunedFile struct {
		Families map[string]map[string]map[string]struct {
			Knobs map[string]int `json:"knobs"`
		} `json:"families"`
	}
	if err := json.Unmarshal(data, &tunedFile); err != nil {
		t.Fatal(err)
	}
	for format, classes := range tunedFile.Families["matmul_int"] {
		if c, ok := classes["b64"]; ok {
			lower := strings.ToLower(format)
			if _, clash := want[lower]; clash {
				t.Fatalf("%s has a tuned b64 winner: pick an untuned format for the spec's rule", format)
			}
			want[lower] = strconv.Itoa(c.Knobs["warp_rows"])
		}
	}
	if len(want) < 8 {
		t.Fatalf("%d formats to check: specs/tuned/sm_90.json lost its matmul_int winners?", len(want))
	}
	re := regexp.MustCompile(`(?m)^#define FORGE_TUNE_MATMUL_INT_UPTO64_WARP_ROWS (\d+)`)
	for file, w := range want {
		p := "generated/hip/sm_90/" + file + "_matmul.hip"
		data, ok := byPath[p]
		if !ok {
			t.Errorf("%s not rendered", p)
			continue
		}
		m := re.FindSubmatch(data)
		if m == nil || string(m[1]) != w {
			t.Errorf("%s: UPTO64_WARP_ROWS %q, want %s", p, m, w)
		}
	}
}
