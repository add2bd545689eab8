// Package qvec reads the QVEC known-answer files in ../shared/vectors
// (see that folder's README): ggml's own reference output for each format.
package qvec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
)

// Kinds of vector file.
const (
	KindDequant       = 1
	KindQuantize      = 2
	KindQuantizeEdge  = 3
	KindQuantizeChunk = 4
)

// File is one parsed vector file.
type File struct {
	Format     string // e.g. "Q4_K"
	GGMLType   int    // -1 for MXFP6
	Kind       int
	BlockElems int
	BlockBytes int
	Blocks     int
	EdgeBlocks int
	Inputs     []float32 // nil when absent
	Raw        []byte
	Floats     []float32 // nil when absent
}

const headerSize = 64

// Read reads and parses a vector file.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse parses the bytes of a vector file, checking every section against
// the file's length.
func Parse(data []byte) (*File, error) {
	if len(data) < headerSize || string(data[:4]) != "QVEC" {
		return nil, fmt.Errorf("not a QVEC file")
	}
	u32 := func(off int) uint32 { return binary.LittleEndian.Uint32(data[off:]) }
	if v := u32(4); v != 1 {
		return nil, fmt.Errorf("layout version %d, want 1", v)
	}
	f := &File{
		Format:     strings.TrimRight(string(data[8:24]), "\x00"),
		GGMLType:   int(int32(u32(24))),
		Kind:       int(u32(28)),
		BlockElems: int(u32(32)),
		BlockBytes: int(u32(36)),
		Blocks:     int(u32(40)),
		EdgeBlocks: int(u32(44)),
	}
	nElems := f.Blocks * f.BlockElems
	section := func(name string, off uint32, n int) ([]byte, error) {
		if off == 0 {
			return nil, nil
		}
		end := int64(off) + int64(n)
		if end > int64(len(data)) {
			return nil, fmt.Errorf("%s section [%d, %d) runs past the end of the file (%d bytes)", name, off, end, len(data))
		}
		return data[off:end], nil
	}
	in, err := section("inputs", u32(48), 4*nElems)
	if err != nil {
		return nil, err
	}
	if f.Raw, err = section("raw", u32(52), f.Blocks*f.BlockBytes); err != nil {
		return nil, err
	}
	fl, err := section("floats", u32(56), 4*nElems)
	if err != nil {
		return nil, err
	}
	f.Inputs, f.Floats = floats(in), floats(fl)
	return f, nil
}

func floats(b []byte) []float32 {
	if b == nil {
		return nil
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// Manifest is a vectors folder's index (manifest.json): which file holds
// which format's vectors of which kind. It is the authority on which formats
// have known answers at all; a format it does not list has none.
type Manifest struct {
	Files []Entry `json:"files"`
}

// Entry is one file of the manifest.
type Entry struct {
	File   string `json:"file"`   // "q4_k.dequant.bin", relative to the folder
	Format string `json:"format"` // "Q4_K"
	Kind   string `json:"kind"`   // "dequant", "quantize", "quantize_edge" or "quantize_chunk"
}

// ReadManifest reads a manifest.json.
func ReadManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(m.Files) == 0 {
		return nil, fmt.Errorf("%s: lists no files", path)
	}
	return &m, nil
}

// File is the name of the file holding format's vectors of kind, or "" when
// the manifest lists none.
func (m *Manifest) File(format, kind string) string {
	for _, e := range m.Files {
		if e.Format == format && e.Kind == kind {
			return e.File
		}
	}
	return ""
}
