package formats

// The integer form of a format: per sub-block s of SubBlock elements,
// element j's value is Scale(s)·code_j + Offset(s) with int8 codes, four to
// a 32-bit word. Kernels that use it (the integer matvec, and the cpu
// backend's DotX8) multiply words of codes with words of 8-bit activations
// by 4-way dot products (Dot4) and apply the scale and offset once per
// sub-block, instead of decoding every element to a float.

// intForm is what a block type with an integer form defines:
//
//   - Codes(w) is the codes of elements 4w..4w+3 as four int8 (two's
//     complement bytes), element 4w in the low byte, for 0 <= w <
//     BlockElems/4;
//   - Scale(s) is sub-block s's scale, 0 <= s < BlockElems/SubBlock;
//   - Offset(s) (intOffset, optional) is sub-block s's offset; without it
//     every offset is 0 and nothing is added.
//
// The contract, which TestIntForm checks over random and known-answer
// blocks with finite float fields: for every element j of sub-block s,
//
//	Dequant(j) == Scale(s)*float32(int8(byte j%4 of Codes(j/4))) + Offset(s)
//
// as float32 operations (one rounded product, then one rounded sum; no
// FMA), bit for bit, except that a zero may have either sign: an offset
// form computes d·q + (-8d) where Dequant computes (q-8)·d, and x + (-x)
// is +0 where (x-x)·d may be -0; int8 has no -0 for MXFP6's code -0.
// Every spec writes its form so that the products and sums are exact or
// are the same rounded operations as its Dequant; each says which.
type intForm interface {
	Codes(w int32) uint32
	Scale(s int32) float32
}

type intOffset interface {
	Offset(s int32) float32
}

// superForm is the integer form's optional super form, for formats whose
// sub-block scales are small integers under one float scale per block (the
// K-quants): kernels then accumulate code·SubScale products in integers
// over a whole block and convert once, where the plain form costs a float
// multiply-add per sub-block.
//
//   - SuperScale() is the block's scale of its sub-block scales;
//   - SubScale(s) is sub-block s's integer scale, in [-128, 127];
//   - SuperOffset() and SubOffset(s) (superOffset) are the same for Offset,
//     required where the form has offsets and no IntZero.
//
// The contract, which TestSuperForm checks as TestIntForm does: for every
// sub-block s, Scale(s) == SuperScale()*float32(SubScale(s)) and Offset(s)
// == SuperOffset()*float32(SubOffset(s)), bit for bit.
type superForm interface {
	SuperScale() float32
	SubScale(s int32) int32
}

type superOffset interface {
	SuperOffset() float32
	SubOffset(s int32) int32
}

// Word32 is the little-endian 32-bit word at bytes i..i+3 of a, a block's
// byte-array field (uint8 or int8), written Word32(b.Field[:], i) in the
// device subset: the one slice expression the subset allows. The
// translator emits the widest load the address's alignment allows (see
// gen/translate).
func Word32[T uint8 | int8](a []T, i int32) uint32 {
	_ = a[i+3]
	return uint32(uint8(a[i])) | uint32(uint8(a[i+1]))<<8 | uint32(uint8(a[i+2]))<<16 | uint32(uint8(a[i+3]))<<24
}

// Word16 is the little-endian 16-bit halfword at bytes i..i+1 of a, as
// Word32.
func Word16[T uint8 | int8](a []T, i int32) uint16 {
	_ = a[i+1]
	return uint16(uint8(a[i])) | uint16(uint8(a[i+1]))<<8
}

// Dot4 is c plus the dot product of a and b read as four signed bytes each
// (the low byte of a times the low byte of b, and so on), with int32
// wrap-around: NVIDIA's __dp4a, AMD's v_dot4_i32_i8. The device subset
// translates it to forge_dot4.
func Dot4(a, b uint32, c int32) int32 {
	for k := range 4 {
		c += int32(int8(a>>(8*k))) * int32(int8(b>>(8*k)))
	}
	return c
}

// spread4 moves bit k of x (k < 4) to bit 0 of byte k: the multiplier's
// terms shift x by 0, 7, 14 and 21, which put bit k at bit 8k without
// overlapping carries (x < 16), and the mask keeps those bits.
func spread4(x uint32) uint32 {
	return x & 15 * 0x00204081 & 0x01010101
}

// Lut16 is four lookups in a 16-entry table at once: byte k of the result
// is uint8(t[(q>>(8k))&15]), k = 0..3. The low nibble of each byte of q is a
// code and the high nibbles are ignored, so a shifted word of packed
// nibbles needs no mask. It is written Lut16(&table, q) in the device
// subset, with table a package-level [16]int8 of constant contents (the
// one address expression the subset allows): the translator packs the
// table into four 32-bit constants and emits forge_lut16, which selects
// the four bytes with byte permutes in registers (__byte_perm on NVIDIA,
// v_perm_b32 on AMD) instead of four dependent loads from a table in
// memory.
func Lut16(t *[16]int8, q uint32) uint32 {
	return uint32(uint8(t[q&15])) | uint32(uint8(t[q>>8&15]))<<8 |
		uint32(uint8(t[q>>16&15]))<<16 | uint32(uint8(t[q>>24&15]))<<24
}

// HasIntForm reports whether the format has an integer form: SubBlock > 0
// and the block type defines Codes and Scale (a test checks that both or
// neither hold for every registered format).
func (f *Format) HasIntForm() bool { return f.SubBlock > 0 && f.codes != nil }

// HasIntOffset reports whether the integer form has offsets (the block
// defines Offset); without them every offset is 0.
func (f *Format) HasIntOffset() bool { return f.offset != nil }

// IntCodes is Codes(w) of the block in blk (BlockBytes bytes).
func (f *Format) IntCodes(blk []byte, w int32) uint32 { return f.codes(blk[:f.BlockBytes], w) }

// IntScale is Scale(s) of the block in blk.
func (f *Format) IntScale(blk []byte, s int32) float32 { return f.scale(blk[:f.BlockBytes], s) }

// IntOffset is Offset(s) of the block in blk, 0 when the form has no offsets.
func (f *Format) IntOffset(blk []byte, s int32) float32 {
	if f.offset == nil {
		return 0
	}
	return f.offset(blk[:f.BlockBytes], s)
}

// HasSuperForm reports whether the integer form has a super form (the block
// defines SuperScale and SubScale; see superForm).
func (f *Format) HasSuperForm() bool { return f.HasIntForm() && f.superScale != nil }

// HasSuperOffset reports whether the super form has offsets (SuperOffset
// and SubOffset).
func (f *Format) HasSuperOffset() bool { return f.HasSuperForm() && f.superOffset != nil }

// SuperScale is SuperScale() of the block in blk.
func (f *Format) SuperScale(blk []byte) float32 { return f.superScale(blk[:f.BlockBytes]) }

// SubScale is SubScale(s) of the block in blk.
func (f *Format) SubScale(blk []byte, s int32) int32 { return f.subScale(blk[:f.BlockBytes], s) }

// SuperOffset is SuperOffset() of the block in blk, 0 without super offsets.
func (f *Format) SuperOffset(blk []byte) float32 {
	if f.superOffset == nil {
		return 0
	}
	return f.superOffset(blk[:f.BlockBytes])
}

// SubOffset is SubOffset(s) of the block in blk, 0 without super offsets.
func (f *Format) SubOffset(blk []byte, s int32) int32 {
	if f.subOffset == nil {
		return 0
	}
	return f.subOffset(blk[:f.BlockBytes], s)
}

// NeedsSuperOffset reports whether a super form must have offsets: the
// integer form has an Offset that no IntZero accounts for.
func (f *Format) NeedsSuperOffset() bool { return f.HasIntOffset() && f.IntZero == 0 }

// intDefined reports whether the block type defines Codes and Scale, for
// the test that SubBlock and the methods agree.
func (f *Format) intDefined() bool { return f.codes != nil && f.scale != nil }
