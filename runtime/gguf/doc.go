// Package gguf reads GGUF model files (versions 2 and 3, little-endian): the
// header, every metadata key/value, the tensor infos, and the raw or
// dequantized data of any tensor.
//
// It owns
//
//   - the file structure: parsing and validating header, metadata and tensor
//     infos (Open, Read, File, Value, Tensor);
//   - ggml's table of tensor type ids with each type's block geometry
//     (GGMLType, TypeTraits), covering every ggml type, so that the size and
//     position of any tensor can be computed and listed even when forge has no
//     spec for its type;
//   - reading a tensor's bytes (File.TensorData) and dequantizing them through
//     the format spec registered in specs/formats (File.Dequantize).
//
// It does not own quantization formats themselves: those are the specs in
// specs/formats, looked up with formats.ByGGMLType.
//
// # Untrusted input
//
// A GGUF file is untrusted input. Every count, length, offset and size read
// from it is checked against the bytes that remain in the file before
// anything is allocated for it, so a corrupt count is an error and never a
// huge allocation or a panic; element and byte counts are checked for
// overflow; every tensor's data [offset, offset+size) must lie inside the file
// at an offset that is a multiple of general.alignment (a non-zero power of
// two, 32 by default); tensor names and metadata keys must be unique; a
// tensor's row (dims[0]) must be a whole number of blocks of its type. Errors
// are *FormatError values that say what was wrong and where: the byte offset,
// and the key or tensor concerned. Memory use is bounded by a small multiple
// of the file size. FuzzRead exercises this.
//
// # Why not gguf-parser-go
//
// github.com/gpustack/gguf-parser-go was evaluated first. It parses the header,
// metadata and tensor infos (no tensor data: it is aimed at estimating memory
// use, reading remote files over HTTP), and pulls in about a dozen modules
// (HTTP, DNS-cache, JSON-iterator, x/exp, x/tools ...). It does not survive
// corrupt input: it allocates straight from untrusted counts
// (make(..., metadataKVCount), string buffers of the stated length, array and
// dims slices), ignores short reads, divides by a zero general.alignment, and
// its value accessors panic on a type mismatch; it also trims whitespace from
// strings, so metadata values are not read exactly, and never bounds-checks
// tensor offsets against the file. Wrapping it would have meant re-validating
// everything it reads, so this package is a small reader of its own with no
// dependencies beyond the standard library and specs/formats.
//
// The format is described in ggml's docs/gguf.md. The checks follow ggml's
// own reader (gguf.cpp, which llama.cpp uses), so that a file ggml accepts is
// accepted here (a bool is any byte, non-zero meaning true), and are more
// lenient in four ways: metadata arrays may nest (up to MaxArrayDepth;
// ggml refuses nested arrays), tensor names may be 64 bytes or longer,
// general.alignment has no 1 MiB cap, and tensors need not be packed back
// to back in file order.
package gguf
