package gguf

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"
	"unsafe"
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
	// MaxHeaderMemory is the most memory Read takes to hold a file's header
	// (its metadata and tensor infos), as counted by the costs below: a file
	// whose header needs more is refused before that memory is allocated.
	// It is several times what the largest real headers need (a 200,000-token
	// vocabulary with its 450,000 merges takes about 20 MiB), and low enough
	// that a Go program reads any file under `ulimit -v 1000000`, which
	// leaves it about 220 MB of heap.
	MaxHeaderMemory = 64 << 20
)

const magic = "GGUF"

// What each item of a header costs in memory, charged against
// MaxHeaderMemory before it is allocated, besides the bytes of its strings
// and fixed-size array elements: Go's headers; for each key/value pair and
// tensor info, its place in a table that grows as entries are read (counted
// twice: while the table grows, its old copy is garbage not yet collected)
// and a map entry (with the map's slack); a tensor's dims and its place in
// the overlap check.
const (
	mapEntryCost   = 64
	kvCost         = 2*int64(unsafe.Sizeof(KV{})) + mapEntryCost
	tensorCost     = 2*int64(unsafe.Sizeof(Tensor{})) + MaxDims*8 + mapEntryCost + 8
	arrayCost      = int64(unsafe.Sizeof(array{}))
	stringElemCost = int64(unsafe.Sizeof(""))
	arrayElemCost  = int64(unsafe.Sizeof(Value{})) + arrayCost
	maxKVs         = uint64(MaxHeaderMemory / kvCost)
	maxTensors     = uint64(MaxHeaderMemory / tensorCost)
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
	d := &decoder{r: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), buf), size: size, budget: MaxHeaderMemory}
	f := &File{Size: size, Alignment: DefaultAlignment, r: r}
	if err := f.parse(d); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) parse(d *decoder) error {
	switch {
	case d.size == 0:
		return d.errAt(0, "empty file: not a GGUF file")
	case d.size < 4:
		return d.errAt(0, "file truncated: %d bytes, too short for a GGUF header", d.size)
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
	if nTensors > maxTensors {
		return d.errAt(8, "tensor count %d is more than the %d tensor infos that a header may hold in memory (MaxHeaderMemory)", nTensors, maxTensors)
	}
	nKV, err := d.u64("metadata count")
	if err != nil {
		return err
	}
	if nKV > maxKVs {
		return d.errAt(16, "metadata count %d is more than the %d entries that a header may hold in memory (MaxHeaderMemory)", nKV, maxKVs)
	}
	// A count within those limits that the rest of the file cannot hold
	// means a truncated file (or a corrupt count): reading the entries
	// finds where the file ends and says so. Slices are not sized from the
	// counts (see capHint): memory grows only with entries actually read,
	// each charged to the budget first.
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
	return f.checkOverlap()
}

// readKV reads metadata entry i, naming it in an error: by its key once
// that is read. The name is made only for an error, so that reading many
// entries leaves no garbage behind.
func (f *File) readKV(d *decoder, i uint64) error {
	key, err := f.kv(d)
	switch {
	case err == nil:
		return nil
	case key == "":
		return withItem(err, fmt.Sprintf("metadata entry %d", i))
	}
	return withItem(err, "key "+quote(key))
}

// kv reads a metadata entry, returning its key (once read) with an error
// that does not name it.
func (f *File) kv(d *decoder) (key string, err error) {
	start := d.off
	if !d.charge(1, kvCost) {
		return "", d.overBudget(start, 1, kvCost, "metadata entry")
	}
	if key, err = d.str("key"); err != nil {
		return "", err
	}
	if key == "" {
		// ggml refuses empty keys; a run of zeros read as metadata is a run
		// of them.
		return "", d.errAt(start, "empty key")
	}
	if _, dup := f.keys[key]; dup {
		return key, d.errAt(start, "duplicate metadata key")
	}
	tpos := d.off
	t, err := d.u32("value type")
	if err != nil {
		return key, err
	}
	vpos := d.off
	val, err := d.value(ValueType(t), 1, tpos)
	if err != nil {
		return key, err
	}
	if key == AlignmentKey {
		a, ok := val.Uint64()
		switch {
		case val.Type() != TypeUint32:
			return key, d.errAt(tpos, "type %s, want uint32", val.TypeName())
		case !ok || a == 0 || a&(a-1) != 0:
			return key, d.errAt(vpos, "alignment %d is not a power of two", a)
		}
		f.Alignment = int64(a)
	}
	f.keys[key] = len(f.KVs)
	f.KVs = append(f.KVs, KV{Key: key, Value: val})
	return key, nil
}

// readTensorInfo reads tensor info i, naming it in an error: by its name
// once that is read (made only for an error, as in readKV).
func (f *File) readTensorInfo(d *decoder, i uint64) error {
	name, err := f.tensorInfo(d)
	switch {
	case err == nil:
		return nil
	case name == "":
		return withItem(err, fmt.Sprintf("tensor info %d", i))
	}
	return withItem(err, "tensor "+quote(name))
}

// tensorInfo reads a tensor info, returning its name (once read) with an
// error that does not name it.
func (f *File) tensorInfo(d *decoder) (name string, err error) {
	start := d.off
	if !d.charge(1, tensorCost) {
		return "", d.overBudget(start, 1, tensorCost, "tensor info")
	}
	if name, err = d.str("name"); err != nil {
		return "", err
	}
	if _, dup := f.tensors[name]; dup {
		return name, d.errAt(start, "duplicate tensor name")
	}
	npos := d.off
	n, err := d.u32("dimension count")
	if err != nil {
		return name, err
	}
	if n > MaxDims {
		return name, d.errAt(npos, "%d dimensions, at most %d are allowed", n, MaxDims)
	}
	t := Tensor{Name: name, Dims: make([]int64, n)}
	elems := int64(1)
	for j := range t.Dims {
		pos := d.off
		ne, err := d.u64("dimension")
		if err != nil {
			return name, err
		}
		if ne > math.MaxInt64 {
			return name, d.errAt(pos, "dimension %d is %d, too large", j, ne)
		}
		t.Dims[j] = int64(ne)
		var ok bool
		if elems, ok = mul(elems, int64(ne)); !ok {
			return name, d.errAt(pos, "element count of shape %v overflows int64", t.Dims[:j+1])
		}
	}
	tpos := d.off
	id, err := d.u32("type")
	if err != nil {
		return name, err
	}
	t.Type = GGMLType(id)
	tt, ok := t.Type.Traits()
	switch {
	case int64(id) >= int64(len(typeTable)):
		return name, d.errAt(tpos, "unknown ggml type id %d", id)
	case !ok:
		return name, d.errAt(tpos, "ggml type %s (id %d) has been removed from ggml and cannot be read", t.Type, id)
	}
	ne0 := int64(1)
	if n > 0 {
		ne0 = t.Dims[0]
	}
	if ne0%int64(tt.BlockElems) != 0 {
		return name, d.errAt(tpos, "row of %d elements (dims[0]) is not a whole number of %d-element %s blocks", ne0, tt.BlockElems, t.Type)
	}
	rowBytes, ok := mul(ne0/int64(tt.BlockElems), int64(tt.BlockBytes))
	if ok && ne0 > 0 {
		t.bytes, ok = mul(rowBytes, elems/ne0)
	}
	if !ok {
		return name, d.errAt(tpos, "byte size of %s tensor of shape %v overflows int64", t.Type, t.Dims)
	}
	t.elems = elems
	opos := d.off
	off, err := d.u64("data offset")
	if err != nil {
		return name, err
	}
	if off > math.MaxInt64 {
		return name, d.errAt(opos, "data offset %d is too large", off)
	}
	t.Offset = int64(off)
	f.tensors[name] = len(f.Tensors)
	f.Tensors = append(f.Tensors, t)
	return name, nil
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
		return (&FormatError{Offset: -1, Msg: fmt.Sprintf("data starts at byte %d, past the end of the file (%d bytes): the file is truncated or the offset corrupt", start, f.Size)}).with(item)
	}
	if end := start + uint64(t.bytes); end > uint64(f.Size) {
		return (&FormatError{Offset: -1, Msg: fmt.Sprintf("data [%d, %d) ends past the end of the file (%d bytes): the file is truncated or the offset corrupt", start, end, f.Size)}).with(item)
	}
	t.FileOffset = int64(start)
	return nil
}

// checkOverlap refuses tensors whose data share bytes. ggml wants tensors
// packed back to back in file order, which rules that out; this reader
// allows any order and gaps, so it checks it directly. Zero-byte tensors
// hold no data and may lie anywhere.
func (f *File) checkOverlap() error {
	order := make([]int, 0, len(f.Tensors))
	for i := range f.Tensors {
		if f.Tensors[i].bytes > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(f.Tensors[a].FileOffset, f.Tensors[b].FileOffset)
	})
	// Sorted by start, the first overlap is between neighbours.
	for k := 1; k < len(order); k++ {
		p, t := &f.Tensors[order[k-1]], &f.Tensors[order[k]]
		if pend := p.FileOffset + p.bytes; t.FileOffset < pend {
			return (&FormatError{Offset: -1, Msg: fmt.Sprintf("data [%d, %d) overlaps the data [%d, %d) of tensor %s",
				t.FileOffset, t.FileOffset+t.bytes, p.FileOffset, pend, quote(p.Name))}).with("tensor " + quote(t.Name))
		}
	}
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

// decoder reads the header sequentially, tracking the byte offset,
// checking every read against the bytes left in the file and every
// allocation against the memory budget.
type decoder struct {
	r       *bufio.Reader
	off     int64 // offset of the next byte
	size    int64
	budget  int64 // bytes of MaxHeaderMemory not yet charged
	scratch [8]byte
}

func (d *decoder) left() int64 { return d.size - d.off }

func (d *decoder) errAt(off int64, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// with names the key or tensor in e, unless it names one already; an Item
// that is only an element index (see inElement) gets the name in front.
func (e *FormatError) with(item string) *FormatError {
	if e.Item == "" || e.Item[0] == '[' {
		e.Item = item + e.Item
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

// inElement adds to a *FormatError's Item the index of the array element
// it is about (`key "k"[3][0]`, with the key added last by with); it is
// added on the way out, so that reading an element builds no message.
func inElement(err error, i int) error {
	if fe, ok := errors.AsType[*FormatError](err); ok {
		fe.Item = fmt.Sprintf("[%d]", i) + fe.Item
	}
	return err
}

// charge takes count items of each bytes from the memory budget, before
// they are allocated, reporting whether the budget covered them.
func (d *decoder) charge(count uint64, each int64) bool {
	if each == 0 || count <= uint64(d.budget/each) {
		d.budget -= int64(count) * each
		return true
	}
	return false
}

// overBudget is the error for what, read at byte pos, whose count items of
// each bytes the budget does not cover.
func (d *decoder) overBudget(pos int64, count uint64, each int64, what string) *FormatError {
	need := "more than 2^64 bytes"
	if hi, lo := bits.Mul64(count, uint64(each)); hi == 0 {
		need = fmt.Sprintf("%d bytes", lo)
	}
	return d.errAt(pos, "%s needs %s of memory, more than the %d bytes left of the %d MiB that a header may take (MaxHeaderMemory)", what, need, d.budget, MaxHeaderMemory>>20)
}

// truncated reports that the file ends before the n bytes of what at d.off.
func (d *decoder) truncated(n int64, what string) *FormatError {
	if d.left() == 0 {
		return d.errAt(d.off, "file truncated: it ends before the %s", what)
	}
	return d.errAt(d.off, "file truncated: the %s needs %d bytes but only %d remain", what, n, d.left())
}

// read fills b from the file, failing cleanly when fewer bytes remain.
func (d *decoder) read(b []byte, what string) error {
	if int64(len(b)) > d.left() {
		return d.truncated(int64(len(b)), what)
	}
	n, err := io.ReadFull(d.r, b)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return d.errAt(d.off, "file truncated: its data ends at byte %d, before the stated size of %d bytes, in the %s", d.off+int64(n), d.size, what)
		}
		return fmt.Errorf("gguf: reading the %s at byte %d: %w", what, d.off, err)
	}
	d.off += int64(n)
	return nil
}

// bytes reads n bytes, which the caller has charged to the budget.
func (d *decoder) bytes(n int64, what string) ([]byte, error) {
	if n > d.left() {
		return nil, d.truncated(n, what)
	}
	b := make([]byte, n)
	if err := d.read(b, what); err != nil {
		return nil, err
	}
	return b, nil
}

func (d *decoder) u32(what string) (uint32, error) {
	b := d.scratch[:4]
	if err := d.read(b, what); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64(what string) (uint64, error) {
	b := d.scratch[:8]
	if err := d.read(b, what); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// str reads a length-prefixed string, charging its bytes to the budget.
// The string is allocated once, at its size, and filled from the read
// buffer.
func (d *decoder) str(what string) (string, error) {
	pos := d.off
	if d.left() < 8 { // described here, so that the common path builds no message
		return "", d.truncated(8, what+" length")
	}
	n, err := d.u64(what)
	if err != nil {
		return "", err
	}
	if n > uint64(d.left()) {
		return "", d.errAt(pos, "%s length %d runs past the end of the file (%d bytes remain): the file is truncated or the length corrupt", what, n, d.left())
	}
	if !d.charge(n, 1) {
		return "", d.overBudget(pos, n, 1, fmt.Sprintf("%s length %d", what, n))
	}
	var b strings.Builder
	b.Grow(int(n))
	for rem := int(n); rem > 0; {
		chunk, err := d.r.Peek(min(rem, d.r.Size()))
		b.Write(chunk)
		d.r.Discard(len(chunk))
		d.off += int64(len(chunk))
		rem -= len(chunk)
		if err != nil && rem > 0 {
			if errors.Is(err, io.EOF) {
				return "", d.errAt(d.off, "file truncated: its data ends at byte %d, before the stated size of %d bytes, in the %s", d.off, d.size, what)
			}
			return "", fmt.Errorf("gguf: reading the %s at byte %d: %w", what, d.off, err)
		}
	}
	return b.String(), nil
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
		if !d.charge(1, arrayCost) {
			return Value{}, d.overBudget(tpos, 1, arrayCost, "array")
		}
		a, err := d.array(depth)
		return Value{valid: true, typ: TypeArray, arr: a}, err
	}
	b := d.scratch[:t.size()]
	if int64(len(b)) > d.left() { // described here, so that the common path builds no message
		return Value{}, d.truncated(int64(len(b)), t.String()+" value")
	}
	if err := d.read(b, "value"); err != nil {
		return Value{}, err
	}
	return scalar(t, b), nil
}

// array reads an array whose own memory (arrayCost) has been charged.
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
	// Every element takes at least minSize bytes of the file, and its
	// memory is charged before the slice is made at its full length (as
	// ggml does; growing it by appending would leave as much again in
	// garbage): an array takes no more than is left of the budget, and
	// no more than 2× (strings) or 11× (arrays) the bytes that remain.
	if max := d.left() / a.elem.minSize(); n > uint64(max) {
		return nil, d.errAt(npos, "array of %d %s elements runs past the end of the file (%d bytes remain, room for at most %d): the file is truncated or the length corrupt", n, a.elem, d.left(), max)
	}
	each := a.elem.size()
	switch a.elem {
	case TypeString:
		each = stringElemCost
	case TypeArray:
		each = arrayElemCost
	}
	if !d.charge(n, each) {
		return nil, d.overBudget(npos, n, each, fmt.Sprintf("array of %d %s elements", n, a.elem))
	}
	a.n = int(n)
	switch a.elem {
	case TypeString:
		a.strs = make([]string, a.n)
		for i := range a.strs {
			if a.strs[i], err = d.str("string"); err != nil {
				return nil, inElement(err, i)
			}
		}
	case TypeArray:
		a.vals = make([]Value, a.n)
		for i := range a.vals {
			sub, err := d.array(depth + 1)
			if err != nil {
				return nil, inElement(err, i)
			}
			a.vals[i] = Value{valid: true, typ: TypeArray, arr: sub}
		}
	default:
		if a.raw, err = d.bytes(int64(a.n)*each, "array data"); err != nil {
			return nil, err
		}
	}
	return a, nil
}
