package family

import (
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/families"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/templates/hip"
)

// The two halves of a family, keyed by its name, cannot drift: every spec
// entry (specs/families, attention's included) has a template and a
// run-time descriptor here, every descriptor a spec entry, and both name
// the same launcher signatures.
func TestDescriptorsMatchSpecs(t *testing.T) {
	specs := append(families.All(), families.Attention.Family())
	for _, sp := range specs {
		d, ok := ByName(sp.Name)
		if !ok {
			t.Errorf("family %s (specs/families) has no run-time descriptor in runtime/suite/family", sp.Name)
			continue
		}
		if d.Spec == nil || d.Spec.Name != sp.Name {
			t.Errorf("family %s: descriptor's spec %+v", sp.Name, d.Spec)
		}
		sigs := map[string]bool{}
		for _, k := range sp.Kernels {
			sigs[sp.SignatureOf(k)] = true
		}
		if got, want := slices.Sorted(slices.Values(d.Signatures)), slices.Sorted(maps.Keys(sigs)); !slices.Equal(got, want) {
			t.Errorf("family %s: the descriptor names signatures %v, the spec's kernels have %v", sp.Name, got, want)
		}
		if _, err := fs.Stat(hip.FS, sp.Name+".hip.tmpl"); err != nil {
			t.Errorf("family %s: no template templates/hip/%s.hip.tmpl: %v", sp.Name, sp.Name, err)
		}
		// A format family's suites are checked and measured here; a shared
		// one's run in scenario suites.
		if !sp.Shared && (d.Check == nil || d.Measure == nil || d.Runs == nil) {
			t.Errorf("family %s is format-specific but its descriptor cannot check or measure its suites", sp.Name)
		}
		if len(sp.Bench.CPU) > 0 != (d.Dims != nil) {
			t.Errorf("family %s: spec benchmark shapes %v, descriptor dimensions %v", sp.Name, sp.Bench, d.Dims)
		}
		for _, sh := range append(sp.Bench.CPU, sp.Bench.Device...) {
			if len(sh.Dims) != len(d.Dims) {
				t.Errorf("family %s: shape %s has %d dimensions, want %v", sp.Name, sh.Name, len(sh.Dims), d.Dims)
			}
		}
	}
	for _, d := range All() {
		if !slices.ContainsFunc(specs, func(sp *families.Family) bool { return sp.Name == d.Name }) {
			t.Errorf("descriptor %s has no spec entry in specs/families", d.Name)
		}
	}
}

// fakeHost and fakeDevice are backends for shape defaults; they run nothing.
type fakeHost struct{}

func (fakeHost) Name() string { return "fakehost" }

type fakeDevice struct{ fakeHost }

func (fakeDevice) Describe() string                            { return "fake" }
func (fakeDevice) L2Bytes() int64                              { return 1 << 20 }
func (fakeDevice) PrepareCopy(int64) (backend.Resident, error) { return nil, nil }

func TestShapes(t *testing.T) {
	t.Setenv(MatVec.EnvShape(), "")
	names := func(d *Descriptor, b backend.Backend, f *formats.Format) ([]string, [][]int) {
		t.Helper()
		shapes, err := d.Shapes(b, f)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		var dims [][]int
		for _, s := range shapes {
			n, dims = append(n, s.Name), append(dims, s.Dims)
		}
		return n, dims
	}
	n, d := names(MatVec, fakeDevice{}, formats.Q4_K)
	if !slices.Equal(n, []string{"4096x4096", "4096x14336", "14336x4096", "output"}) ||
		!slices.EqualFunc(d, [][]int{{4096, 4096}, {4096, 14336}, {14336, 4096}, {128256, 4096}}, slices.Equal) {
		t.Errorf("device shapes: %v %v", n, d)
	}
	if n, d := names(MatVec, fakeHost{}, formats.Q4_0); !slices.Equal(n, []string{"1024x1024"}) || !slices.Equal(d[0], []int{1024, 1024}) {
		t.Errorf("cpu shapes: %v %v", n, d)
	}
	if n, _ := names(MatMul, fakeDevice{}, formats.Q4_0); len(n) != 6 || n[5] != "4096x14336x512" {
		t.Errorf("matmul device shapes: %v", n)
	}
	if n, _ := names(Dequant, fakeDevice{}, formats.Q4_0); n != nil {
		t.Errorf("dequant shapes: %v, want none (an element count)", n)
	}
	if MatVec.EnvShape() != "FORGE_BENCH_MATVEC" || MatMul.EnvShape() != "FORGE_BENCH_MATMUL" {
		t.Errorf("environment: %s %s", MatVec.EnvShape(), MatMul.EnvShape())
	}
	t.Setenv(MatVec.EnvShape(), "37x600")
	if n, d := names(MatVec, fakeDevice{}, formats.Q4_K); !slices.Equal(n, []string{"37x512"}) || !slices.Equal(d[0], []int{37, 512}) {
		t.Errorf("$%s=37x600 for Q4_K: %v %v", MatVec.EnvShape(), n, d)
	}
	t.Setenv(MatVec.EnvShape(), "37")
	if _, err := MatVec.Shapes(fakeHost{}, formats.Q4_0); err == nil {
		t.Error("a bad $FORGE_BENCH_MATVEC was accepted")
	}
	t.Setenv(MatMul.EnvShape(), "64x512x8")
	if n, d := names(MatMul, fakeHost{}, formats.Q4_0); !slices.Equal(n, []string{"64x512x8"}) || !slices.Equal(d[0], []int{64, 512, 8}) {
		t.Errorf("$%s: %v %v", MatMul.EnvShape(), n, d)
	}
	// A named shape keeps its name when its columns are rounded.
	if s := suite.WholeBlockShapes(formats.Q4_K, []suite.BenchShape{{Name: "output", Dims: []int{10, 300}}}); s[0].Name != "output" || s[0].Dims[1] != 256 {
		t.Errorf("rounded named shape: %+v", s)
	}
}

func TestParseShape(t *testing.T) {
	if d, err := MatVec.ParseShape("4096x11008"); !slices.Equal(d, []int{4096, 11008}) || err != nil {
		t.Errorf("4096x11008: %v %v", d, err)
	}
	for _, bad := range []string{"", "4096", "0x5", "5x-1", "axb", "1x2x3"} {
		if _, err := MatVec.ParseShape(bad); err == nil || !strings.Contains(err.Error(), "want ROWSxCOLS, both positive, e.g. 4096x4096") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := MatMul.ParseShape("1x2"); err == nil || !strings.Contains(err.Error(), "want ROWSxCOLSxBATCH, all positive, e.g. 4096x4096x16") {
		t.Errorf("matmul 1x2: %v", err)
	}
}

func TestPlan(t *testing.T) {
	f := formats.Q4_0
	for _, tc := range []struct {
		d     *Descriptor
		shape []int
		want  string // "" for a good shape
	}{
		{Dequant, nil, ""},
		{Dequant, []int{64, 2}, ""},
		{Dequant, []int{48}, "48 elements is not a whole number of 32-element Q4_0 blocks"},
		{Dequant, []int{0}, "every dimension must be positive"},
		{MatVec, []int{37, 96}, ""},
		{MatVec, []int{37, 100}, "100 columns is not a whole number of 32-element Q4_0 blocks"},
		{MatVec, []int{3072}, "want [rows, cols], both positive"},
		{MatVec, nil, "no shape"},
		{MatMul, []int{37, 96, 5}, ""},
		{MatMul, []int{37, 96}, "want [rows, cols, batch], all positive"},
		{MatMul, []int{1 << 21, 1 << 20, 1}, "too many elements"},
	} {
		got, err := tc.d.Plan(f, tc.shape, 4096)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %v: %v", tc.d.Name, tc.shape, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %v: %v, want %q", tc.d.Name, tc.shape, err, tc.want)
		case tc.want == "" && tc.shape == nil && !slices.Equal(got, []int{4096}):
			t.Errorf("%s default shape %v", tc.d.Name, got)
		}
	}
}

// The profiler mapping: a launcher's kernel names by family.
func TestProfileKernelNames(t *testing.T) {
	if n := Dequant.Profile.KernelNames("forge_dequant_f32_q4_0"); !slices.Equal(n, []string{"forge_dequant_f32_q4_0_kernel", "forge_dequant_f32_q4_0_kernel_wmma"}) {
		t.Errorf("dequant: %v", n)
	}
	if n := Glue.Profile.KernelNames("forge_glue_rmsnorm_f32"); !slices.Equal(n, []string{"forge_glue_rmsnorm_kernel"}) {
		t.Errorf("glue: %v", n)
	}
	for _, tc := range []struct{ template, args, want string }{
		{"forge_attn_generic", "<unsigned short, 128u, 128u, 16u, 32u>(...)", "forge_attention_f16_d128"},
		{"forge_attn_generic", "<float, (unsigned int)64, ...>", "forge_attention_f32_d64"},
		{"forge_attn_wmma", "<128u, 4u, 32u>", "forge_attention_f16_d128"},
		{"forge_attn_generic", "IfLj64ELj128E", "forge_attention_f32_d64"},
		{"forge_attn_generic", "<double, 64>", ""},
		{"forge_attn_split", "<unsigned short, 128u, 128u, 4u, 4u>(...)", "forge_attention_f16_d128"},
		{"forge_attn_merge", "IfLj64EEvPKfPT_li", "forge_attention_f32_d64"},
		{"forge_attn_split_mma", "<128u, 2u, 16u>(...)", "forge_attention_f16_d128"},
	} {
		got, ok := Attention.Profile.Launcher(tc.template, tc.args)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s%s: %q, %v; want %q", tc.template, tc.args, got, ok, tc.want)
		}
	}
}

// The matvec family's kernels per format: matvec_x8 only where the format
// has an integer form; the other families' kernels whatever the format.
func TestKernelsOf(t *testing.T) {
	names := func(d *Descriptor, f *formats.Format) []string {
		var out []string
		for _, k := range d.KernelsOf(f) {
			out = append(out, k.Name)
		}
		return out
	}
	for _, f := range formats.All() {
		want := []string{"matvec_f32"}
		if f.HasIntForm() {
			want = append(want, "matvec_x8")
		}
		if got := names(MatVec, f); !slices.Equal(got, want) {
			t.Errorf("matvec kernels of %s: %v, want %v", f.Name, got, want)
		}
		if got := names(Dequant, f); !slices.Equal(got, []string{"dequant_f32", "dequant_f16"}) {
			t.Errorf("dequant kernels of %s: %v", f.Name, got)
		}
	}
	if !formats.Q4_0.HasIntForm() || formats.F16.HasIntForm() {
		t.Errorf("Q4_0 HasIntForm %v, F16 %v: the tests above need one of each", formats.Q4_0.HasIntForm(), formats.F16.HasIntForm())
	}
	if k := MatVec.Kernel(suite.Suite{Family: "matvec", Kernel: "matvec_x8", Output: "f32", Format: formats.Q4_0}); k.Signature != "matvec_x8" {
		t.Errorf("matvec_x8's kernel: %+v", k)
	}
	if n := Glue.Profile.KernelNames("forge_glue_quantize_x8"); !slices.Equal(n, []string{"forge_glue_quantize_x8_kernel"}) {
		t.Errorf("glue quantize: %v", n)
	}
}

// cpuMatrix runs every matrix kernel with the cpu backend's arithmetic,
// except that a kernel of format bad adds 1 to y[0]: a stand-in device.
type cpuMatrix struct {
	cpu backend.Matrix
	bad string
}

func (c cpuMatrix) RunMatrix(k backend.Kernel, y []float32, w []byte, x []float32, s backend.MatrixShape) error {
	if err := c.cpu.RunMatrix(k, y, w, x, s); err != nil {
		return err
	}
	if k.Format != nil && k.Format.Name == c.bad {
		y[0] += 1
	}
	return nil
}

func (c cpuMatrix) PrepareMatrix(backend.Kernel, []byte, []float32, backend.MatrixShape, backend.WeightMode) (backend.Resident, backend.Weights, error) {
	return nil, backend.Weights{}, nil
}

// TestCheckTimedMatMul: a matmul is checked at its timed shape against
// F32's matmul of W dequantized: the same arithmetic passes, one wrong
// entry fails, naming the format and the shape.
func TestCheckTimedMatMul(t *testing.T) {
	cb, ok := backend.MatrixOp.Of(cpu.New(1))
	if !ok {
		t.Fatal("the cpu backend runs no matrix kernels")
	}
	f, _ := formats.ByName("Q4_K")
	sh := backend.MatrixShape{Rows: 3, Cols: 2 * f.BlockElems, Batch: 2}
	w, x, err := suite.MatMulData(f, sh.Rows, sh.Cols, sh.Batch, 7)
	if err != nil {
		t.Fatal(err)
	}
	k := backend.Kernel{Family: "matmul", Name: "matmul_f32", Signature: "matmul", Output: backend.OutputF32, Format: f}
	if err := checkTimedMatMul(cpuMatrix{cpu: cb}, k, w, x, sh); err != nil {
		t.Errorf("the same arithmetic: %v", err)
	}
	err = checkTimedMatMul(cpuMatrix{cpu: cb, bad: "Q4_K"}, k, w, x, sh)
	if err == nil || !strings.Contains(err.Error(), "matmul_f32 on Q4_K at 3×512×2: NMSE") {
		t.Errorf("one wrong entry: %v", err)
	}
}
