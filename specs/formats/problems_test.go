package formats

import "testing"

func TestRegisteredMetaValid(t *testing.T) {
	for _, f := range All() {
		if ps := f.Problems(); len(ps) > 0 {
			t.Errorf("%s: %v", f.Name, ps)
		}
	}
	bad := Meta{Name: "q4-0", GGMLType: -2, BlockElems: 48, BlockBytes: 0}
	fields := map[string]bool{}
	for _, p := range bad.Problems() {
		fields[p.Field] = true
	}
	for _, f := range []string{"Name", "GGMLType", "BlockElems", "BlockBytes", ""} {
		if !fields[f] {
			t.Errorf("no problem with %q: %v", f, bad.Problems())
		}
	}
}
