package gguf_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rocmforge/forge/runtime/gguf"
)

var updateSeeds = flag.Bool("update-fuzz-seeds", false, "rewrite the writer-made seeds in testdata/fuzz/FuzzRead")

// fuzzSeeds are small valid and near-valid files made by the test writer.
// They are kept in testdata/fuzz/FuzzRead (as seed-*), where `go test` runs
// them and `go test -fuzz FuzzRead` starts from them; TestFuzzSeeds keeps
// the files in step with this list.
func fuzzSeeds() map[string][]byte {
	f32 := func(name string) tensor { return tensor{name: name, dims: []uint64{4, 2}, typ: 0, offset: -1} }
	q4 := tensor{name: "q", dims: []uint64{32, 2}, typ: 2, offset: -1, data: bytes.Repeat([]byte{0x00, 0x3c, 0x12, 0x34}, 9)}
	return map[string][]byte{
		"seed-empty":      (&builder{}).bytes(),
		"seed-v2":         (&builder{version: 2, tensors: []tensor{f32("a")}}).bytes(),
		"seed-sample":     sampleBuilder().bytes(),
		"seed-align64":    (&builder{align: 64, kvs: []kv{{gguf.AlignmentKey, gguf.TypeUint32, uint32(64)}}, tensors: []tensor{f32("a"), q4}}).bytes(),
		"seed-kinds":      (&builder{tensors: []tensor{{name: "k", dims: []uint64{256, 1, 1, 1}, typ: 12, offset: -1}, {name: "m", dims: []uint64{32}, typ: 39, offset: -1}, {name: "h", dims: []uint64{3}, typ: 1, offset: -1}}}).bytes(),
		"seed-misaligned": (&builder{tensors: []tensor{f32("a"), {name: "b", dims: []uint64{4}, offset: 8}}}).bytes(),
		"seed-dup-key":    (&builder{kvs: []kv{{"a", gguf.TypeString, "x"}, {"a", gguf.TypeString, "y"}}}).bytes(),
		"seed-truncated":  (&builder{tensors: []tensor{f32("a"), q4}, truncateAt: 150}).bytes(),
		"seed-bad-array":  (&builder{kvs: []kv{{"k", gguf.TypeArray, arr{gguf.TypeString, []any{"a", raw(le64(1 << 40))}}}}}).bytes(),
		"seed-odd-row":    (&builder{tensors: []tensor{{name: "t", dims: []uint64{48}, typ: 2, offset: -1}}}).bytes(),
	}
}

func seedFile(data []byte) []byte {
	return []byte("go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n")
}

func TestFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzRead")
	for name, data := range fuzzSeeds() {
		path := filepath.Join(dir, name)
		if *updateSeeds {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, seedFile(data), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, seedFile(data)) {
			t.Errorf("%s is missing or stale (%v): run go test -run TestFuzzSeeds -update-fuzz-seeds ./runtime/gguf", path, err)
		}
		valid := map[string]bool{"seed-empty": true, "seed-v2": true, "seed-sample": true, "seed-align64": true, "seed-kinds": true}
		if _, err := read(data); (err == nil) != valid[name] {
			t.Errorf("%s: valid %v, but Read says %v", name, valid[name], err)
		}
	}
}

// craftedSeeds are the crafted files of issue 18 (see hostile_test.go) as
// fuzz seeds: the huge ones cut to their first bytes, so that their claims
// meet the end of the file where they met the memory limit, and the small
// ones whole.
func craftedSeeds() [][]byte {
	f32 := func(name string, off int64) tensor { return tensor{name: name, dims: []uint64{8}, typ: 0, offset: off} }
	return [][]byte{
		(&builder{kvs: []kv{{"general.name", gguf.TypeString, raw(le64(5 << 29))}}}).bytes(),
		append(arrayHead(gguf.TypeArray, 400<<20/12), make([]byte, 48)...),
		append(arrayHead(gguf.TypeString, 400<<20/8), make([]byte, 48)...),
		append(arrayHead(gguf.TypeArray, 4), make([]byte, 48)...),
		append(arrayHead(gguf.TypeString, 6), make([]byte, 48)...),
		(&builder{tensors: []tensor{f32("a", 0), f32("b", 0)}}).bytes(),
		(&builder{tensors: []tensor{f32("a", 0), f32("b", 16)}}).bytes(),
		(&builder{kvs: []kv{{"", gguf.TypeUint8, uint8(1)}}}).bytes(),
		sampleBuilder().bytes()[:300], // cut in the metadata
	}
}

func FuzzRead(f *testing.F) {
	for _, seed := range craftedSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := read(data)
		if err != nil {
			if fe, ok := errors.AsType[*gguf.FormatError](err); !ok || fe.Msg == "" {
				t.Fatalf("error is not a *FormatError with a message: %v", err)
			}
			return
		}
		if err := checkInvariants(g, data); err != nil {
			t.Fatal(err)
		}
	})
}

// checkInvariants checks what a successfully read file promises, and
// exercises every accessor.
func checkInvariants(g *gguf.File, data []byte) error {
	if g.Alignment <= 0 || g.Alignment&(g.Alignment-1) != 0 || g.DataStart%g.Alignment != 0 {
		return fmt.Errorf("alignment %d, data start %d", g.Alignment, g.DataStart)
	}
	keys := map[string]bool{}
	for _, kv := range g.KVs {
		if keys[kv.Key] {
			return fmt.Errorf("duplicate key %q", kv.Key)
		}
		keys[kv.Key] = true
		v := kv.Value
		_, _ = v.String(), v.TypeName()
		_, _ = v.Uint64()
		_, _ = v.Int64()
		_, _ = v.Float64()
		_, _ = v.Bool()
		_, _ = v.Strings()
		for i := range v.Len() {
			_ = v.Index(i).String()
		}
	}
	for i := range g.Tensors {
		t := &g.Tensors[i]
		for _, u := range g.Tensors[:i] {
			if t.Bytes() > 0 && u.Bytes() > 0 && t.FileOffset < u.FileOffset+u.Bytes() && u.FileOffset < t.FileOffset+t.Bytes() {
				return fmt.Errorf("tensors %q and %q overlap", t.Name, u.Name)
			}
		}
		if t.Offset%g.Alignment != 0 || t.FileOffset != g.DataStart+t.Offset || t.FileOffset+t.Bytes() > int64(len(data)) || len(t.Dims) > gguf.MaxDims {
			return fmt.Errorf("tensor %q: offset %d, file offset %d, %d bytes, dims %v", t.Name, t.Offset, t.FileOffset, t.Bytes(), t.Dims)
		}
		b, err := g.TensorData(t)
		if err != nil || int64(len(b)) != t.Bytes() {
			return fmt.Errorf("tensor %q: TensorData: %d bytes, %v", t.Name, len(b), err)
		}
		if _, ok := t.Format(); ok {
			xs, err := g.Dequantize(t)
			if err != nil || int64(len(xs)) != t.Elements() {
				return fmt.Errorf("tensor %q: Dequantize: %d floats, %v", t.Name, len(xs), err)
			}
		}
	}
	return nil
}
