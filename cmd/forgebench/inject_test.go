package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"github.com/rocmforge/forge/runtime/gguf"
	"github.com/rocmforge/forge/specs/formats"
)

// The hostile names of the crafted file: a colour escape, a bell and a
// window-title sequence, a newline, a byte that is not UTF-8, a bidi
// override; and one ordinary non-ASCII name that must stay as it is.
const (
	redName   = "evil\x1b[31mred\x1b[0m"
	lineName  = "bad\xffname\nwith a line"
	bidiName  = "bidi\u202eexe.txt"
	plainName = "blk.0.ffn_δ"
)

func hostileGGUF(t *testing.T) string {
	f32 := func(n int) []byte { return make([]byte, 4*n) }
	return writeTestGGUF(t, []testKV{
		{"general.name", gguf.TypeString, "title\x1b]0;pwned\x07"},
		{"tokenizer.chat_template", gguf.TypeString, "{% for m in messages %}\n{{ m }}\n{% endfor %}"},
		{"key\x1b[2Jwith\nnewline", gguf.TypeUint32, uint32(7)},
		{"tokens", gguf.TypeArray, testArray{gguf.TypeString, []any{"a\x1b[1m", "b", ""}}},
		{"ids", gguf.TypeArray, testArray{gguf.TypeUint32, []any{uint32(1), uint32(2), uint32(4294967295)}}},
		{"nested", gguf.TypeArray, testArray{gguf.TypeArray, []any{
			testArray{gguf.TypeInt8, []any{int8(-1), int8(2)}},
			testArray{gguf.TypeString, []any{"x"}},
		}}},
		{"nan", gguf.TypeFloat32, float32(math.NaN())},
		{"third", gguf.TypeFloat32, float32(1) / 3},
		{"flag", gguf.TypeBool, true},
	}, []testTensor{
		{redName, []uint64{32}, 2, q4Block()},
		{lineName, []uint64{4}, 0, f32(4)},
		{bidiName, []uint64{4}, 0, f32(4)},
		{plainName, []uint64{4}, 0, f32(4)},
	})
}

// assertInert fails when s holds what a terminal or a CSV reader would act
// on: a control byte other than the line ends the output itself writes, a
// C1 control, a bidi override, or invalid UTF-8.
func assertInert(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s is not valid UTF-8: %q", what, s)
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u202e' {
			t.Errorf("%s holds %U raw: %q", what, r, s)
			return
		}
	}
}

// TestHostileGGUFNames: tensor names and metadata with control and escape
// bytes reach no terminal, CSV cell or Go benchmark line raw (they were
// printed raw: colour injection, invalid UTF-8 in the CSV, a metadata
// string breaking the --kv table); the escaped names are still
// recognisable and ordinary non-ASCII stays as it is.
func TestHostileGGUFNames(t *testing.T) {
	p := hostileGGUF(t)

	code, out, errOut := forgebench(t, "gguf", "ls", "--kv", p)
	if code != 0 {
		t.Fatalf("gguf ls: exit %d: %s", code, errOut)
	}
	assertInert(t, "gguf ls", out)
	contains(t, "gguf ls", out, `evil\x1b[31mred\x1b[0m`, `bad\xffname\nwith a line`, `bidi\u202eexe.txt`, plainName,
		`title\x1b]0;pwned\a`, `key\x1b[2Jwith\nnewline`)
	// Each metadata entry is one row of the table: the template's lines too.
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "endfor") && !strings.HasPrefix(line, "tokenizer.chat_template ") {
			t.Errorf("the chat template broke out of its row: %q", line)
		}
	}

	dir := t.TempDir()
	csvPath, goPath, jsonPath := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.txt"), filepath.Join(dir, "r.json")
	code, out, errOut = forgebench(t, "run", "--gguf", p, "--backend", "cpu", "--count", "2", "--warmup", "0", "--copy-bytes", "-1",
		"--csv", csvPath, "--gofmt", goPath, "--json", jsonPath)
	if code != 0 {
		t.Fatalf("run --gguf: exit %d: %s", code, errOut)
	}
	assertInert(t, "run's table", out)
	assertInert(t, "run's progress", errOut)
	// The tensors are grouped by type and shape (the benchmarks are named
	// so); the model's name, in the table's header, is escaped.
	contains(t, "run's table", out, `model: title\x1b]0;pwned\a, file `, "gguf/Q4_0/32/dequant_f32", "gguf/F32/4/dequant_f32")

	data := string(readBytes(t, csvPath))
	assertInert(t, "the CSV", data)
	rows, err := csv.NewReader(strings.NewReader(data)).ReadAll()
	if err != nil || len(rows) < 3 {
		t.Fatalf("CSV: %d rows, %v", len(rows), err)
	}
	if got := rows[2][0]; got != "gguf/F32/4/dequant_f32" {
		t.Errorf("CSV name %q", got)
	}

	data = string(readBytes(t, goPath))
	assertInert(t, "the Go benchmark file", data)
	r := benchfmt.NewReader(strings.NewReader(data), goPath)
	var names []string
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			names = append(names, string(res.Name))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(names, " "); !strings.Contains(all, "GGUF/F32/4/DequantF32") {
		t.Errorf("Go benchmark names %q lack GGUF/F32/4/DequantF32", names)
	}
	// The JSON keeps the tensors' names escaped, in the model's groups:
	// distinct, and read back as they were written.
	run := readRun(t, jsonPath)
	if m := run.Meta.Model; m == nil || m.Name != `title\x1b]0;pwned\a` || len(m.Groups) != 2 ||
		!slices.Equal(m.Groups[0].Tensors, []string{`evil\x1b[31mred\x1b[0m`}) ||
		!slices.Equal(m.Groups[1].Tensors, []string{`bad\xffname\nwith a line`, `bidi\u202eexe.txt`, plainName}) {
		t.Errorf("JSON model %+v", run.Meta.Model)
	}

	out = filepath.Join(dir, "t.f32")
	code, _, errOut = forgebench(t, "gguf", "dequant", p, redName, "-o", out)
	if code != 0 {
		t.Fatalf("gguf dequant: exit %d: %s", code, errOut)
	}
	assertInert(t, "gguf dequant's message", errOut)
}

// TestLsJSONArrays: --json --kv writes metadata arrays as JSON arrays (of
// numbers, strings and arrays), numbers as numbers, NaN as "NaN"; they
// were Go-formatted strings such as "[1 2 4294967295]".
func TestLsJSONArrays(t *testing.T) {
	code, out, errOut := forgebench(t, "gguf", "ls", "--json", "-", "--kv", hostileGGUF(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		KV map[string]json.RawMessage `json:"kv"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	compact := func(b []byte) string {
		var c bytes.Buffer
		json.Compact(&c, b)
		return c.String()
	}
	for key, want := range map[string]string{
		"tokens":       `["a\u001b[1m","b",""]`,
		"ids":          `[1,2,4294967295]`,
		"nested":       `[[-1,2],["x"]]`,
		"nan":          `"NaN"`,
		"third":        `0.33333334`,
		"flag":         `true`,
		"general.name": `"title\u001b]0;pwned\u0007"`,
	} {
		if g := compact(got.KV[key]); g != want {
			t.Errorf("kv %s: %s, want %s", key, g, want)
		}
	}
}

// TestLsMarksWrongGeometry: a tensor whose type id a spec claims with
// other blocks than ggml's is marked as not decodable, like a type with no
// spec (ls showed it as decodable), and dequant refuses it.
func TestLsMarksWrongGeometry(t *testing.T) {
	old := specOf
	t.Cleanup(func() { specOf = old })
	specOf = func(t *gguf.Tensor) (*formats.Format, bool) {
		f, ok := t.Format()
		if ok && f.Name == "Q4_0" {
			wrong := *f // as a spec that got ggml's Q4_0 geometry wrong would
			wrong.BlockElems = 64
			return &wrong, true
		}
		return f, ok
	}
	p := writeTestGGUF(t, nil, []testTensor{
		{"q", []uint64{32}, 2, q4Block()},
		{"f", []uint64{4}, 0, make([]byte, 16)},
		{"iq2", []uint64{256}, 16, make([]byte, 66)}, // IQ2_XXS: no spec at all
	})
	code, out, errOut := forgebench(t, "gguf", "ls", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	contains(t, "ls", out, "Q4_0*", "IQ2_XXS*",
		"Q4_0: forge's spec Q4_0 has 64-element blocks of 18 bytes, ggml's type 2 has 32-element blocks of 18 bytes",
		"IQ2_XXS: no forge spec for ggml type 16")
	if strings.Contains(out, "F32*") {
		t.Errorf("F32 marked:\n%s", out)
	}
	code, out, _ = forgebench(t, "gguf", "ls", "--json", "-", p)
	var ls struct{ Tensors []lsTensor }
	if code != 0 || json.Unmarshal([]byte(out), &ls) != nil || len(ls.Tensors) != 3 || ls.Tensors[0].Spec || !ls.Tensors[1].Spec || ls.Tensors[2].Spec {
		t.Errorf("ls --json: exit %d, %s", code, out)
	}
	code, _, errOut = forgebench(t, "gguf", "dequant", p, "q", "-o", filepath.Join(t.TempDir(), "q.f32"))
	if code != exitError || !strings.Contains(errOut, "which forge cannot decode: forge's spec Q4_0 has 64-element blocks") {
		t.Errorf("dequant: exit %d: %s", code, errOut)
	}
}
