package bench

import (
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

func TestFilter(t *testing.T) {
	var all []suite.Suite
	for _, f := range []*formats.Format{formats.F32, formats.Q4_0, formats.Q4_1, formats.Q4_K, formats.Q8_0, formats.MXFP6_E2M3} {
		all = append(all, suitesOf(f)...)
	}
	targets := SuiteTargets(all)
	for _, tc := range []struct {
		f    Filter
		want string // names, or "error: ..."
	}{
		{Filter{}, "*12"},
		{Filter{Format: "Q4_*"}, "dequant_f32/Q4_0 dequant_f16/Q4_0 dequant_f32/Q4_1 dequant_f16/Q4_1 dequant_f32/Q4_K dequant_f16/Q4_K"},
		{Filter{Format: "q4_?", Suite: "*f16*"}, "dequant_f16/Q4_0 dequant_f16/Q4_1 dequant_f16/Q4_K"},
		{Filter{Format: "Q4_[01]"}, "dequant_f32/Q4_0 dequant_f16/Q4_0 dequant_f32/Q4_1 dequant_f16/Q4_1"},
		{Filter{Format: "Q4_[!01]"}, "dequant_f32/Q4_K dequant_f16/Q4_K"},
		{Filter{Format: "Q8_0, F32"}, "dequant_f32/F32 dequant_f16/F32 dequant_f32/Q8_0 dequant_f16/Q8_0"},
		{Filter{Suite: "dequant_f32/*", Format: "MXFP6*"}, "dequant_f32/MXFP6_E2M3"},
		{Filter{Format: "/^Q[48]_[0-9]$/"}, "dequant_f32/Q4_0 dequant_f16/Q4_0 dequant_f32/Q4_1 dequant_f16/Q4_1 dequant_f32/Q8_0 dequant_f16/Q8_0"},
		{Filter{Format: "/_K/"}, "dequant_f32/Q4_K dequant_f16/Q4_K"},
		{Filter{Suite: "/Q4_0$/,*F32"}, "dequant_f32/F32 dequant_f16/F32 dequant_f32/Q4_0 dequant_f16/Q4_0"},
		{Filter{Suite: "dequant_f16", Format: "Q4_*"}, "dequant_f16/Q4_0 dequant_f16/Q4_1 dequant_f16/Q4_K"}, // a plain name selects its tree
		{Filter{Suite: "dequant_f16/Q4"}, "error: suite \"dequant_f16/Q4\" matches no suite"},                // only whole path elements
		{Filter{Format: "/Q4_{2,3}/"}, "error: format \"/Q4_{2,3}/\" matches no format"},                     // the comma does not split a regexp
		{Filter{Family: "dequant", Format: "F32"}, "dequant_f32/F32 dequant_f16/F32"},
		{Filter{Format: "Q9_*"}, "error: format \"Q9_*\" matches no format; valid: F32, Q4_0, Q4_1, Q4_K, Q8_0, MXFP6_E2M3"},
		{Filter{Family: "matvec"}, "error: family \"matvec\" matches no family; valid: dequant"},
		{Filter{Suite: "dequant_f8/*"}, "error: suite \"dequant_f8/*\" matches no suite; valid: dequant_f32/F32, dequant_f16/F32,"},
		{Filter{Format: "Q4_0,Q5_0"}, "error: format \"Q5_0\" matches no format"},
		{Filter{Format: "/Q4_(/"}, "error: format pattern \"/Q4_(/\": error parsing regexp"},
		{Filter{Suite: "*f16*", Format: "F32", Family: "dequant"}, "dequant_f16/F32"},
		{Filter{Suite: "dequant_f32/Q4_0", Format: "Q8_0"}, "error: no benchmark matches --suite \"dequant_f32/Q4_0\" --format \"Q8_0\""},
		{Filter{Format: "Q4_[0"}, "error: format \"Q4_[0\" matches no format"}, // an unclosed class is literal
	} {
		got, err := tc.f.Select(targets)
		var s string
		if err != nil {
			s = "error: " + err.Error()
		} else {
			var names []string
			for _, g := range got {
				names = append(names, g.Suite.Name)
			}
			s = strings.Join(names, " ")
		}
		switch {
		case tc.want == "*12":
			if len(got) != 12 || err != nil {
				t.Errorf("%v: %s", tc.f, s)
			}
		case strings.HasPrefix(tc.want, "error: "):
			if !strings.HasPrefix(s, tc.want) {
				t.Errorf("%v:\n got %s\nwant %s...", tc.f, s, tc.want)
			}
		case s != tc.want:
			t.Errorf("%v:\n got %s\nwant %s", tc.f, s, tc.want)
		}
	}
}
