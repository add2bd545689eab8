package bench

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSummarizeThroughputsFromTheMedian: GB/s, elements/s, GFLOPS and % of
// copy come from the median, the time the table headlines and compare
// tests, not from the mean, which one slow sample drags.
func TestSummarizeThroughputsFromTheMedian(t *testing.T) {
	samples := []time.Duration{1000, 1010, 990, 1000, 1000, 1005, 995, 1000, 10000} // one outlier
	s := Summarize(samples, 2000, 500, 4000, 1)
	if s.P50 != 1000 || s.Mean != 2000 {
		t.Fatalf("median %v, mean %v", s.P50, s.Mean)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"GB/s", s.GBps, 2000 / 1000.0},
		{"elements/s", s.ElemsPS, 500 / 1e-6},
		{"GFLOPS", s.GFLOPS, 4000 / 1000.0},
		{"% of copy", s.PctCopy, 100 * 2.0 / 1},
	} {
		if math.Abs(c.got-c.want) > 1e-9*c.want {
			t.Errorf("%s = %v, want %v (from the median)", c.what, c.got, c.want)
		}
	}
}

func TestNoise(t *testing.T) {
	steady := Summarize([]time.Duration{100, 101, 99, 100, 100, 102, 98}, 1, 1, 0, 0)
	if cv := steady.CV(); cv <= 0 || cv > 0.02 || steady.Noisy() {
		t.Errorf("steady: CV %v, noisy %v", cv, steady.Noisy())
	}
	wild := Summarize([]time.Duration{100, 300, 90, 100, 250, 80}, 1, 1, 0, 0)
	if cv := wild.CV(); math.Abs(cv-float64(wild.StdDev)/float64(wild.Mean)) > 1e-12 || !wild.Noisy() {
		t.Errorf("wild: CV %v, noisy %v", cv, wild.Noisy())
	}
	// At the threshold: not noisy; just past it: noisy.
	at := Stats{N: 10, Mean: 1000, StdDev: time.Duration(1000 * NoiseCV)}
	past := Stats{N: 10, Mean: 1000, StdDev: time.Duration(1000*NoiseCV) + 1}
	if at.Noisy() || !past.Noisy() {
		t.Errorf("threshold %v: at %v, past %v", NoiseCV, at.Noisy(), past.Noisy())
	}
	for _, s := range []Stats{{}, {N: 1, Mean: 10, StdDev: 5}, {N: 5, StdDev: 5}} {
		if s.CV() != 0 || s.Noisy() {
			t.Errorf("%+v: CV %v", s, s.CV())
		}
	}
}

// TestTailQuantiles: p95 and p99 are estimates only from 20 and 100
// samples; below, Summarize's p95 is the maximum or nearly (as the table
// would have shown it).
func TestTailQuantiles(t *testing.T) {
	if QuantileMinN(0.95) != 20 || QuantileMinN(0.99) != 100 || QuantileMinN(0.5) != 2 || QuantileMinN(1) != 0 {
		t.Errorf("QuantileMinN: %d %d %d %d", QuantileMinN(0.95), QuantileMinN(0.99), QuantileMinN(0.5), QuantileMinN(1))
	}
	var five []time.Duration
	for i := 1; i <= 5; i++ {
		five = append(five, time.Duration(100*i))
	}
	s := Summarize(five, 1, 1, 0, 0)
	if s.P95 != s.Max || s.P99 != s.Max || s.HasP95() || s.HasP99() {
		t.Errorf("n=5: p95 %v p99 %v max %v; has %v %v", s.P95, s.P99, s.Max, s.HasP95(), s.HasP99())
	}
	for _, c := range []struct {
		n        int
		p95, p99 bool
	}{{19, false, false}, {20, true, false}, {99, true, false}, {100, true, true}} {
		st := Stats{N: c.n}
		if st.HasP95() != c.p95 || st.HasP99() != c.p99 {
			t.Errorf("n=%d: HasP95 %v HasP99 %v", c.n, st.HasP95(), st.HasP99())
		}
	}
}

// TestTableFlagsNoiseAndTails: the terminal table marks a noisy row's
// ±stddev with "!" and shows p95 and p99 only from enough samples.
func TestTableFlagsNoiseAndTails(t *testing.T) {
	run := fixture() // write_test.go: dequant_f32/Q4_0 scatters by ~11%, the others by < 3%
	var many []time.Duration
	for i := range 120 {
		many = append(many, time.Duration(40_000_000+1000*(i%7)))
	}
	x := &run.Results[1]
	x.Samples = many
	x.Stats = Summarize(many, x.BytesRead+x.BytesWritten, x.Elements, 0, 8)
	var b strings.Builder
	if err := WriteTable(&b, run); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	row := func(name string) []string {
		for _, l := range lines {
			if f := strings.Fields(l); len(f) > 0 && f[0] == name {
				return f
			}
		}
		t.Fatalf("no row %s:\n%s", name, b.String())
		return nil
	}
	col := func(f []string, c string) string { return f[slices.Index(TableColumns, c)] }
	q4, q4k, q6 := row("dequant_f32/Q4_0"), row("dequant_f16/Q4_K"), row("gguf/blk.0.attn_q.weight/dequant_f32")
	if sd := col(q4, "±stddev"); !strings.HasSuffix(sd, "%!") {
		t.Errorf("noisy Q4_0: ±stddev %q, want a trailing !", sd)
	}
	if sd := col(q4k, "±stddev"); strings.HasSuffix(sd, "!") || sd == "-" {
		t.Errorf("steady Q4_K: ±stddev %q", sd)
	}
	// n=7 and n=2: neither tail; n=120: both.
	if col(q4, "p95") != "-" || col(q4, "p99") != "-" || col(q6, "p95") != "-" {
		t.Errorf("p95/p99 shown from 7 or 2 samples: %q %q", q4, q6)
	}
	if col(q4k, "p95") == "-" || col(q4k, "p99") == "-" {
		t.Errorf("p95/p99 hidden from 120 samples: %q", q4k)
	}
}
