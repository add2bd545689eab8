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
// A GGUF file is untrusted input. Every count and length read from it is
// checked before anything is allocated for it, against two bounds:
//
//   - the bytes that remain in the file: a string's length, and an array's
//     element count times the fewest bytes an element takes there (8 for a
//     string, 12 for an array, a number's size);
//   - the memory budget MaxHeaderMemory (64 MiB), from which Read takes
//     what holding each item will cost before allocating it: the bytes of
//     strings and numbers, plus Go's own per-item memory (16 bytes for each
//     string of an array, 128 for each array of an array, 176 for each
//     key/value pair and 264 for each tensor info, with their map entries
//     and the slack of their growing tables). A file whose header would
//     need more is refused, the error naming MaxHeaderMemory; so is a
//     metadata or tensor count larger than the budget could ever hold.
//
// So the parsed header never takes more than MaxHeaderMemory, whatever the
// file's size or claims (a 3 GiB file stating a 2.5 GiB string is refused
// at once, having allocated nothing), and Read's peak memory is at most
// about twice that plus a 64 KiB read buffer: the key/value and tensor
// tables grow as entries are read, leaving their old backing arrays as
// garbage; arrays are made at their full length once charged. A Go program
// reads any file within `ulimit -v 1000000` (TestHeaderMemoryUnderLimit
// fills the budget with each kind of item and reads it there).
//
// Element and byte counts are checked for overflow; every tensor's data
// [offset, offset+size) must lie inside the file at an offset that is a
// multiple of general.alignment (a non-zero power of two, 32 by default),
// and no two tensors' data may overlap (zero-byte tensors aside); tensor
// names and metadata keys must be unique, and keys non-empty; a tensor's row
// (dims[0]) must be a whole number of blocks of its type. Errors are
// *FormatError values that say what was wrong and where: the byte offset,
// and the key (with the element's index in an array, `key "k"[3]`) or tensor
// concerned. A file that ends early is reported as truncated, with what was
// being read; a length or offset that runs past the end of the file says
// that the file is truncated or the value corrupt, which the reader cannot
// tell apart. FuzzRead exercises this.
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
// accepted here (a bool is any byte, non-zero meaning true), but for one
// limit: ggml caps each string at 1 GiB and each array at 2^30 elements,
// and this reader the whole header at MaxHeaderMemory (the largest real
// headers, with 200,000-token vocabularies, take about 20 MiB). They are
// more lenient in four ways: metadata arrays may nest (up to MaxArrayDepth;
// ggml refuses nested arrays), tensor names may be 64 bytes or longer,
// general.alignment has no 1 MiB cap, and tensors need not be packed back
// to back in file order (but may not overlap).
package gguf
