package backend

import "testing"

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
	c, d := fakeHost{}, fakeDevice{fakeHost{}}
	for _, tc := range []struct {
		b        Backend
		in, want WeightMode
	}{{c, "", WeightsReuse}, {c, WeightsRotate, WeightsReuse}, {d, "", WeightsRotate}, {d, WeightsReuse, WeightsReuse}, {d, WeightsRotate, WeightsRotate}} {
		if got := ResolveWeightMode(tc.b, tc.in); got != tc.want {
			t.Errorf("%T, %q: %q, want %q", tc.b, tc.in, got, tc.want)
		}
	}
}

// fakeHost is a Backend that runs nothing.
type fakeHost struct{}

func (fakeHost) Name() string { return "fakehost" }

// fakeDevice is a Device for mode defaults; it runs nothing.
type fakeDevice struct{ Backend }

func (fakeDevice) Describe() string                    { return "fake" }
func (fakeDevice) L2Bytes() int64                      { return 1 << 20 }
func (fakeDevice) PrepareCopy(int64) (Resident, error) { return nil, nil }
