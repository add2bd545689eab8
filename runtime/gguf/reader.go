package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
)

// Limits of the format and of this reader.
const (
	// MaxDims is the most dimensions a tensor may have (GGML_MAX_DIMS).
	MaxDims = 4
	// DefaultAlignment is the data alignment when general.alignment is absent.
	DefaultAlignment = 32
	// AlignmentKey is the metadata key that sets the data alignment.
	AlignmentKey = "general.alignment"
	// MaxArrayDepth is how deeply metadata arrays may nest (an array of
	// arrays has depth 2); deeper nesting is refused.
	MaxArrayDepth = 8
)

const (
	magic     = "GGUF"
	minKV     = 8 + 4 + 1     // key length, value type, smallest value
	minTensor = 8 + 4 + 4 + 8 // name length, n_dims, type, offset
)

// FormatError reports a malformed or unsupported file: what was wrong and
// where.
type FormatError struct {
	Path   string // the file's path, when opened with Open
	Item   string // the key or tensor concerned, e.g. `key "general.name"`, or ""
	Offset int64  // byte offset of the problem, or -1 when Msg says where
	Msg    string
}

func (e *FormatError) Error() string {
	var b strings.Builder
	b.WriteString("gguf: ")
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	if e.Item != "" {
		b.WriteString(e.Item + ": ")
	}
	b.WriteString(e.Msg)
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " (at byte %d)", e.Offset)
	}
	return b.String()
}

// KV is one metadata key/value pair.
type KV struct {
	Key   string
	Value Value
}

// File is a parsed GGUF file. Its tensors' data is read on demand, through
// the io.ReaderAt it was read from; TensorData and Dequantize are safe for
// concurrent use when that ReaderAt is (an *os.File is).
type File struct {
	Version   uint32   // 2 or 3
	Alignment int64    // data alignment: general.alignment or DefaultAlignment
	DataStart int64    // file offset of the data section: the end of the tensor infos rounded up to Alignment
	Size      int64    // file size in bytes
	KVs       []KV     // metadata, in file order
	Tensors   []Tensor // tensor infos, in file order

	r       io.ReaderAt
	closer  io.Closer
	keys    map[string]int
	tensors map[string]int
}

// Open opens and parses the GGUF file at path. The file stays open for
// TensorData and Dequantize until Close.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	f, err := Read(fh, st.Size())
	if err != nil {
		fh.Close()
		if fe, ok := errors.AsType[*FormatError](err); ok {
			fe.Path = path
		} else {
			err = fmt.Errorf("gguf: %s: %w", path, err)
		}
		return nil, err
	}
	f.closer = fh
	return f, nil
}

// Close closes the file that Open opened; for a File from Read it does
// nothing.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	c := f.closer
	f.closer = nil
	return c.Close()
}

// KV returns the value of a metadata key.
func (f *File) KV(key string) (Value, bool) {
	i, ok := f.keys[key]
	if !ok {
		return Value{}, false
	}
	return f.KVs[i].Value, true
}

// Tensor returns the tensor info with the given name.
func (f *File) Tensor(name string) (*Tensor, bool) {
	i, ok := f.tensors[name]
	if !ok {
		return nil, false
	}
	return &f.Tensors[i], true
}

// Read parses a GGUF file of size bytes from r. A malformed or unsupported
// file gives a *FormatError; an error from r is returned wrapped. The File
// reads tensor data from r later, so r must stay readable while it is used.
func Read(r io.ReaderAt, size int64) (*File, error) {
	if size < 0 {
		return nil, fmt.Errorf("gguf: negative file size %d", size)
	}
	buf := int(min(size, 64<<10)) // no bigger than the file: a corrupt small file costs little
	d := &decoder{r: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), buf), size: size}
	f := &File{Size: size, Alignment: DefaultAlignment, r: r}
	if err := f.parse(d); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) parse(d *decoder) error {
	if d.size < 4 {
		return d.errAt(0, "file is %d bytes, too short for a GGUF header", d.size)
	}
	m, err := d.bytes(4, "magic")
	if err != nil {
		return err
	}
	if string(m) != magic {
		return d.errAt(0, "not a GGUF file: magic %q, want %q", m, magic)
	}
	v, err := d.u32("version")
	if err != nil {
		return err
	}
	switch {
	case v == 2 || v == 3:
	case v == 1:
		return d.errAt(4, "GGUF version 1 is not supported: only versions 2 and 3 are read (v1 used 32-bit counts; re-convert the model with a current llama.cpp)")
	case bits.ReverseBytes32(v) <= 3:
		return d.errAt(4, "big-endian GGUF file (version bytes %08x); only little-endian files are supported", v)
	default:
		return d.errAt(4, "unsupported GGUF version %d: only versions 2 and 3 are read", v)
	}
	f.Version = v

	nTensors, err := d.u64("tensor count")
	if err != nil {
		return err
	}
	nKV, err := d.u64("metadata count")
	if err != nil {
		return err
	}
	// Every entry takes some bytes, so the counts are bounded by what is left.
	// That bound is loose in a large file, so slices are not sized from the
	// counts (see capHint): memory grows only with entries actually read.
	if nKV > uint64(d.left()/minKV) {
		return d.errAt(16, "metadata count %d is impossible: the %d bytes after the header hold at most %d entries", nKV, d.left(), d.left()/minKV)
	}
	if room := d.left() - int64(nKV)*minKV; nTensors > uint64(room/minTensor) {
		return d.errAt(8, "tensor count %d is impossible: the %d bytes after the header hold at most %d tensor infos besides %d metadata entries", nTensors, d.left(), room/minTensor, nKV)
	}

	f.KVs = make([]KV, 0, capHint(nKV))
	f.keys = make(map[string]int, capHint(nKV))
	for i := range nKV {
		if err := f.readKV(d, i); err != nil {
			return err
		}
	}

	f.Tensors = make([]Tensor, 0, capHint(nTensors))
	f.tensors = make(map[string]int, capHint(nTensors))
	for i := range nTensors {
		if err := f.readTensorInfo(d, i); err != nil {
			return err
		}
	}

	// The data section starts at the next multiple of the alignment; it may
	// lie past the end of a file without tensors.
	start := uint64(d.off) + uint64((f.Alignment-d.off%f.Alignment)%f.Alignment)
	if start > math.MaxInt64 {
		return d.errAt(d.off, "data section start overflows int64")
	}
	f.DataStart = int64(start)
	for i := range f.Tensors {
		if err := f.place(&f.Tensors[i]); err != nil {
			return err
		}
	}
	return nil
}

func (f *File) readKV(d *decoder, i uint64) error {
	start := d.off
	key, err := d.str("key")
	if err != nil {
		return withItem(err, fmt.Sprintf("metadata entry %d", i))
	}
	item := "key " + quote(key)
	if _, dup := f.keys[key]; dup {
		return d.errAt(start, "duplicate metadata key").with(item)
	}
	tpos := d.off
	t, err := d.u32("value type")
	if err != nil {
		return withItem(err, item)
	}
	vpos := d.off
	val, err := d.value(ValueType(t), 1, tpos)
	if err != nil {
		return withItem(err, item)
	}
	if key == AlignmentKey {
		a, ok := val.Uint64()
		switch {
		case val.Type() != TypeUint32:
			return d.errAt(tpos, "type %s, want uint32", val.TypeName()).with(item)
		case !ok || a == 0 || a&(a-1) != 0:
			return d.errAt(vpos, "alignment %d is not a power of two", a).with(item)
		}
		f.Alignment = int64(a)
	}
	f.keys[key] = len(f.KVs)
	f.KVs = append(f.KVs, KV{Key: key, Value: val})
	return nil
}

func (f *File) readTensorInfo(d *decoder, i uint64) error {
	start := d.off
	name, err := d.str("name")
	if err != nil {
		return withItem(err, fmt.Sprintf("tensor info %d", i))
	}
	item := "tensor " + quote(name)
	if _, dup := f.tensors[name]; dup {
		return d.errAt(start, "duplicate tensor name").with(item)
	}
	npos := d.off
	n, err := d.u32("dimension count")
	if err != nil {
		return withItem(err, item)
	}
	if n > MaxDims {
		return d.errAt(npos, "%d dimensions, at most %d are allowed", n, MaxDims).with(item)
	}
	t := Tensor{Name: name, Dims: make([]int64, n)}
	elems := int64(1)
	for j := range t.Dims {
		pos := d.off
		ne, err := d.u64("dimension")
		if err != nil {
			return withItem(err, item)
		}
		if ne > math.MaxInt64 {
			return d.errAt(pos, "dimension %d is %d, too large", j, ne).with(item)
		}
		t.Dims[j] = int64(ne)
		var ok bool
		if elems, ok = mul(elems, int64(ne)); !ok {
			return d.errAt(pos, "element count of shape %v overflows int64", t.Dims[:j+1]).with(item)
		}
	}
	tpos := d.off
	id, err := d.u32("type")
	if err != nil {
		return withItem(err, item)
	}
	t.Type = GGMLType(id)
	tt, ok := t.Type.Traits()
	switch {
	case int64(id) >= int64(len(typeTable)):
		return d.errAt(tpos, "unknown ggml type id %d", id).with(item)
	case !ok:
		return d.errAt(tpos, "ggml type %s (id %d) has been removed from ggml and cannot be read", t.Type, id).with(item)
	}
	ne0 := int64(1)
	if n > 0 {
		ne0 = t.Dims[0]
	}
	if ne0%int64(tt.BlockElems) != 0 {
		return d.errAt(tpos, "row of %d elements (dims[0]) is not a whole number of %d-element %s blocks", ne0, tt.BlockElems, t.Type).with(item)
	}
	rowBytes, ok := mul(ne0/int64(tt.BlockElems), int64(tt.BlockBytes))
	if ok && ne0 > 0 {
		t.bytes, ok = mul(rowBytes, elems/ne0)
	}
	if !ok {
		return d.errAt(tpos, "byte size of %s tensor of shape %v overflows int64", t.Type, t.Dims).with(item)
	}
	t.elems = elems
	opos := d.off
	off, err := d.u64("data offset")
	if err != nil {
		return withItem(err, item)
	}
	if off > math.MaxInt64 {
		return d.errAt(opos, "data offset %d is too large", off).with(item)
	}
	t.Offset = int64(off)
	f.tensors[name] = len(f.Tensors)
	f.Tensors = append(f.Tensors, t)
	return nil
}

// place checks a tensor's data range against the alignment and the file
// and sets its FileOffset.
func (f *File) place(t *Tensor) error {
	item := "tensor " + quote(t.Name)
	if t.Offset%f.Alignment != 0 {
		return (&FormatError{Offset: -1, Msg: fmt.Sprintf("data offset %d is not a multiple of the alignment %d", t.Offset, f.Alignment)}).with(item)
	}
	// DataStart and Offset are at most MaxInt64, so start is exact in
	// uint64, and so is end once start <= Size.
	start := uint64(f.DataStart) + uint64(t.Offset)
	if start > uint64(f.Size) {
		return (&FormatError{Offset: -1, Msg: fmt.Sprintf("data starts at byte %d, past the end of the file (%d bytes)", start, f.Size)}).with(item)
	}
	if end := start + uint64(t.bytes); end > uint64(f.Size) {
		return (&FormatError{Offset: -1, Msg: fmt.Sprintf("data [%d, %d) ends past end of file (%d bytes)", start, end, f.Size)}).with(item)
	}
	t.FileOffset = int64(start)
	return nil
}

// quote quotes a key or tensor name for an error message, shortening a
// long (possibly corrupt) one.
func quote(s string) string {
	const max = 100
	if len(s) <= max {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:max]), len(s))
}

// capHint is the initial capacity for n entries read from the file: n is
// bounded only by the file size, so larger slices grow as entries arrive.
func capHint(n uint64) int { return int(min(n, 64)) }

// mul multiplies non-negative a and b, reporting whether the product fits in
// an int64.
func mul(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// decoder reads the header sequentially, tracking the byte offset and
// checking every read against the bytes left in the file.
type decoder struct {
	r    *bufio.Reader
	off  int64 // offset of the next byte
	size int64
}

func (d *decoder) left() int64 { return d.size - d.off }

func (d *decoder) errAt(off int64, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func (e *FormatError) with(item string) *FormatError {
	if e.Item == "" {
		e.Item = item
	}
	return e
}

// withItem names the key or tensor in a *FormatError that does not name one.
func withItem(err error, item string) error {
	if fe, ok := errors.AsType[*FormatError](err); ok {
		fe.with(item)
	}
	return err
}

// bytes reads n bytes, failing cleanly when fewer than n remain.
func (d *decoder) bytes(n int64, what string) ([]byte, error) {
	if n < 0 || n > d.left() {
		if d.left() == 0 {
			return nil, d.errAt(d.off, "file ends before the %s", what)
		}
		return nil, d.errAt(d.off, "%s needs %d bytes but only %d remain before the end of the file", what, n, d.left())
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, d.errAt(d.off, "reading the %s: data ends before the stated file size %d", what, d.size)
		}
		return nil, fmt.Errorf("gguf: reading the %s at byte %d: %w", what, d.off, err)
	}
	d.off += n
	return b, nil
}

func (d *decoder) u32(what string) (uint32, error) {
	b, err := d.bytes(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64(what string) (uint64, error) {
	b, err := d.bytes(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// str reads a length-prefixed string.
func (d *decoder) str(what string) (string, error) {
	pos := d.off
	n, err := d.u64(what + " length")
	if err != nil {
		return "", err
	}
	if n > uint64(d.left()) {
		return "", d.errAt(pos, "%s length %d runs past the end of the file (%d bytes remain)", what, n, d.left())
	}
	b, err := d.bytes(int64(n), what)
	return string(b), err
}

// value reads a value of type t whose type id was at byte tpos; depth is the
// array nesting level of the value itself.
func (d *decoder) value(t ValueType, depth int, tpos int64) (Value, error) {
	if !t.valid() {
		return Value{}, d.errAt(tpos, "unknown value type %d", uint32(t))
	}
	switch t {
	case TypeString:
		s, err := d.str("string")
		return Value{valid: true, typ: TypeString, str: s}, err
	case TypeArray:
		a, err := d.array(depth)
		return Value{valid: true, typ: TypeArray, arr: a}, err
	}
	b, err := d.bytes(t.size(), t.String()+" value")
	if err != nil {
		return Value{}, err
	}
	return scalar(t, b), nil
}

func (d *decoder) array(depth int) (*array, error) {
	if depth > MaxArrayDepth {
		return nil, d.errAt(d.off, "arrays nested more than %d deep", MaxArrayDepth)
	}
	tpos := d.off
	et, err := d.u32("array element type")
	if err != nil {
		return nil, err
	}
	a := &array{elem: ValueType(et)}
	if !a.elem.valid() {
		return nil, d.errAt(tpos, "unknown array element type %d", et)
	}
	npos := d.off
	n, err := d.u64("array length")
	if err != nil {
		return nil, err
	}
	if max := d.left() / a.elem.minSize(); n > uint64(max) {
		return nil, d.errAt(npos, "array of %d %s elements runs past the end of the file (%d bytes remain, room for at most %d)", n, a.elem, d.left(), max)
	}
	a.n = int(n)
	switch a.elem {
	case TypeString:
		a.strs = make([]string, 0, capHint(n))
		for i := range a.n {
			s, err := d.str(fmt.Sprintf("string %d of the array", i))
			if err != nil {
				return nil, err
			}
			a.strs = append(a.strs, s)
		}
	case TypeArray:
		a.vals = make([]Value, 0, capHint(n))
		for range a.n {
			sub, err := d.array(depth + 1)
			if err != nil {
				return nil, err
			}
			a.vals = append(a.vals, Value{valid: true, typ: TypeArray, arr: sub})
		}
	default:
		if a.raw, err = d.bytes(int64(a.n)*a.elem.size(), "array data"); err != nil {
			return nil, err
		}
	}
	return a, nil
}
