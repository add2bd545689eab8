package bench_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
	"github.com/rocmforge/forge/runtime/suite"
)

func TestWriteReadRoundTrip(t *testing.T) {
	r := benchtest.Run(7, benchtest.Defaults()...)
	p := filepath.Join(t.TempDir(), "run.json")
	if err := bench.WriteRun(p, r); err != nil {
		t.Fatal(err)
	}
	back, err := bench.ReadRun(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r, back); d != "" {
		t.Errorf("round trip (-wrote +read):\n%s", d)
	}
	// Kind and schema are filled in when empty.
	r.Kind, r.Schema = "", 0
	if err := bench.WriteRun(p, r); err != nil {
		t.Fatal(err)
	}
	if back, err := bench.ReadRun(p); err != nil || back.Kind != bench.Kind || back.Schema != bench.SchemaVersion {
		t.Errorf("kind/schema not filled in: %v %v", back, err)
	}
	if r.Kind != "" {
		t.Error("WriteRun modified its argument")
	}
}

// TestBadRunFiles: each defect is an error naming the file and the defect.
func TestBadRunFiles(t *testing.T) {
	var good bytes.Buffer
	if err := bench.EncodeRun(&good, benchtest.Run(1, benchtest.Defaults()[:2]...)); err != nil {
		t.Fatal(err)
	}
	g := good.String()
	edit := func(old, new string) string {
		if !strings.Contains(g, old) {
			t.Fatalf("fixture lacks %q", old)
		}
		return strings.Replace(g, old, new, 1)
	}
	cases := []struct{ name, data, want string }{
		{"empty", "", "is not a forgebench run or baseline: it is empty"},
		{"truncated", g[:len(g)/2], "truncated JSON"},
		{"not json", "name,ns\nx,1\n", "not valid JSON at line 1, column 2: invalid character 'a'"},
		{"syntax", edit(`"kind": "forgebench.run",`, `"kind": "forgebench.run",,`), "not valid JSON at line 2"},
		{"trailing", g + "{}", "more data follows"},
		{"array", "[1, 2]", "is not a forgebench run or baseline: the JSON is an array"},
		{"foreign object", `{"name": "package.json", "version": "1.0"}`, `is not a forgebench run or baseline: it has no "kind"`},
		{"other kind", edit(`"forgebench.run"`, `"other.tool"`), `is not a forgebench run or baseline: its kind is "other.tool"`},
		{"kind not string", edit(`"forgebench.run"`, `7`), `its "kind" is not a string`},
		{"no schema", edit(`"schema_version": 1,`, ``), "no schema_version"},
		{"future schema", edit(`"schema_version": 1`, `"schema_version": 2`), "schema_version 2 is not supported (this forgebench reads version 1)"},
		{"wrong type", edit(`"samples_ns": [`, `"samples_ns": "x", "_": [`), "results.samples_ns is a JSON string"},
		{"duplicate name", edit(`"name": "dequant_f32/Q4_0"`, `"name": "dequant_f32/F16"`), `result "dequant_f32/F16" appears twice (results 0 and 1)`},
		{"no name", edit(`"name": "dequant_f32/Q4_0"`, `"name": ""`), "result 1 has no name"},
		{"no samples", edit(`"samples_ns": [`, `"samples_ns": [], "_": [`), `result "dequant_f32/F16" has no samples`},
		{"negative sample", edit(`"samples_ns": [`, `"samples_ns": [-5, `), `result "dequant_f32/F16": sample 0 is negative (-5 ns)`},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
			if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := bench.ReadRun(p)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant the file %s and %q", err, p, c.want)
			}
			if _, err := bench.DecodeRun(strings.NewReader(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("DecodeRun: %v", err)
			}
		})
	}
}

// A scenario's case of figures alone (metrics, no samples) is valid.
func TestFiguresOnlyResultRoundTrips(t *testing.T) {
	r := benchtest.Run(1, benchtest.Defaults()[:1]...)
	r.Results = append(r.Results, bench.Result{Name: "memory/kv/paged", Suite: "memory/kv", Family: "memory",
		Metrics: []suite.Metric{{Name: "pages", Value: 32}}})
	p := filepath.Join(t.TempDir(), "run.json")
	if err := bench.WriteRun(p, r); err != nil {
		t.Fatal(err)
	}
	got, err := bench.ReadRun(p)
	if err != nil {
		t.Fatal(err)
	}
	if x := got.Results[len(got.Results)-1]; len(x.Metrics) != 1 || x.Metrics[0].Value != 32 {
		t.Errorf("figures-only result read back as %+v", x)
	}
}

func TestWriteRunRefusesInvalid(t *testing.T) {
	r := benchtest.Run(1, benchtest.Defaults()[:1]...)
	r.Results[0].Samples = nil
	p := filepath.Join(t.TempDir(), "run.json")
	if err := bench.WriteRun(p, r); err == nil || !strings.Contains(err.Error(), "has no samples") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Error("an invalid run was written")
	}
}
