package gen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocmforge/forge/gen/ir"
)

func TestDiffAndApply(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hdr := ir.GeneratedHeader + "\n"
	write("generated/same.go", hdr+"same")
	write("generated/old.go", hdr+"old")
	write("generated/gone/stale.hip", hdr+"stale")
	write("generated/handwritten.md", "# notes")
	files := []ir.File{
		{Path: "generated/same.go", Data: []byte(hdr + "same")},
		{Path: "generated/old.go", Data: []byte(hdr + "new")},
		{Path: "generated/new/dir/x.hip", Data: []byte(hdr + "x")},
	}
	changes, err := Diff(root, files)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{"generated/gone/stale.hip", "delete"},
		{"generated/new/dir/x.hip", "create"},
		{"generated/old.go", "update"},
	}
	if d := cmp.Diff(want, changes); d != "" {
		t.Fatalf("Diff (-want +got):\n%s", d)
	}
	if err := Apply(root, files, changes); err != nil {
		t.Fatal(err)
	}
	if again, _ := Diff(root, files); len(again) != 0 {
		t.Errorf("after Apply, Diff still reports %v", again)
	}
	if _, err := os.Stat(filepath.Join(root, "generated/gone")); !os.IsNotExist(err) {
		t.Error("emptied directory generated/gone not removed")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "generated/handwritten.md")); string(b) != "# notes" {
		t.Error("hand-written file touched")
	}
}

func TestDiffRejectsOutsideAndDuplicates(t *testing.T) {
	root := t.TempDir()
	if _, err := Diff(root, []ir.File{{Path: "specs/x.go"}}); err == nil {
		t.Error("a file outside generated/ was accepted")
	}
	if _, err := Diff(root, []ir.File{{Path: "generated/a"}, {Path: "generated/a"}}); err == nil {
		t.Error("two renderings of one path were accepted")
	}
}
