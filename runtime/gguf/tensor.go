package gguf

import (
	"errors"
	"fmt"
	"io"

	"github.com/rocmforge/forge/specs/formats"
)

// Tensor is a tensor info: where a tensor's data lies and how to read it.
// The data is contiguous in ggml's order: Dims[0] elements per row, rows
// back to back, i.e. row-major [Dims[3]][Dims[2]][Dims[1]][Dims[0]].
type Tensor struct {
	Name       string
	Dims       []int64  // ne[0] (the row length, contiguous) first; 0 to MaxDims entries
	Type       GGMLType // ggml type id
	Offset     int64    // from the start of the data section; a multiple of the alignment
	FileOffset int64    // from the start of the file

	elems int64
	bytes int64
}

// TypeName is the ggml name of the tensor's type ("Q4_K").
func (t *Tensor) TypeName() string { return t.Type.String() }

// Elements is the number of elements, the product of Dims.
func (t *Tensor) Elements() int64 { return t.elems }

// Bytes is the size of the tensor's data.
func (t *Tensor) Bytes() int64 { return t.bytes }

// Format is forge's spec for the tensor's type, if forge has one.
func (t *Tensor) Format() (*formats.Format, bool) {
	return formats.ByGGMLType(int(t.Type))
}

// own returns the file's own info for t, so that a Tensor the caller built
// or modified cannot point reads outside the checked range.
func (f *File) own(t *Tensor) (*Tensor, error) {
	if t == nil {
		return nil, errors.New("gguf: nil tensor")
	}
	o, ok := f.Tensor(t.Name)
	if !ok {
		return nil, fmt.Errorf("gguf: no tensor %s in this file", quote(t.Name))
	}
	return o, nil
}

// TensorData reads exactly the bytes of a tensor of f.
func (f *File) TensorData(t *Tensor) ([]byte, error) {
	t, err := f.own(t)
	if err != nil {
		return nil, err
	}
	b := make([]byte, t.bytes)
	n, err := f.r.ReadAt(b, t.FileOffset)
	if n == len(b) {
		return b, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, fmt.Errorf("gguf: tensor %s: reading data [%d, %d): %w", quote(t.Name), t.FileOffset, t.FileOffset+t.bytes, err)
}

// Dequantize decodes a tensor of f to float32 with forge's spec for its
// type, in the data's order (row-major, Dims[0] fastest). It fails, naming
// the type, when forge has no spec for it.
func (f *File) Dequantize(t *Tensor) ([]float32, error) {
	t, err := f.own(t)
	if err != nil {
		return nil, err
	}
	spec, ok := t.Format()
	if !ok {
		return nil, fmt.Errorf("gguf: unsupported tensor type %s (id %d) for tensor %s: forge has no spec for it", t.Type, uint32(t.Type), quote(t.Name))
	}
	data, err := f.TensorData(t)
	if err != nil {
		return nil, err
	}
	out := make([]float32, t.elems)
	if err := spec.Dequantize(out, data); err != nil {
		return nil, fmt.Errorf("gguf: tensor %s: %w", quote(t.Name), err)
	}
	return out, nil
}
