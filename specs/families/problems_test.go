package families

import "testing"

func TestRegisteredFamiliesValid(t *testing.T) {
	for _, f := range All() {
		if ps := f.Problems(); len(ps) > 0 {
			t.Errorf("%s: %v", f.Name, ps)
		}
	}
	if ps := Attention.Problems(); len(ps) > 0 {
		t.Errorf("attention: %v", ps)
	}
}

func TestProblemsNameTheirFields(t *testing.T) {
	f := Family{Name: "Dequant", Kernels: []Kernel{{Name: "a", Output: "f32"}, {Name: "a", Output: "bf16"}}}
	want := map[string]bool{"Name": true, "Kernels[1].Name": true, "Kernels[1].Output": true}
	for _, p := range f.Problems() {
		if !want[p.Field] {
			t.Errorf("unexpected %+v", p)
		}
		delete(want, p.Field)
	}
	if len(want) > 0 {
		t.Errorf("missing problems with %v", want)
	}
	a := AttentionFamily{Name: "attention", DTypes: []string{"f16", "f16"}, HeadDims: []int{64, 100}}
	got := map[string]string{}
	for _, p := range a.Problems() {
		got[p.Field] = p.Msg
	}
	if got[""] != "Doc is empty" || got["DTypes[1]"] == "" || got["HeadDims[1]"] != "HeadDims: 100 must be a multiple of 16 in [16, 256], each at most once" || len(got) != 3 {
		t.Errorf("attention problems: %v", got)
	}
	if s := (Kernel{Name: "matvec_f32"}).Symbol("Q4_K"); s != "forge_matvec_f32_q4_k" {
		t.Errorf("Symbol %q", s)
	}
}
