package benchtest

import (
	"math"
	"reflect"
	"testing"
)

func TestFixture(t *testing.T) {
	if !reflect.DeepEqual(GPURun(1), GPURun(1)) {
		t.Fatal("the same seed gives different runs")
	}
	run := GPURun(1)
	if len(run.Results) != 2*len(Formats)+1 {
		t.Fatalf("%d results", len(run.Results))
	}
	for _, x := range run.Results {
		st := x.Stats
		if st.N != Samples || !(st.Min <= st.P50 && st.P50 <= st.P95 && st.P95 <= st.P99 && st.P99 <= st.Max) {
			t.Errorf("%s: stats out of order: %+v", x.Name, st)
		}
		if st.GBps < 1100 || st.GBps > 3000 || math.Abs(st.PctCopy-100*st.GBps/CopyGBps) > 1e-9 {
			t.Errorf("%s: %.0f GB/s, %.1f%% of copy", x.Name, st.GBps, st.PctCopy)
		}
	}
	base := Baseline(1)
	by := map[string]float64{}
	for _, x := range base.Results {
		by[x.Name] = float64(x.Stats.Mean)
	}
	for _, x := range run.Results {
		if b, ok := by[x.Name]; ok {
			r := float64(x.Stats.Mean) / b
			want := map[string]float64{"dequant_f32/Q3_K": 1.30, "dequant_f16/TQ1_0": 1.12, "dequant_f16/Q5_K": 0.85, "dequant_f16/Q4_K": 0.96}[x.Name]
			if want == 0 {
				want = 1
			}
			if math.Abs(r-want) > 0.01 {
				t.Errorf("%s: current/baseline mean time %.3f, want %.2f", x.Name, r, want)
			}
		}
	}
}
