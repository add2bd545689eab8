package suite

import (
	"slices"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/specs/formats"
)

// fakeHost and fakeDevice are backends for shape defaults; they run nothing.
type fakeHost struct{}

func (fakeHost) Name() string { return "fakehost" }

type fakeDevice struct{ fakeHost }

func (fakeDevice) Describe() string                            { return "fake" }
func (fakeDevice) L2Bytes() int64                              { return 1 << 20 }
func (fakeDevice) PrepareCopy(int64) (backend.Resident, error) { return nil, nil }

func TestMatVecShapes(t *testing.T) {
	t.Setenv(EnvBenchMatVec, "")
	names := func(b backend.Backend, f *formats.Format) ([]string, [][]int) {
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
	n, d := names(fakeDevice{}, formats.Q4_K)
	if !slices.Equal(n, []string{"4096x4096", "4096x14336", "14336x4096", "output"}) ||
		!slices.EqualFunc(d, [][]int{{4096, 4096}, {4096, 14336}, {14336, 4096}, {128256, 4096}}, slices.Equal) {
		t.Errorf("device shapes: %v %v", n, d)
	}
	if n, d := names(fakeHost{}, formats.Q4_0); !slices.Equal(n, []string{"1024x1024"}) || !slices.Equal(d[0], []int{1024, 1024}) {
		t.Errorf("cpu shapes: %v %v", n, d)
	}
	t.Setenv(EnvBenchMatVec, "37x600")
	if n, d := names(fakeDevice{}, formats.Q4_K); !slices.Equal(n, []string{"37x512"}) || !slices.Equal(d[0], []int{37, 512}) {
		t.Errorf("$%s=37x600 for Q4_K: %v %v", EnvBenchMatVec, n, d)
	}
	t.Setenv(EnvBenchMatVec, "37")
	if _, err := MatVecShapes(fakeHost{}, formats.Q4_0); err == nil {
		t.Error("a bad $FORGE_BENCH_MATVEC was accepted")
	}
	// A named shape keeps its name when its columns are rounded.
	if s := WholeBlockShapes(formats.Q4_K, []BenchShape{{"output", []int{10, 300}}}); s[0].Name != "output" || s[0].Dims[1] != 256 {
		t.Errorf("rounded named shape: %+v", s)
	}
}
