package tune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
)

// fakeCompiler is a shell script standing in for nvcc: --version prints a
// version, a compile writes its -D flags into the object (and fails for
// threads 512), a link concatenates the objects.
const fakeCompiler = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "fake nvcc 1.0"; exit 0; fi
out=""; defs=""; objs=""; link=1; prev=""
for a in "$@"; do
  case "$a" in
    -DFORGE_TUNE_MATVEC_THREADS=512) echo "error: static_assert failed: MatVec threads" >&2; exit 1;;
    -D*) defs="$defs $a";;
    -c) link=0;;
    *.o) [ "$prev" != "-o" ] && objs="$objs $a";;
  esac
  [ "$prev" = "-o" ] && out="$a"
  prev="$a"
done
if [ $link = 0 ]; then echo "obj$defs" > "$out"; else cat $objs > "$out"; fi
`

func setupRoot(t *testing.T) (root string, b *CompilerBuilder) {
	t.Helper()
	root = t.TempDir()
	dir := filepath.Join(root, "generated", "hip", "sm_90")
	os.MkdirAll(dir, 0o755)
	for name, body := range map[string]string{
		"q4_0_matvec.hip": "matvec q4_0", "q4_0_dequant.hip": "dequant q4_0", "forge_runtime.hip": "runtime",
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	os.WriteFile(filepath.Join(root, "generated", "hip", "forge_portability.h"), []byte("header"), 0o644)
	cc := filepath.Join(root, "nvcc")
	os.WriteFile(cc, []byte(fakeCompiler), 0o755)
	return root, &CompilerBuilder{Root: root, Target: targets.SM90, Family: tuned.MatVec, Compiler: cc, Dir: filepath.Join(root, "cache"), Jobs: 2}
}

func TestCompilerBuilder(t *testing.T) {
	root, b := setupRoot(t)
	ctx := context.Background()
	fp1, err := b.Fingerprint("Q4_0")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := b.Build(ctx, "Q4_0", Candidate{"threads": 128, "rows": 2, "chunk": 16})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(lib)
	s := string(data)
	if !strings.Contains(s, "obj -DFORGE_TUNE_MATVEC_THREADS=128 -DFORGE_TUNE_MATVEC_ROWS=2 -DFORGE_TUNE_MATVEC_CHUNK=16") ||
		strings.Count(s, "obj") != 3 {
		t.Errorf("library:\n%s", s)
	}
	if again, err := b.Build(ctx, "Q4_0", Candidate{"threads": 128, "rows": 2, "chunk": 16}); err != nil || again != lib {
		t.Errorf("rebuild: %s, %v", again, err)
	}
	_, err = b.Build(ctx, "Q4_0", Candidate{"threads": 512, "rows": 2, "chunk": 16})
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Output, "static_assert") {
		t.Errorf("invalid candidate: %v", err)
	}
	// A source byte changed: a new fingerprint, so new cache keys.
	os.WriteFile(filepath.Join(root, "generated", "hip", "sm_90", "q4_0_matvec.hip"), []byte("matvec q4_0!"), 0o644)
	fp2, err := b.Fingerprint("Q4_0")
	if err != nil {
		t.Fatal(err)
	}
	if fp1 == fp2 {
		t.Error("a source change kept the fingerprint")
	}
	if _, err := b.Fingerprint("Q8_0"); err == nil {
		t.Error("a format without a generated file has a fingerprint")
	}
}
