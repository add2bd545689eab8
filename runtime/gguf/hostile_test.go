package gguf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocmforge/forge/internal/sharedtest"
	"github.com/rocmforge/forge/runtime/gguf"
)

// The crafted files of issue 18 (finding 2): lengths and counts that fit the
// file but not the memory, overlapping tensor data, truncation.

// craftedFile is a file of size bytes whose first bytes are head and the
// rest zeros, so that files of gigabytes cost nothing to make (sparse on
// disk, see write).
type craftedFile struct {
	name string
	head []byte
	size int64
	want []string // what the error must say
}

// write writes the file into dir, sparse past its head.
func (c craftedFile) write(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, c.name+".gguf")
	if err := os.WriteFile(path, c.head, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, c.size); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	mib = int64(1) << 20
	gib = int64(1) << 30
)

// arrayHead is the start of a file with a single metadata entry "k": an
// array of n elements of type elem, whose elements follow.
func arrayHead(elem gguf.ValueType, n uint64) []byte {
	return (&builder{kvs: []kv{{"k", gguf.TypeArray, raw(cat(le32(uint32(elem)), le64(n)))}}, noPadding: true}).bytes()
}

// zeroArray is a file of size bytes holding one array of zero-filled
// elements of type elem, each taking each bytes on disk (an all-zero array
// of arrays is a run of empty uint8 arrays, an all-zero array of strings a
// run of empty strings), and the number of elements.
func zeroArray(name string, elem gguf.ValueType, each, size int64) (craftedFile, int64) {
	head := arrayHead(elem, 0)
	n := (size - int64(len(head))) / each
	return craftedFile{name: name, head: arrayHead(elem, uint64(n)), size: size}, n
}

// craftedFiles are the files of the issue that fit in the file but not in
// memory: each must be refused before its memory is allocated.
func craftedFiles(t testing.TB) []craftedFile {
	aa, n := zeroArray("array-of-arrays", gguf.TypeArray, 12, 400*mib)
	aa.want = []string{fmt.Sprintf(`key "k": array of %d array elements needs %d bytes of memory`, n, n*gguf.ArrayElemCost), "MaxHeaderMemory"}
	as, n := zeroArray("array-of-empty-strings", gguf.TypeString, 8, 400*mib)
	as.want = []string{fmt.Sprintf(`key "k": array of %d string elements needs %d bytes of memory`, n, n*gguf.StringElemCost), "MaxHeaderMemory"}
	files := []craftedFile{aa, as}
	if tiny := tinyBytes(t); tiny != nil {
		// A copy of a valid file padded to 3 GiB with one string length
		// set to 2.5 GiB: ggml refuses it at once (GGUF_MAX_STRING_LENGTH).
		head := withBytes(tiny, kvValueAt(t, tiny, "general.name"), le64(uint64(5*gib/2)))
		files = append(files, craftedFile{name: "long-string", head: head, size: 3 * gib,
			want: []string{`key "general.name": string length 2684354560 needs 2684354560 bytes of memory`, "MaxHeaderMemory"}})
	}
	return files
}

// tinyBytes is ../shared/testdata/tiny.gguf, or nil when the shared folder
// is absent and not required (see sharedtest.Path).
func tinyBytes(t testing.TB) []byte {
	t.Helper()
	if sharedtest.Dir() == "" && os.Getenv(sharedtest.EnvRequire) != "1" {
		return nil
	}
	b, err := os.ReadFile(sharedtest.Path(t, "testdata/tiny.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// kvValueAt is the byte offset of the value of a metadata key in a file
// (after its type).
func kvValueAt(t testing.TB, data []byte, key string) int {
	t.Helper()
	i := bytes.Index(data, append(le64(uint64(len(key))), key...))
	if i < 0 {
		t.Fatalf("no key %q", key)
	}
	return i + 8 + len(key) + 4
}

// tensorOffsetAt is the byte offset of a tensor info's data offset.
func tensorOffsetAt(t testing.TB, data []byte, name string) int {
	t.Helper()
	i := bytes.Index(data, append(le64(uint64(len(name))), name...))
	if i < 0 {
		t.Fatalf("no tensor %q", name)
	}
	p := i + 8 + len(name)
	nDims := int(binary.LittleEndian.Uint32(data[p:]))
	return p + 4 + 8*nDims + 4
}

// TestOverlap checks that tensors whose data overlap or alias are refused,
// naming both, as ggml refuses them (it wants tensors packed in order);
// zero-byte tensors take no room and may sit anywhere.
func TestOverlap(t *testing.T) {
	f32 := func(name string, n uint64, off int64) tensor {
		return tensor{name: name, dims: []uint64{n}, typ: 0, offset: off}
	}
	cases := []struct {
		name string
		data []byte
		want string // "" means valid
	}{
		{"alias", (&builder{tensors: []tensor{f32("a", 8, 0), f32("b", 8, 0)}}).bytes(), `tensor "b": data [96, 128) overlaps the data [96, 128) of tensor "a"`},
		{"inside", (&builder{tensors: []tensor{f32("a", 32, 0), f32("b", 4, 64)}}).bytes(), `tensor "b": data [160, 176) overlaps the data [96, 224) of tensor "a"`},
		{"tail", (&builder{tensors: []tensor{f32("b", 16, 32), f32("a", 16, 0)}}).bytes(), `tensor "b": data [128, 192) overlaps the data [96, 160) of tensor "a"`},
		{"over an empty one", (&builder{tensors: []tensor{f32("a", 16, 0), f32("e", 0, 32), f32("c", 4, 32)}}).bytes(), `tensor "c": data [160, 176) overlaps the data [128, 192) of tensor "a"`},
		{"touching", (&builder{tensors: []tensor{f32("b", 8, 32), f32("a", 8, 0)}}).bytes(), ""},
		{"empty at another's start", (&builder{tensors: []tensor{f32("a", 8, 0), f32("e", 0, 0), f32("z", 0, 0)}}).bytes(), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := read(c.data)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant it to contain %q", err, c.want)
			}
		})
	}

	tiny := tinyBytes(t)
	if tiny == nil {
		return
	}
	// tiny.gguf with its second tensor's data moved onto the first's.
	data := withBytes(tiny, tensorOffsetAt(t, tiny, "forge.f16.weight"), le64(0))
	_, err := read(data)
	want := `tensor "forge.f16.weight": data [1632, 18016) overlaps the data [1632, 34400) of tensor "forge.f32.weight"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("tiny.gguf with aliased tensors: %v\nwant an error containing %q", err, want)
	}
}

// TestTruncatedNamed checks that a file cut short is said to be truncated,
// wherever the cut falls: in the header (the truncated-mid-header.gguf
// was called "tensor count 24 is impossible"), in the tensor infos, or in
// the data. TestTinyTruncated checks every prefix of tiny.gguf the same way.
func TestTruncatedNamed(t *testing.T) {
	full := sampleBuilder().bytes()
	for _, n := range []int{1, 4, 12, 24, 30, 60, 200, 400, len(full) / 2, len(full) - 1} {
		_, err := read(full[:n])
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("first %d of %d bytes: %v; want an error saying the file is truncated", n, len(full), err)
		}
	}
	// A reader that ends before the size it was said to have.
	if _, err := gguf.Read(bytesReader(full[:100]), int64(len(full))); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("short reader: %v", err)
	}
}

// TestHeaderCosts keeps the costs that doc.go states in step with the
// reader's.
func TestHeaderCosts(t *testing.T) {
	got := []int64{gguf.StringElemCost, gguf.ArrayElemCost, gguf.KVCost, gguf.TensorCost}
	if want := []int64{16, 128, 176, 264}; !slices.Equal(got, want) {
		t.Errorf("costs per string, array, key/value pair, tensor info: %v; doc.go says %v", got, want)
	}
}

// TestEmptyKey: ggml refuses an empty key; a run of zeros read as metadata
// is a run of empty keys, which were reported as duplicates.
func TestEmptyKey(t *testing.T) {
	_, err := read((&builder{kvs: []kv{{"", gguf.TypeUint8, uint8(1)}}}).bytes())
	var fe *gguf.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "metadata entry 0: empty key") || fe.Offset != 24 {
		t.Errorf("empty key: %v", err)
	}
}
