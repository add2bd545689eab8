package check

import "testing"

func TestPaths(t *testing.T) {
	for _, c := range [][2]string{
		{Join("", "Name"), "Name"},
		{Join("MatMul", "TileK"), "MatMul.TileK"},
		{Join("MatMul", ""), "MatMul"},
		{Join("Kernels", "[1].Output"), "Kernels[1].Output"},
		{Index("Kernels", 2), "Kernels[2]"},
		{Index("", 0), "[0]"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
	var l List
	l.Add("WaveSize", "WaveSize %d must be 32 or 64", 48)
	l.In("MatMul", []Problem{{Field: "TileK", Msg: "bad"}, {Msg: "all bad"}})
	want := List{{"WaveSize", "WaveSize 48 must be 32 or 64"}, {"MatMul.TileK", "bad"}, {"MatMul", "all bad"}}
	if len(l) != len(want) {
		t.Fatalf("%v", l)
	}
	for i := range l {
		if l[i] != want[i] {
			t.Errorf("%d: %v, want %v", i, l[i], want[i])
		}
	}
	if Err("x", nil) != nil {
		t.Error("Err of none")
	}
	if got := Err("target a", l[:2]).Error(); got != "target a: WaveSize 48 must be 32 or 64\ntarget a: bad" {
		t.Errorf("Err: %q", got)
	}
}
