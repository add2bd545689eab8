// Package formats holds forge's quantization-format specs: one file per format,
// each the single definition from which every kernel, wrapper, test and benchmark
// of that format follows.
//
// A spec is ordinary Go and is therefore also the CPU reference implementation.
// Each spec file declares
//
//   - the block as a struct whose memory layout is exactly the GGUF/ggml block
//     (fields in file order, no padding; the size is checked at registration and
//     by a test);
//   - the value of element j of a block as a method
//     func (b *BlockX) Dequant(j int32) float32, with j in [0, elements per block);
//   - a reference quantizer func (b *BlockX) Quantize(x []float32), which fills
//     the block from exactly one block's worth of inputs, following ggml's
//     `quantize_row_*_ref` operation for operation so that the bytes match
//     (the one exception: IQ4_NL's all-zero blocks, see BlockIQ4NL.Quantize);
//   - the format's metadata, registered with register (name, ggml type id,
//     elements and bytes per block, the integer form's sub-block), plus a
//     one-line row loop that lets the Go compiler inline Dequant into the
//     CPU hot path;
//   - where the values are, per sub-block of 16 or 32 elements, int8 codes
//     times a scale plus an offset: the integer form, methods Codes (four
//     codes to a 32-bit word), Scale and optionally Offset, in the Dequant
//     subset (see intForm for the contract and its test); otherwise
//     Meta.NoIntForm says why not. X8 and DotX8 are the host reference of
//     the integer dot product that the kernels run.
//
// # The Dequant subset
//
// Dequant bodies, and the helpers and package-level tables they use, are later
// translated into HIP device code, so they are written in a small subset of Go:
//
//   - fixed-width integers (int8..int32, uint8..uint32) and float32; no int,
//     uint, int64, pointers other than the receiver, slices, maps, strings,
//     closures, goroutines or interfaces;
//   - arithmetic, shifts with constant or provably small counts, masks,
//     comparisons, explicit conversions;
//   - reads of the receiver's fixed-size array fields and of package-level
//     fixed-size array tables;
//   - if/else, and for loops with constant bounds;
//   - calls to small helper functions written in the same subset, and to the
//     scalar conversions of this package (Half.Float32, BFloat16.Float32,
//     E8M0.Float32, E8M0.HalfScale), Word32 and Word16 (as
//     Word32(b.Field[:], i), the one slice expression allowed), Lut16 (as
//     Lut16(&table, q) of a constant [16]int8 table, the one address
//     expression allowed) and Dot4, which the translator maps to device
//     intrinsics;
//   - no imports other than math.
//
// Quantize methods are host-only reference code; they may use float64 and the
// math package, but must keep ggml's float32 operation order. Go permits fusing
// x*y+z into an FMA on some architectures; an explicit float32(x*y) conversion
// forbids it, and the quantizers use one wherever ggml rounds a product.
//
// Host byte order must be little-endian, as GGUF is; Blocks refuses otherwise.
package formats
