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
	f := Family{Name: "Dequant", Signature: "blocks", Kernels: []Kernel{{Name: "a", Output: "f32"}, {Name: "a", Output: "bf16"}}}
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
	if s := (Kernel{Name: "attention_f16_d128"}).Symbol(""); s != "forge_attention_f16_d128" {
		t.Errorf("a shared family's Symbol %q", s)
	}
	// IntForm on a shared family's kernel; a family of IntForm kernels only.
	shared := Family{Name: "glue", Shared: true, Signature: "glue_binary", Kernels: []Kernel{{Name: "glue_a", Output: "f32"}, {Name: "glue_b", Output: "f32", IntForm: true}}}
	if ps := shared.Problems(); len(ps) != 1 || ps[0].Field != "Kernels[1].IntForm" {
		t.Errorf("IntForm on a shared family: %v", ps)
	}
	intOnly := Family{Name: "mv", Signature: "matvec_x8", Kernels: []Kernel{{Name: "mv_x8", Output: "f32", IntForm: true}}}
	if ps := intOnly.Problems(); len(ps) != 1 || ps[0].Field != "Kernels" {
		t.Errorf("a family of IntForm kernels only: %v", ps)
	}
	// A kernel with no signature of its own in a family with none.
	bare := Family{Name: "bare", Kernels: []Kernel{{Name: "bare_f32", Output: "f32"}}}
	if ps := bare.Problems(); len(ps) != 1 || ps[0].Field != "Kernels[0]" {
		t.Errorf("a family without signatures: %v", ps)
	}
}
