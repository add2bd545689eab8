package suite

import (
	"slices"
	"testing"

	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/specs/formats"
)

func TestWeightPlan(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name               string
		mode               WeightMode
		copyBytes, l2, fit int64
		copies             int
		defeats            bool
	}{
		{"reuse", WeightsReuse, 9 * mib, 50 * mib, 0, 1, false},
		{"small W: enough copies for 2 × L2", WeightsRotate, 9 * mib, 50 * mib, 0, 12, true},
		{"exact multiple", WeightsRotate, 25 * mib, 50 * mib, 0, 4, true},
		{"W over 2 × L2: still 2", WeightsRotate, 560 * mib, 50 * mib, 0, 2, true},
		{"2 copies over the 1 GiB cap: still 2", WeightsRotate, 2100 * mib, 50 * mib, 80 << 30, 2, true},
		{"cap: as many as 1 GiB holds", WeightsRotate, 1 * mib, 1024 * mib, 0, 1024, false},
		{"fit limits", WeightsRotate, 9 * mib, 50 * mib, 40 * mib, 4, false},
		{"2 do not fit: 1", WeightsRotate, 560 * mib, 50 * mib, 700 * mib, 1, false},
		{"unknown L2: 2", WeightsRotate, 9 * mib, 0, 0, 2, false},
	} {
		w := WeightPlan(tc.mode, tc.copyBytes, tc.l2, tc.fit)
		if w.Mode != tc.mode || w.Copies != tc.copies || w.CopyBytes != tc.copyBytes || w.TotalBytes != int64(tc.copies)*tc.copyBytes || w.DefeatsL2() != tc.defeats {
			t.Errorf("%s: %+v (defeats L2: %v), want %d copies (defeats: %v)", tc.name, w, w.DefeatsL2(), tc.copies, tc.defeats)
		}
	}
	if s := WeightPlan(WeightsReuse, 9<<20, 50<<20, 0).String(); s != "reuse: one copy of W (9.0 MiB)" {
		t.Errorf("reuse: %q", s)
	}
	if s := WeightPlan(WeightsRotate, 560<<20, 50<<20, 700<<20).String(); s != "rotate: 1 copy of W, no room for 2 (560.0 MiB, 11.2× the 50.0 MiB L2)" {
		t.Errorf("one copy: %q", s)
	}
}

func TestWeightModes(t *testing.T) {
	for _, s := range []string{"", "rotate", "reuse"} {
		if m, err := ParseWeightMode(s); err != nil || string(m) != s {
			t.Errorf("%q: %q, %v", s, m, err)
		}
	}
	if _, err := ParseWeightMode("flush"); err == nil {
		t.Error("flush accepted")
	}
	t.Setenv(EnvBenchWeights, "Rotate")
	if _, err := WeightModeFromEnv(); err == nil {
		t.Error("$FORGE_BENCH_WEIGHTS=Rotate accepted")
	}
	t.Setenv(EnvBenchWeights, "reuse")
	if m, err := WeightModeFromEnv(); m != WeightsReuse || err != nil {
		t.Errorf("reuse from the environment: %q, %v", m, err)
	}
	c, d := cpu.New(1), fakeDevice{cpu.New(1)}
	for _, tc := range []struct {
		b        Backend
		in, want WeightMode
	}{{c, "", WeightsReuse}, {c, WeightsRotate, WeightsReuse}, {d, "", WeightsRotate}, {d, WeightsReuse, WeightsReuse}, {d, WeightsRotate, WeightsRotate}} {
		if got := ResolveWeightMode(tc.b, tc.in); got != tc.want {
			t.Errorf("%T, %q: %q, want %q", tc.b, tc.in, got, tc.want)
		}
	}
}

// fakeDevice is a DeviceBackend for shape and mode defaults; it runs nothing.
type fakeDevice struct{ Backend }

func (fakeDevice) Describe() string                                                 { return "fake" }
func (fakeDevice) L2Bytes() int64                                                   { return 1 << 20 }
func (fakeDevice) PrepareDequant(*formats.Format, string, []byte) (Resident, error) { return nil, nil }
func (fakeDevice) PrepareCopy(int64) (Resident, error)                              { return nil, nil }

func TestMatVecShapes(t *testing.T) {
	t.Setenv(EnvBenchMatVec, "")
	names := func(b Backend, f *formats.Format) ([]string, [][]int) {
		t.Helper()
		shapes, err := MatVecShapes(b, f)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		var d [][]int
		for _, s := range shapes {
			n, d = append(n, s.Name), append(d, s.Dims)
		}
		return n, d
	}
	n, d := names(fakeDevice{cpu.New(1)}, formats.Q4_K)
	if !slices.Equal(n, []string{"4096x4096", "4096x14336", "14336x4096", "output"}) ||
		!slices.EqualFunc(d, [][]int{{4096, 4096}, {4096, 14336}, {14336, 4096}, {128256, 4096}}, slices.Equal) {
		t.Errorf("device shapes: %v %v", n, d)
	}
	if n, d := names(cpu.New(1), formats.Q4_0); !slices.Equal(n, []string{"1024x1024"}) || !slices.Equal(d[0], []int{1024, 1024}) {
		t.Errorf("cpu shapes: %v %v", n, d)
	}
	t.Setenv(EnvBenchMatVec, "37x600")
	if n, d := names(fakeDevice{cpu.New(1)}, formats.Q4_K); !slices.Equal(n, []string{"37x512"}) || !slices.Equal(d[0], []int{37, 512}) {
		t.Errorf("$%s=37x600 for Q4_K: %v %v", EnvBenchMatVec, n, d)
	}
	t.Setenv(EnvBenchMatVec, "37")
	if _, err := MatVecShapes(cpu.New(1), formats.Q4_0); err == nil {
		t.Error("a bad $FORGE_BENCH_MATVEC was accepted")
	}
	// A named shape keeps its name when its columns are rounded.
	if s := WholeBlockShapes(formats.Q4_K, []BenchShape{{"output", []int{10, 300}}}); s[0].Name != "output" || s[0].Dims[1] != 256 {
		t.Errorf("rounded named shape: %+v", s)
	}
}
