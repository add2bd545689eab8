package formats

import "testing"

func TestRegisteredMetaValid(t *testing.T) {
	for _, f := range All() {
		if ps := f.Problems(); len(ps) > 0 {
			t.Errorf("%s: %v", f.Name, ps)
		}
	}
	bad := Meta{Name: "q4-0", GGMLType: -2, BlockElems: 48, BlockBytes: 0, SubBlock: 24}
	fields := map[string]bool{}
	for _, p := range bad.Problems() {
		fields[p.Field] = true
	}
	for _, f := range []string{"Name", "GGMLType", "BlockElems", "BlockBytes", "SubBlock", ""} {
		if !fields[f] {
			t.Errorf("no problem with %q: %v", f, bad.Problems())
		}
	}
	for _, m := range []Meta{
		{Name: "A", BlockElems: 64, BlockBytes: 4, SubBlock: 32, NoIntForm: "why", Doc: "d"}, // both
		{Name: "A", BlockElems: 1, BlockBytes: 4, SubBlock: 16, Doc: "d"},                    // does not divide
	} {
		if ps := m.Problems(); len(ps) != 1 || ps[0].Field != "SubBlock" && ps[0].Field != "NoIntForm" {
			t.Errorf("%+v: problems %v, want one about the integer form", m, ps)
		}
	}
	for _, m := range []Meta{
		{Name: "A", BlockElems: 32, BlockBytes: 4, IntZero: 8, NoIntForm: "why", Doc: "d"},             // no form
		{Name: "A", BlockElems: 32, BlockBytes: 4, SubBlock: 32, IntZero: 8, IntExact: true, Doc: "d"}, // both
		{Name: "A", BlockElems: 32, BlockBytes: 4, SubBlock: 32, IntZero: 128, Doc: "d"},               // not int8
	} {
		if ps := m.Problems(); len(ps) != 1 || ps[0].Field != "IntZero" {
			t.Errorf("%+v: problems %v, want one about IntZero", m, ps)
		}
	}
	for _, m := range []Meta{
		{Name: "A", BlockElems: 1, BlockBytes: 2, IEEE: "binary8", Doc: "d"},  // no such kind
		{Name: "A", BlockElems: 1, BlockBytes: 4, IEEE: "binary16", Doc: "d"}, // the wrong size
		{Name: "A", BlockElems: 32, BlockBytes: 64, IEEE: "bfloat16", Doc: "d"},
	} {
		if ps := m.Problems(); len(ps) != 1 || ps[0].Field != "IEEE" {
			t.Errorf("%+v: problems %v, want one about IEEE", m, ps)
		}
	}
}
