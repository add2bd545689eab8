// Package translate owns the translation of format specs' Go into HIP C++
// device code: Block turns a block struct, its Dequant method, its integer
// form's Codes, Scale and Offset methods where it has them, and every
// helper function, block method and package-level table they reach into a
// self-contained ir.Device; Format does the same for a registered format
// and completes the integer form from its Meta (SubBlock, NoIntForm). It
// reads the type-checked package (go/types); it never runs the spec.
//
// This comment is the reference for the device subset of Go: what a Dequant
// body may contain, what each construct becomes, and where the C++ differs
// from Go. Anything outside the subset is an *Error at the offending node
// (file:line:col relative to the module root, and a message naming the
// construct); Block reports every error in the reachable code, sorted, as an
// ErrorList, and returns no code.
//
// # Output
//
// For a block type BlockQ4_0 the Code is, in this order:
//
//   - struct forge_BlockQ4_0 with the Go fields in order and C types
//     (uint8 → uint8_t, int16 → int16_t, float32 → float, bool → bool,
//     formats.Half → forge_half, formats.BFloat16 → forge_bfloat16,
//     formats.E8M0 → forge_e8m0, [N]T → T name[N], nested arrays too;
//     blank fields are named pad0, pad1, …), then static_assert on its size
//     and, per field, on __builtin_offsetof, with the Go values (gc, amd64);
//   - each table Dequant uses, in order of first use:
//     static __device__ const T forge_<name>[N] = {…};
//   - each helper function and block method, callees first:
//     static FORGE_DEVICE T forge_<func>(…) and
//     static FORGE_DEVICE T forge_BlockQ4_0_<method>(const forge_BlockQ4_0* __restrict__ b, …);
//   - FORGE_DEVICE float forge_BlockQ4_0_Dequant(const forge_BlockQ4_0* __restrict__ b, int32_t j),
//     and, for a block with the integer form (ir.IntForm), likewise
//     FORGE_DEVICE uint32_t forge_BlockQ4_0_Codes(…, int32_t w),
//     float forge_BlockQ4_0_Scale(…, int32_t s) and
//     float forge_BlockQ4_0_Offset(…, int32_t s), not static: the kernels
//     call them. Codes and Scale come together (Offset is optional), with
//     exactly those signatures.
//
// Every declaration, field and statement is preceded by
// #line N "specs/formats/q4_0.go" (the Go position, relative to
// Package.Root), so compiler diagnostics, and sanitizer reports in the
// host tests, name the Go line. The code relies on the portability header
// for FORGE_DEVICE, the stdint types, the scalar typedefs and the
// intrinsics below, and includes nothing itself. Helpers are static, so
// two formats' Code in one translation unit would collide (both Q4_K and
// Q5_K define forge_scaleK4): give each format its own file, or namespace.
// Floating-point constants are hexadecimal literals, which need C++17 or a
// GNU dialect (hipcc's and nvcc's defaults are).
//
// Names: top-level Go names get the prefix forge_. Locals and parameters
// keep their Go names, except that every variable in a function gets a name
// unique in that function (a second x is x_1: C++ has no Go-style
// "x := x + 1" in an inner block), and a name that C++ or its headers
// reserve gets a suffix (this → this_, linux → linux_, NULL → NULL_; see
// cReserved), while names C++ reserves by spelling (an underscore and a
// capital, or "__") and names in forge_'s namespace become v_<name>
// (__x → v_x, forge_q → v_forge_q). Identifiers must be ASCII.
//
// # The subset
//
// Types. bool, int8, int16, int32, uint8, uint16, uint32 and float32; the
// scalar types of package formats, Half, BFloat16 and E8M0, which behave as
// their underlying uint16/uint8 for conversion, comparison and arithmetic
// and whose methods are intrinsics (below); fixed-size arrays of these (also
// nested) only as block fields and package-level tables; and the block
// receiver, a pointer. Rejected: int, uint (width differs between host and
// device: use int32, uint32), int64, uint64, uintptr, float64, complex
// types, strings, slices, maps, pointers other than the receiver, structs
// as values (the block is only used through its receiver), interfaces,
// channels, function values and closures, named types other than the
// three scalars, generics, local arrays.
//
// Declarations. The block struct must be packed: every field at the offset
// that the previous fields' sizes give, no trailing padding (ggml layouts
// have none; write padding as an explicit _ field), no embedded fields.
// Dequant must be func (b *BlockX) Dequant(j int32) float32. Helpers are
// package-level functions, and methods with the block receiver *BlockX,
// returning exactly one unnamed scalar, with scalar parameters; not
// variadic, generic or recursive. Calls of other packages' functions are
// rejected, except the scalar conversions of package formats.
//
// Tables. A package-level var of array type, initialised by a composite
// literal whose elements are constants (keyed elements allowed, missing ones
// zero; nested literals for nested arrays): var kvalues = [16]int8{-127, …}.
// The values are read from go/types and emitted exactly (floats as
// hexadecimal literals). A table initialised any other way (by a function
// call, or not at all) is rejected. Tables are read-only: an assignment to one is rejected;
// the translator cannot see writes through pointers elsewhere in the
// package, and assumes there are none after initialisation. Other
// package-level variables are rejected; constants are emitted as values.
//
// Statements. x := e and var x T [= e] (zero-initialised without e);
// x = e; multi-value assignment a, b = b, a (all right sides are evaluated
// into temporaries first, as in Go); op-assignments (+=, -=, *=, /=, %=, &=,
// |=, ^=, &^=, <<=, >>=); x++ and x--; if/else, with init statements; for
// loops with constant bounds, for i := C1; i OP C2; POST with OP one of <,
// <=, >, >=, != and POST one of i++, i--, i += C, i -= C, the loop variable
// not assigned in the body; for i := range C (and for range C) over an
// integer constant, where i's type is C's (write range int32(8): the
// untyped range 8 makes i an int); break and continue (unlabelled, not
// directly inside a switch); expression switch statements, with or without
// a tag and an init statement, several values per case, default anywhere
// (emitted as an if/else chain over a tag temporary; no fallthrough);
// return of one value; blocks; local const declarations. Rejected: other
// for forms, range over arrays or anything but an integer constant, labels,
// goto, fallthrough, go, defer, select, type switches, channel operations,
// panic, local type declarations, assignments to the receiver, its fields,
// tables and package-level variables, and multi-value assignments from
// calls.
//
// Expressions. Arithmetic (+ - * / %), bitwise (& | ^ &^), shifts, unary
// - ^ ! +, comparisons, && and ||, conversions between the scalar types
// except float32 to an integer type, indexing of the receiver's array fields
// and of tables, reads of the receiver's scalar fields, calls of helpers,
// block methods (on the receiver) and intrinsics, and constant expressions of
// any form (len of an array, iota, untyped arithmetic), which are emitted as
// their go/types value. The intrinsics, from the portability header:
//
//	formats.Half.Float32         forge_half_to_f32 (forge_half_to_f32_arith, see below)
//	formats.BFloat16.Float32     forge_bf16_to_f32
//	formats.E8M0.Float32         forge_e8m0_to_f32
//	formats.E8M0.HalfScale       forge_e8m0_half_scale
//	formats.HalfFromFloat32      forge_f32_to_half
//	formats.Dot4(a, b, c)        forge_dot4(a, b, c)
//	formats.Word32(b.F[:], i)    forge_word32_aN(b->F + i)
//	formats.Word16(b.F[:], i)    forge_word16_aN(b->F + i)
//	formats.Lut16(&t, q)         forge_lut16(t0, t1, t2, t3, q)
//
// A Half.Float32 whose value only feeds float arithmetic (an operand of
// + - * /, or a local assigned once and used only so) becomes
// forge_half_to_f32_arith: one cvt on NVIDIA, whose arithmetic returns the
// canonical NaN for any NaN operand, so that the payload the exact widening
// keeps could not reach an output bit anyway (arithOnlyHalves).
//
// Word32 and Word16 read a little-endian word at byte i of a uint8 or int8
// array field of the receiver, written exactly b.F[:] (the one slice
// expression in the subset; a table, another slice or a field of another
// type is rejected, the last by Go's type checker). N is the widest
// alignment that the block (the largest power of two dividing its size, at
// most 4: ir.IntForm.Align, which launchers must check of the weights'
// base), the field's offset and the index (a power of two the index
// provably is a multiple of: constants, sums, products, shifts, masks,
// single-assignment locals) all allow: one 32-bit load for Q4_K's
// 144-byte blocks with Qs at 16 and an index 4·k, two 16-bit loads for
// 18-, 34- or 210-byte blocks, byte loads for 17- or 25-byte ones. A
// constant index past the field is rejected; a variable one is not checked
// on the device. Byte-wise (SWAR) work is plain uint32 arithmetic.
//
// Lut16 looks up the low nibble of each byte of q in t, a package-level
// [16]int8 table of this package initialised by a constant composite
// literal, written exactly &t (the one address expression in the subset;
// anything else, or a table whose contents are not constant, is rejected).
// The translator packs the table's bytes little-endian into four uint32
// constants, t0 holding entries 0..3, and the header selects from them
// with byte permutes in registers: the table is not emitted for it, and
// no memory is read.
//
// Integer division and remainder need a constant divisor: Go panics on a
// zero divisor and device code cannot, so a variable divisor is rejected
// (use a shift or a mask). Rejected too: float32 to integer conversions,
// whose out-of-range results Go leaves implementation-defined (amd64 and
// arm64 differ); the address operator (but for Lut16's &t), pointer
// indirection, slicing (but for Word32's and Word16's b.F[:]), composite
// literals outside table initialisers, method values, builtins
// other than in constant expressions (len of an array; no min, max, panic).
//
// # Go semantics in C++
//
// Every rule below is checked by executing the translation of every
// testdata/accept block and every spec format on the host (compiled with
// -ffp-contract=off and the undefined-behaviour sanitizer trapping) against
// the Go code, bit for bit, over random and known-answer blocks.
//
//   - Integer arithmetic wraps as in Go. C++ promotes int8, int16, uint8 and
//     uint16 to int, where a uint16 product can overflow (undefined), and
//     signed int overflow is undefined; so +, -, *, unary -, ^ and << on
//     every integer type except uint32 are computed in uint32 and converted
//     back to the Go type: (int16_t)((uint32_t)a * (uint32_t)b). The
//     conversion of an out-of-range uint32 to a signed type is the two's
//     complement truncation on every compiler forge supports (and defined
//     so since C++20). Bitwise operations work on the operands extended to
//     32 bits, which is exact. Comparisons compare the promoted values,
//     which is exact.
//   - Division truncates toward zero, as in C++11. The one overflowing case,
//     the minimum value divided by -1, wraps in Go and is undefined in C++:
//     a constant divisor -1 is emitted as a wrapping negation (and the
//     remainder as 0). Narrow types divide in int32 and truncate.
//   - Shifts: Go defines every count: a count of at least the width gives 0
//     for << and for unsigned >>, and the sign (0 or -1) for signed >>. C++
//     leaves counts of 32 or more undefined. A constant count is resolved
//     when translating; a variable count is guarded,
//     ((c < 32u) ? x << c : 0), and a signed >> clamps it to 31, unless a
//     small range analysis proves it below 32 (uint32(j&7), 2*uint32(s) with
//     s := (j>>5)&3, …). Narrow operands are shifted in 32 bits, zero- or
//     sign-extended, which gives Go's result once truncated. A negative
//     signed count panics in Go; the device converts it to uint32, so it
//     acts as a count of at least 32 (0, or the sign).
//   - Conversions between integer types are C casts: truncation and sign or
//     zero extension in two's complement, as in Go. Integer to float32
//     rounds to nearest even in both.
//   - float32 arithmetic is one IEEE operation per Go operation, grouped
//     exactly as Go groups it: every emitted expression is fully
//     parenthesised, and the code must be compiled without contraction
//     (hipcc -ffp-contract=off, nvcc --fmad=false), so nothing is fused into
//     an FMA. Go itself may fuse x*y + z on some targets (arm64, and amd64
//     with GOAMD64=v3); where the value matters, write float32(x*y) + z in
//     the spec, which forbids fusion in Go too. Float constants are exact.
//   - Array indexing is not bounds-checked on the device: an index out of
//     range, which panics in Go, reads whatever lies there. Dequant is
//     called with j in [0, elements per block), and specs index with masked
//     or bounded values.
//   - Helpers cannot have effects (no pointers, no writable globals, no
//     writes to the block), so C++'s unspecified order of evaluating
//     operands and arguments cannot differ observably from Go's
//     left-to-right order.
package translate
