package hip

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"text/template"

	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/specs/formats"
)

// The embedded set is what gen/hipgen expects.
func TestFS(t *testing.T) {
	for _, name := range []string{"forge_portability.h", "dequant.hip.tmpl", "runtime.hip.tmpl"} {
		if _, err := fs.Stat(FS, name); err != nil {
			t.Error(err)
		}
	}
	// Every template parses with the functions hipgen provides.
	tmpls, _ := fs.Glob(FS, "*.tmpl")
	for _, name := range tmpls {
		src, _ := fs.ReadFile(FS, name)
		if _, err := template.New(name).Funcs(template.FuncMap{"lineReset": func() string { return "" }}).Parse(string(src)); err != nil {
			t.Error(err)
		}
	}
}

// f32ToHalfInputs are the float32 bit patterns the f32→f16 rounding is
// checked on: every binary16 value, the midpoint (the rounding tie) between
// each pair of neighbours and the float32s either side of both, the
// thresholds of HalfFromFloat32's cases, NaNs, infinities, float32
// subnormals, a stride through all 2^32 patterns and random ones; each with
// both signs.
func f32ToHalfInputs() []uint32 {
	var in []uint32
	add := func(u ...uint32) {
		for _, x := range u {
			in = append(in, x, x^0x80000000)
		}
	}
	for h := uint32(0); h < 0x7c00; h++ {
		f := math.Float32bits(formats.Half(h).Float32())
		var next float64 = 65536 // the first value that would round past 0x7BFF with unbounded exponent
		if h+1 < 0x7c00 {
			next = float64(formats.Half(h + 1).Float32())
		}
		mid := math.Float32bits(float32((float64(formats.Half(h).Float32()) + next) / 2))
		add(f, f+1, mid-1, mid, mid+1)
		if f > 0 {
			add(f - 1)
		}
	}
	for _, edge := range []uint32{0x477ff000, 0x38800000, 0x38000000, 0x33000000, 0x33800000, 0x7f800000, 0x7f7fffff} {
		for d := uint32(0); d < 64; d++ {
			add(edge+d, edge-d)
		}
	}
	add(0x7f800001, 0x7fc00000, 0x7fffffff, 0x7fa00000, 0x7fe00001, 0x00000001, 0x007fffff, 0x00400000, 0)
	for u := uint64(0); u < 1<<31; u += 32749 {
		add(uint32(u))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		in = append(in, r.Uint32())
	}
	return in
}

// TestIntrinsicsMatchGo compiles the header's scalar intrinsics for the
// host with hipcc and compares them with the Go specs: every half, bfloat16
// and E8M0 input, and the f32→f16 rounding on f32ToHalfInputs.
func TestIntrinsicsMatchGo(t *testing.T) {
	hipcc := hiptest.HIPCC(t)
	cxx := hiptest.CXX(t)
	tmp := t.TempDir()
	src, err := filepath.Abs(filepath.Join("testdata", "intrinsics_main.cc"))
	if err != nil {
		t.Fatal(err)
	}
	// -x hip: the .cc is HIP source; host-only, so no device code or
	// runtime is involved, and the object links with a plain C++ compiler.
	hiptest.Run(t, tmp, hipcc, "--offload-arch=gfx1030", "--cuda-host-only", "-x", "hip", "-O2",
		"-ffp-contract=off", "-Wall", "-Wextra", "-Werror", "-Wno-unused-command-line-argument",
		"-c", src, "-o", "intrinsics.o")
	hiptest.Run(t, tmp, cxx, "intrinsics.o", "-o", "intrinsics")

	in := f32ToHalfInputs()
	buf := make([]byte, 4*len(in))
	for i, x := range in {
		binary.LittleEndian.PutUint32(buf[4*i:], x)
	}
	if err := os.WriteFile(filepath.Join(tmp, "in"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	hiptest.Run(t, tmp, "./intrinsics", "in", "out")
	out, err := os.ReadFile(filepath.Join(tmp, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if want := 4*(65536+65536+256+256) + 2*len(in); len(out) != want {
		t.Fatalf("output %d bytes, want %d", len(out), want)
	}
	u32 := func(i int) uint32 { return binary.LittleEndian.Uint32(out[4*i:]) }
	bad := 0
	report := func(format string, args ...any) {
		if bad++; bad <= 20 {
			t.Errorf(format, args...)
		}
	}
	for h := range 65536 {
		if got, want := u32(h), math.Float32bits(formats.Half(h).Float32()); got != want {
			report("forge_half_to_f32(%#04x) = %#08x, Half.Float32 = %#08x", h, got, want)
		}
		if got, want := u32(65536+h), math.Float32bits(formats.BFloat16(h).Float32()); got != want {
			report("forge_bf16_to_f32(%#04x) = %#08x, BFloat16.Float32 = %#08x", h, got, want)
		}
	}
	for e := range 256 {
		if got, want := u32(2*65536+e), math.Float32bits(formats.E8M0(e).Float32()); got != want {
			report("forge_e8m0_to_f32(%d) = %#08x, E8M0.Float32 = %#08x", e, got, want)
		}
		if got, want := u32(2*65536+256+e), math.Float32bits(formats.E8M0(e).HalfScale()); got != want {
			report("forge_e8m0_half_scale(%d) = %#08x, E8M0.HalfScale = %#08x", e, got, want)
		}
	}
	halves := out[4*(2*65536+512):]
	for i, x := range in {
		got := binary.LittleEndian.Uint16(halves[2*i:])
		if want := uint16(formats.HalfFromFloat32(math.Float32frombits(x))); got != want {
			report("forge_f32_to_half(%#08x) = %#04x, HalfFromFloat32 = %#04x", x, got, want)
		}
	}
	if bad > 0 {
		t.Fatalf("%d mismatches", bad)
	}
	t.Logf("checked 131072 half/bf16, 512 e8m0 and %d f32→f16 inputs", len(in))
}

// TestHeaderCompiles compiles testdata/smoke.hip, which uses every facility
// of the header in device code, for each AMD target through
// .ci/hipcc-check (warnings as errors, wave size checked).
func TestHeaderCompiles(t *testing.T) {
	hiptest.HIPCC(t)
	tmp := t.TempDir()
	hdr, err := fs.ReadFile(FS, "forge_portability.h")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "forge_portability.h"), hdr, 0o644); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join("testdata", "smoke.hip"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]int{"gfx1030": 32, "gfx1100": 32, "gfx90a": 64}
	for target, wave := range targets {
		src := fmt.Sprintf("#define FORGE_TARGET %q\n#define FORGE_TARGET_WAVE_SIZE %d\n#include \"../forge_portability.h\"\n%s", target, wave, body)
		if err := os.MkdirAll(filepath.Join(tmp, target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, target, "smoke.hip"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, ok := hiptest.Check(t, tmp)
	t.Logf("hipcc-check:\n%s", out)
	if !ok {
		t.Fatal("hipcc-check failed")
	}
	for target, wave := range targets {
		re := fmt.Sprintf(`(?m)^ok .*  %s/smoke\.hip  .*; 1 kernels, wave%d\)`, target, wave)
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no line matching %q", re)
		}
	}
	if strings.Contains(out, "FAIL") {
		t.Error("a file failed")
	}
}
