package hipgen_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rocmforge/forge/internal/longtest"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// matvecTunes are the tunings TestMatVecKernelHost runs at: the launcher's
// own (the target spec's, per shape class, and the integer path's per-format
// default), and an odd one for both kernels: 64 threads (a single wave on
// gfx90a, so the one-wave reduction runs too), 3 rows per workgroup (row
// groups that straddle the end at most shapes) and, for matvec_f32, chunks
// of 32 (a whole 32-element block copied to registers; tails of the scalar
// formats' odd columns); and, for the formats whose blocks hold several
// 32-element groups (minGroups), matvec_x8 with several groups per lane:
// 4 groups of 2 lanes each, and 8 groups (a whole super-block) of one.
var matvecTunes = []struct {
	name      string
	flags     []string
	minGroups int // run only the formats with at least this many 32-element groups per block
}{
	{"spec", nil, 0},
	{"odd", []string{"-DFORGE_TUNE_MATVEC_THREADS=64", "-DFORGE_TUNE_MATVEC_ROWS=3", "-DFORGE_TUNE_MATVEC_CHUNK=32",
		"-DFORGE_TUNE_MATVEC_X8_THREADS=64", "-DFORGE_TUNE_MATVEC_X8_ROWS=3", "-DFORGE_TUNE_MATVEC_X8_LANES=8"}, 0},
	{"groups4", []string{"-DFORGE_TUNE_MATVEC_X8_THREADS=64", "-DFORGE_TUNE_MATVEC_X8_ROWS=3",
		"-DFORGE_TUNE_MATVEC_X8_LANES=2", "-DFORGE_TUNE_MATVEC_X8_GROUPS=4"}, 8},
	{"groups8", []string{"-DFORGE_TUNE_MATVEC_X8_THREADS=128", "-DFORGE_TUNE_MATVEC_X8_ROWS=2",
		"-DFORGE_TUNE_MATVEC_X8_LANES=1", "-DFORGE_TUNE_MATVEC_X8_GROUPS=8"}, 8},
}

// matvecFormats run in every run of TestMatVecKernelHost: a 32-element
// block (Q4_0), 256-element super-blocks with 32-element (Q4_K) and
// 16-element (Q6_K) sub-blocks, all three with offsets; a table-coded block
// without offsets (MXFP4); and a scalar format (F32, which has no integer
// form). The other formats run with the long tests.
var matvecFormats = map[string]bool{"Q4_0": true, "Q4_K": true, "Q6_K": true, "MXFP4": true, "F32": true}

// matvecShapes are the shapes every format runs on: rows that are
// multiples of nothing a kernel tiles by, and one row (a row group almost
// all past the end); cols of one block, a few, none, and, in the 1003-row
// shape, at least 4096 elements (rounded up to whole blocks), so that
// every thread of a workgroup, every lane of a 64-lane wave included, has
// blocks of the integer path and chunks of the f32 path to add. A scalar
// format's cols are scalarCols: odd (a tail past the last whole chunk) and
// a multiple of 16 (the vector path).
var matvecShapes = []struct{ rows, blocks, minCols, scalarCols int }{
	{37, 1, 0, 111}, {64, 3, 0, 37}, {1003, 0, 4096, 4608}, {1, 5, 0, 185}, {5, 0, 0, 0},
}

// TestMatVecKernelHost runs the matvec kernels, as generated from the real
// specs for gfx1100 (wave32) and gfx90a (wave64), on the host (emuHost):
// every format (matvecFormats unless FORGE_LONG_TESTS=1) at every tuning
// of matvecTunes, on matvecShapes.
//
// matvec_f32 is checked against the float64 reference (suite.MatVecRef)
// as the matvec suite checks it: NMSE within suite.MatVecTolerance and
// every row within suite.MatVecRowTolerance of its magnitude.
//
// For a format with an integer form, x is quantized by the emulated
// forge_glue_quantize_x8 of the same target, whose X8 bytes must equal
// formats.QuantizeX8's in the device layout (suite.X8Layout) bit for bit;
// then forge_matvec_x8_<format> runs on them, from a 16-byte aligned
// buffer (the launcher's vector loads) and from one 4 bytes past it (its
// unaligned path). Each row must agree with formats.DotX8, the Go integer
// form, within x8SumBound, and the result must pass the suites' matvec_x8
// check: NMSE within suite.MatVecX8Tolerance over shapes of at least
// suite.MatVecX8MinRows rows, every row within suite.MatVecX8Bounds.
//
// W, x and xq end just before an inaccessible page and y is followed by
// canaries (testdata/matvec_emu_main.cc), so that a missing row guard
// fails; x holds quantization ties and a zero group (matvecData.get).
// The formats a tuning runs are compiled together, as one translation
// unit; the glue once per target.
func TestMatVecKernelHost(t *testing.T) {
	e := newEmuHost(t)
	type format struct {
		*formats.Format
		lower string
	}
	var all []format
	for _, spec := range e.spec.Formats {
		f, ok := formats.ByName(spec.Name)
		if !ok {
			t.Errorf("%s: no format %s in specs/formats", spec.File, spec.Name)
			continue
		}
		all = append(all, format{f, spec.Lower()})
	}
	if len(all) == 0 {
		t.Fatal("no formats rendered")
	}
	data := &matvecData{}
	for _, target := range []string{"gfx1100", "gfx90a"} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			glue := e.compile(t, e.source(t, target, "glue.hip"), "glue_"+target+".o")
			for _, tune := range matvecTunes {
				t.Run(tune.name, func(t *testing.T) {
					t.Parallel()
					var files []string
					run := map[string]bool{}
					for _, f := range all {
						if f.BlockElems/32 < tune.minGroups {
							continue
						}
						if matvecFormats[f.Name] || longtest.Enabled() {
							run[f.Name] = true
							files = append(files, f.lower+"_matvec.hip")
						}
					}
					name := "matvec_" + target + "_" + tune.name
					exe := e.link(t, "matvec", name, e.unity(t, target, files, name, tune.flags...), glue)
					for _, f := range all {
						if f.BlockElems/32 < tune.minGroups {
							continue
						}
						t.Run(f.Name, func(t *testing.T) {
							if !run[f.Name] {
								longtest.Skip(t, "the matvec kernels of every format, emulated")
							}
							for _, sh := range matvecShapes {
								rows, cols := sh.rows, max(sh.blocks, (sh.minCols+f.BlockElems-1)/f.BlockElems)*f.BlockElems
								if f.BlockElems == 1 {
									cols = sh.scalarCols
								}
								in := data.get(t, f.Format, rows, cols)
								if tune.minGroups == 0 { // the groups tunings change matvec_x8 alone
									runHostMatVec(t, e, exe, "forge_matvec_f32_"+f.lower, in)
								}
								if f.HasIntForm() {
									for _, offset := range []int{0, 4} {
										runHostMatVecX8(t, e, exe, "forge_matvec_x8_"+f.lower, in, offset)
									}
								}
							}
						})
					}
				})
			}
		})
	}
}

// matvecInput is one matvec problem and what the checks compare with,
// computed once for every target and tuning that runs it.
type matvecInput struct {
	f          *formats.Format
	rows, cols int
	w          []byte
	x          []float32
	ref, mag   []float64 // suite.MatVecRef
	write      sync.Once // of wp and xp: the runs share them (one emuHost)
	wp, xp     string    // w and x in the scratch directory
	x8         []byte    // suite.X8Layout(formats.QuantizeX8(x))
	dot        []float32 // formats.DotX8 per row
	dotBound   []float64 // x8SumBound per row
	x8Bound    []float64 // suite.MatVecX8Bounds
}

type matvecData struct {
	mu sync.Mutex
	m  map[string]*matvecInput
}

func (d *matvecData) get(t *testing.T, f *formats.Format, rows, cols int) *matvecInput {
	t.Helper()
	key := fmt.Sprintf("%s_%d_%d", f.Name, rows, cols)
	d.mu.Lock()
	defer d.mu.Unlock()
	if in := d.m[key]; in != nil {
		return in
	}
	w, x, err := suite.MatVecData(f, rows, cols, suite.Seed(f.Name)+uint64(rows)<<20+uint64(cols))
	if err != nil {
		t.Fatalf("%s %d×%d: %v", f.Name, rows, cols, err)
	}
	// The first 32 elements are ties for the quantization: with amax
	// 127/128 the step D is 1/128 exactly, and ±(i+0.5)/128 are halfway
	// between codes (which QuantizeX8 rounds away from zero). The next 32
	// are zeros (D = 0: codes and sums 0).
	if cols >= 64 {
		x[0] = 127.0 / 128
		for i := 1; i < 32; i++ {
			x[i] = (float32(i) + 0.5) / 128
			if i%2 == 0 {
				x[i] = -x[i]
			}
		}
		clear(x[32:64])
	}
	in := &matvecInput{f: f, rows: rows, cols: cols, w: w, x: x}
	in.ref, in.mag = suite.MatVecRef(f, w, x, rows, cols)
	if f.HasIntForm() {
		q := formats.QuantizeX8(x)
		in.x8 = suite.X8Layout(q)
		if len(in.x8) != formats.X8Bytes(cols) {
			t.Fatalf("suite.X8Layout: %d bytes for %d elements, formats.X8Bytes says %d", len(in.x8), cols, formats.X8Bytes(cols))
		}
		rowBytes := len(w) / max(rows, 1)
		for r := range rows {
			row := w[r*rowBytes : (r+1)*rowBytes]
			in.dot = append(in.dot, f.DotX8(row, q))
			in.dotBound = append(in.dotBound, x8SumBound(f, row, q))
		}
		in.x8Bound = suite.MatVecX8Bounds(f, w, x, rows, cols)
	}
	if d.m == nil {
		d.m = map[string]*matvecInput{}
	}
	d.m[key] = in
	return in
}

func (in *matvecInput) String() string { return fmt.Sprintf("%s %d×%d", in.f.Name, in.rows, in.cols) }

// files writes w and x to e's scratch directory, once (the runs of every
// target and tuning read them, some at the same time).
func (in *matvecInput) files(t *testing.T, e *emuHost) (wp, xp string) {
	t.Helper()
	in.write.Do(func() {
		base := fmt.Sprintf("mv_%s_%d_%d", in.f.Name, in.rows, in.cols)
		in.wp, in.xp = e.write(t, base+".w", in.w), e.write(t, base+".x", f32Bytes(in.x))
	})
	if in.wp == "" {
		t.Fatalf("%s: the inputs were not written (see the first failure)", in)
	}
	return in.wp, in.xp
}

// x8SumBound bounds |kernel − formats.DotX8| for one row. DotX8 adds a
// sub-block's Scale·D·Σcode·Q, and its Offset·S where the form has
// offsets; the kernel adds the same, except that with several lanes per
// 32-element group each lane adds its own words' share Scale·D·Σ_piece,
// so a sub-block's first term is split into up to one piece per 32-bit
// word. Bounding at that finest split covers every lanes setting: M is
// the sum of the absolute values of the per-word terms and the offset
// terms (at least either side's absolute sum, |Σ| ≤ Σ|·|), and N their
// count, each computed with at most three roundings (the scale product,
// the term product, and for 32-element sub-blocks the sum of two S), in
// different orders and with or without fused multiply-adds. A recursive
// float32 sum of N terms, in any order, is within (N−1)·u of their
// absolute sum (u = 2^-24), so each side is within (N+2)·u·M of the exact
// sum and the two within 2·(N+3)·u·M. A wrong term (a sub-block's scale,
// offset or codes, a wrong x group) moves the result by about M/N, far
// more than the bound at the shapes here.
func x8SumBound(f *formats.Format, row []byte, q formats.X8) float64 {
	const u = 1.0 / (1 << 24)
	var m float64
	n := 0
	for b := 0; b < len(row)/f.BlockBytes; b++ {
		blk := row[b*f.BlockBytes:]
		for s := int32(0); s < int32(f.BlockElems/f.SubBlock); s++ {
			e := b*f.BlockElems + int(s)*f.SubBlock
			for w := s * int32(f.SubBlock/4); w < (s+1)*int32(f.SubBlock/4); w++ {
				k := b*f.BlockElems + 4*int(w)
				xw := uint32(uint8(q.Q[k])) | uint32(uint8(q.Q[k+1]))<<8 | uint32(uint8(q.Q[k+2]))<<16 | uint32(uint8(q.Q[k+3]))<<24
				m += math.Abs(float64(f.IntScale(blk, s)) * float64(q.D[e/32]) * float64(formats.Dot4(f.IntCodes(blk, w), xw, 0)))
				n++
			}
			if f.HasIntOffset() {
				ssub := float64(q.S[e/16])
				if f.SubBlock == 32 {
					ssub += float64(q.S[e/16+1])
				}
				m += math.Abs(float64(f.IntOffset(blk, s)) * ssub)
				n++
			}
		}
	}
	return 2 * float64(n+3) * u * m
}

// matvecRun runs the emulation executable and reads y back.
func matvecRun(t *testing.T, e *emuHost, exe string, in *matvecInput, wantLaunches int, yp string, args ...any) []float32 {
	t.Helper()
	all := append(args, in.rows, in.cols)
	if out, want := e.run(t, exe, all...), launched(0, wantLaunches); out != want {
		t.Fatalf("%s %v: %q, want %q", in, args[:2], out, want)
	}
	y := readFloats(t, yp)
	if len(y) != in.rows {
		t.Fatalf("%s: %d values of y, want %d", in, len(y), in.rows)
	}
	return y
}

func runHostMatVec(t *testing.T, e *emuHost, exe, launcher string, in *matvecInput) {
	t.Helper()
	wp, xp := in.files(t, e)
	yp := filepath.Join(e.dir, fmt.Sprintf("%s_%s_%d_%d.y", filepath.Base(exe), launcher, in.rows, in.cols))
	y := matvecRun(t, e, exe, in, 1, yp, "f32", launcher, wp, xp, yp)
	if nmse, bad := suite.NMSE(y, in.ref), suite.BadRows(y, in.ref, in.mag); !(nmse <= suite.MatVecTolerance) || bad > 0 {
		t.Errorf("%s: %s: NMSE %.3g (bound %g), %d rows off by more than %g of their magnitude; worst:%s",
			launcher, in, nmse, suite.MatVecTolerance, bad, suite.MatVecRowTolerance, worstRows(y, in.ref))
	}
}

func runHostMatVecX8(t *testing.T, e *emuHost, exe, launcher string, in *matvecInput, offset int) {
	t.Helper()
	wp, xp := in.files(t, e)
	base := filepath.Join(e.dir, fmt.Sprintf("%s_%s_%d_%d_%d", filepath.Base(exe), launcher, in.rows, in.cols, offset))
	launches := 1
	if in.cols > 0 {
		launches++ // the quantization
	}
	what := fmt.Sprintf("%s: %s, xq 16-byte aligned + %d", launcher, in, offset)
	y := matvecRun(t, e, exe, in, launches, base+".y", "x8", launcher, wp, xp, base+".xq", base+".y", offset)
	xq, err := os.ReadFile(base + ".xq")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(xq, in.x8) {
		t.Errorf("%s: forge_glue_quantize_x8 wrote %s", what, x8Diff(xq, in.x8, in.cols))
	}
	for r, got := range y {
		if d := math.Abs(float64(got) - float64(in.dot[r])); !(d <= in.dotBound[r]) {
			t.Errorf("%s: row %d is %g, formats.DotX8 %g (|difference| %.3g, bound %.3g)", what, r, got, in.dot[r], d, in.dotBound[r])
			break
		}
	}
	nmse, bad := suite.NMSE(y, in.ref), suite.BadRowsX8(y, in.ref, in.x8Bound)
	if (in.rows >= suite.MatVecX8MinRows && !(nmse <= suite.MatVecX8Tolerance)) || bad > 0 {
		t.Errorf("%s: NMSE %.3g (bound %g from %d rows), %d rows past their quantization bound; worst:%s",
			what, nmse, suite.MatVecX8Tolerance, suite.MatVecX8MinRows, bad, worstRows(y, in.ref))
	}
}

func worstRows(y []float32, ref []float64) string {
	var s string
	for _, e := range suite.WorstRows(y, ref, 5) {
		s += "\n\t" + e.String()
	}
	return s
}

// x8Diff describes the first difference between X8 layouts of n elements.
func x8Diff(got, want []byte, n int) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] == want[i] {
			continue
		}
		switch {
		case i < n:
			return fmt.Sprintf("code %d = %d, want %d (formats.QuantizeX8)", i, int8(got[i]), int8(want[i]))
		case i < n+n/8:
			g := (i - n) / 4
			return fmt.Sprintf("scale D[%d] = %g, want %g", g, x8Float(got, n+4*g), x8Float(want, n+4*g))
		default:
			h := (i - n - n/8) / 4
			return fmt.Sprintf("sum S[%d] = %g, want %g", h, x8Float(got, n+n/8+4*h), x8Float(want, n+n/8+4*h))
		}
	}
	return "the same bytes"
}

func x8Float(b []byte, i int) float32 {
	return math.Float32frombits(uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24)
}
