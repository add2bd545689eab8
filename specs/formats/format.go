package formats

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unsafe"
)

// NoGGMLType is the GGMLType of a format that ggml does not define (MXFP6).
const NoGGMLType = -1

// Meta is the metadata a spec declares for its format.
type Meta struct {
	Name       string // canonical name, as ggml spells it ("Q4_K")
	GGMLType   int    // ggml/GGUF type id, or NoGGMLType
	BlockElems int    // elements per block
	BlockBytes int    // bytes per block
	Doc        string // one line: what the format is
	// SubBlock is the elements per sub-block of the integer form (16 or
	// 32; it divides BlockElems), or 0 when the format has none. A format
	// with one defines Codes and Scale (and optionally Offset) on its block;
	// see the package documentation.
	SubBlock int
	// NoIntForm says why a format has no integer form (SubBlock 0), for
	// forgegen explain; a test requires it of every registered format
	// without one.
	NoIntForm string
	// IntExact says that the integer form reproduces Dequant bit for bit,
	// the sign of a zero included (TestIntForm checks it). Only such a form
	// (or one with IntZero) can stand in for Dequant in a kernel that must
	// match ggml bit for bit: dequant takes it (one word of four codes and
	// one scale and offset per four elements instead of Dequant per
	// element). Where a form's arithmetic differs from Dequant's only in
	// the sign of a zero (Q4_0's d·q + (−8d) against (q−8)·d), it stays
	// false, and IntZero may say how to compute it exactly instead.
	IntExact bool
	// IntZero, when not 0, is the code that stands for zero: Dequant
	// computes float(code − IntZero)·Scale(s), bit for bit, and Offset(s)
	// is −IntZero·Scale(s). A kernel that computes (code − IntZero)·Scale
	// then reproduces Dequant exactly, the sign of a zero included, where
	// Scale·code + Offset gives +0 for Dequant's −0 (TestIntForm checks
	// both); dequant does. A format declares IntExact or IntZero, not both.
	IntZero int
	// IEEE names the one IEEE value a one-element block holds, "binary16",
	// "bfloat16" or "binary32" (Dequant widens it exactly; a test checks
	// every bit pattern), or is empty. Kernels whose result is arithmetic
	// on the values may then widen them with the hardware's conversion:
	// matvec_f32 does for binary16 on NVIDIA, where the conversion that
	// keeps a NaN's payload costs ~10% at the memory limit and the
	// arithmetic after it returns the canonical NaN for any NaN anyway.
	IEEE string
}

// ExactInt says that the integer form stands in for Dequant bit for bit,
// the sign of a zero included: Scale·code + Offset (IntExact) or
// (code − IntZero)·Scale (IntZero).
func (m Meta) ExactInt() bool { return m.SubBlock != 0 && (m.IntExact || m.IntZero != 0) }

// ieeeBytes is the block size of each IEEE kind.
var ieeeBytes = map[string]int{"binary16": 2, "bfloat16": 2, "binary32": 4}

// Format is a registered format: its metadata plus type-erased access to the
// spec's Dequant and Quantize methods.
type Format struct {
	Meta

	structSize int          // unsafe.Sizeof of the spec's block struct
	blockType  reflect.Type // the spec's block struct, for tests
	dequant    func(dst []float32, src []byte)
	quantize   func(dst []byte, src []float32)
	elem       func(src []byte, j int32) float32

	// The integer form's methods, type-erased over one block's bytes; nil
	// when the block type lacks them (see intForm).
	codes  func(blk []byte, w int32) uint32
	scale  func(blk []byte, s int32) float32
	offset func(blk []byte, s int32) float32
	// The super form's (see superForm); nil when the block lacks them.
	superScale  func(blk []byte) float32
	subScale    func(blk []byte, s int32) int32
	superOffset func(blk []byte) float32
	subOffset   func(blk []byte, s int32) int32
}

// BitsPerWeight is the storage cost of one element.
func (f *Format) BitsPerWeight() float64 {
	return float64(8*f.BlockBytes) / float64(f.BlockElems)
}

// HasGGMLType reports whether ggml defines the format.
func (f *Format) HasGGMLType() bool { return f.GGMLType != NoGGMLType }

// StructSize is the size of the spec's Go block struct; it equals BlockBytes
// for every well-formed spec (a test checks it).
func (f *Format) StructSize() int { return f.structSize }

func (f *Format) String() string { return f.Name }

// Blocks returns the number of whole blocks in n elements, or an error naming
// the format when n is not a whole number of blocks.
func (f *Format) Blocks(n int64) (int64, error) {
	if n < 0 || n%int64(f.BlockElems) != 0 {
		return 0, fmt.Errorf("%s: %d elements is not a whole number of %d-element blocks", f.Name, n, f.BlockElems)
	}
	return n / int64(f.BlockElems), nil
}

// RowBytes is the storage size of n elements, or an error when n is not a
// whole number of blocks.
func (f *Format) RowBytes(n int64) (int64, error) {
	b, err := f.Blocks(n)
	return b * int64(f.BlockBytes), err
}

// Dequantize decodes whole blocks: src holds k blocks and dst receives
// k*BlockElems floats. It runs the spec's Dequant on the calling goroutine.
func (f *Format) Dequantize(dst []float32, src []byte) error {
	if err := f.CheckSizes(len(dst), len(src)); err != nil {
		return err
	}
	if len(src) > 0 {
		f.dequant(dst, src)
	}
	return nil
}

// Quantize encodes whole blocks with the spec's reference quantizer: src
// holds k*BlockElems floats and dst receives k blocks.
func (f *Format) Quantize(dst []byte, src []float32) error {
	if err := f.CheckSizes(len(src), len(dst)); err != nil {
		return err
	}
	if len(dst) > 0 {
		f.quantize(dst, src)
	}
	return nil
}

// Elem is the value of element i of the tensor that src's blocks form, by a
// direct call of the spec's Dequant. It panics when i is out of range.
func (f *Format) Elem(src []byte, i int) float32 {
	b := i / f.BlockElems
	blk := src[b*f.BlockBytes : (b+1)*f.BlockBytes]
	return f.elem(blk, int32(i%f.BlockElems))
}

// CheckSizes reports whether nBytes of blocks and nElems floats describe the
// same whole number of blocks, and why not.
func (f *Format) CheckSizes(nElems, nBytes int) error {
	if nBytes%f.BlockBytes != 0 {
		return fmt.Errorf("%s: %d bytes is not a whole number of %d-byte blocks", f.Name, nBytes, f.BlockBytes)
	}
	if want := nBytes / f.BlockBytes * f.BlockElems; nElems != want {
		return fmt.Errorf("%s: %d bytes of blocks hold %d elements, but the float buffer has %d", f.Name, nBytes, want, nElems)
	}
	if !littleEndian {
		return fmt.Errorf("%s: forge's CPU reference needs a little-endian host", f.Name)
	}
	return nil
}

// block is what register requires of a spec's block type.
type block[B any] interface {
	*B
	Dequant(j int32) float32
	Quantize(x []float32)
}

var (
	registryMu sync.Mutex
	registry   []*Format
)

// register records a format. rows is the spec's row loop, always written as
//
//	func(dst []float32, src []BlockX) { dequantRows(dst, src, (*BlockX).Dequant) }
//
// so that Dequant is inlined into it: through a type parameter the call would
// be indirect, which costs half the CPU throughput.
func register[B any, P block[B]](m Meta, rows func(dst []float32, src []B)) *Format {
	var z B
	f := &Format{Meta: m, structSize: int(unsafe.Sizeof(z)), blockType: reflect.TypeFor[B]()}
	f.dequant = func(dst []float32, src []byte) { rows(dst, view[B](src)) }
	f.quantize = func(dst []byte, src []float32) {
		bs := view[B](dst)
		for i := range bs {
			P(&bs[i]).Quantize(src[i*m.BlockElems : (i+1)*m.BlockElems])
		}
	}
	f.elem = func(src []byte, j int32) float32 { return P(&view[B](src)[0]).Dequant(j) }
	if _, ok := any(P(&z)).(intForm); ok {
		f.codes = func(blk []byte, w int32) uint32 { return any(P(&view[B](blk)[0])).(intForm).Codes(w) }
		f.scale = func(blk []byte, s int32) float32 { return any(P(&view[B](blk)[0])).(intForm).Scale(s) }
	}
	if _, ok := any(P(&z)).(intOffset); ok {
		f.offset = func(blk []byte, s int32) float32 { return any(P(&view[B](blk)[0])).(intOffset).Offset(s) }
	}
	if _, ok := any(P(&z)).(superForm); ok {
		f.superScale = func(blk []byte) float32 { return any(P(&view[B](blk)[0])).(superForm).SuperScale() }
		f.subScale = func(blk []byte, s int32) int32 { return any(P(&view[B](blk)[0])).(superForm).SubScale(s) }
	}
	if _, ok := any(P(&z)).(superOffset); ok {
		f.superOffset = func(blk []byte) float32 { return any(P(&view[B](blk)[0])).(superOffset).SuperOffset() }
		f.subOffset = func(blk []byte, s int32) int32 { return any(P(&view[B](blk)[0])).(superOffset).SubOffset(s) }
	}
	registryMu.Lock()
	registry = append(registry, f)
	registryMu.Unlock()
	return f
}

// dequantRows is the CPU row loop shared by every spec; see register.
func dequantRows[B any](dst []float32, src []B, dequant func(*B, int32) float32) {
	n := len(dst) / len(src)
	for i := range src {
		b := &src[i]
		out := dst[i*n : i*n+n]
		for j := range out {
			out[j] = dequant(b, int32(j))
		}
	}
}

// view reinterprets whole blocks of bytes as the spec's block structs. The
// struct layouts equal the GGUF layouts (checked at registration), so this is
// the zero-copy read ggml does with its C structs.
func view[B any](src []byte) []B {
	var z B
	n := len(src) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*B)(unsafe.Pointer(unsafe.SliceData(src))), n)
}

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// All returns every registered format, ordered by ggml type id (formats
// without one last, by name).
func All() []*Format {
	registryMu.Lock()
	out := append([]*Format(nil), registry...)
	registryMu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.HasGGMLType() != b.HasGGMLType() {
			return a.HasGGMLType()
		}
		if a.GGMLType != b.GGMLType {
			return a.GGMLType < b.GGMLType
		}
		return a.Name < b.Name
	})
	return out
}

// ByName finds a format by name, ignoring case.
func ByName(name string) (*Format, bool) {
	for _, f := range All() {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return nil, false
}

// ByGGMLType finds the format with a ggml type id.
func ByGGMLType(id int) (*Format, bool) {
	if id == NoGGMLType {
		return nil, false
	}
	for _, f := range All() {
		if f.GGMLType == id {
			return f, true
		}
	}
	return nil, false
}
