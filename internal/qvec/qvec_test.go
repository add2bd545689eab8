package qvec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadManifest(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	m, err := ReadManifest(write("ok.json", `{"upstream": {}, "files": [
		{"file": "q4_0.dequant.bin", "format": "Q4_0", "kind": "dequant", "n_blocks": 73},
		{"file": "q4_0.quantize.bin", "format": "Q4_0", "kind": "quantize"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ format, kind, want string }{
		{"Q4_0", "dequant", "q4_0.dequant.bin"},
		{"Q4_0", "quantize", "q4_0.quantize.bin"},
		{"Q4_0", "quantize_edge", ""},
		{"q4_0", "dequant", ""}, // names are exact, as in the files' headers
		{"Q2_T", "dequant", ""},
	} {
		if got := m.File(tc.format, tc.kind); got != tc.want {
			t.Errorf("File(%s, %s) = %q, want %q", tc.format, tc.kind, got, tc.want)
		}
	}
	for name, body := range map[string]string{"empty.json": `{"files": []}`, "bad.json": `{"files": [`} {
		if _, err := ReadManifest(write(name, body)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
	if _, err := ReadManifest(filepath.Join(dir, "none.json")); err == nil {
		t.Error("a missing manifest read without error")
	}
}
