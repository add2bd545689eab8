// Package abi is the contract between forge's generated Go and its runtime:
// the generation version that generated code enforces at compile time, the
// version of the kernel libraries' C ABI, and the types that the generated
// cgo wrappers (generated/kernels) take — device pointers, streams, the
// symbol resolver the GPU runtime provides, and the launch errors the
// wrappers return.
//
// It imports nothing from the rest of forge, so generated code, the runtime
// and the generator can all depend on it.
package abi

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"
)

// Generated code pins the runtime it was generated for in the style of
// protobuf-go's protoimpl.EnforceVersion. A file generated at generation
// version G declares
//
//	const _ = abi.EnforceVersion(abi.GenVersion - G)    // this runtime is new enough for the code
//	const _ = abi.EnforceVersion(G - abi.MinGenVersion) // the code is new enough for this runtime
//
// A negative constant does not convert to an unsigned type, so code and
// runtime whose versions do not fit fail to compile ("constant -1 overflows
// abi.EnforceVersion") instead of misbehaving at run time. The cure is to
// run `go generate ./...` (regenerate) or to update forge.
const (
	// GenVersion is the generation version this runtime implements: the
	// newest generated code it accepts, and what the generator stamps.
	GenVersion = 1
	// MinGenVersion is the oldest generation version this runtime accepts.
	MinGenVersion = 1
)

// EnforceVersion is the unsigned type whose conversions enforce
// GenVersion and MinGenVersion at compile time; see GenVersion.
type EnforceVersion uint

// ABIVersion is the kernel libraries' C ABI version: the value their
// `int forge_abi_version(void)` returns (FORGE_ABI_VERSION in
// forge_portability.h). Bind refuses a library of another version.
const ABIVersion = 2

// ABIVersionSymbol is the symbol every kernel library exports to report
// its ABI version.
const ABIVersionSymbol = "forge_abi_version"

// Launcher return codes shared by every kernel library. Any other non-zero
// code is the device runtime's own error code (hipError_t, cudaError_t)
// from the launch.
const (
	CodeOK      = 0
	CodeInvalid = 1 // FORGE_ERR_INVALID: a null pointer or a negative count
)

// DevicePtr is an address in device memory. It is a plain integer, never a
// Go pointer: the memory belongs to the device runtime, not to Go's heap.
type DevicePtr uintptr

// Stream is a device stream handle (hipStream_t, cudaStream_t); 0 is the
// default stream.
type Stream uintptr

// Resolver finds an exported C function of a loaded kernel library by
// symbol name, as dlsym does. It returns an error, or a nil pointer, when
// the library lacks the symbol. The GPU runtime provides one per loaded
// library; tests provide fakes (see package abitest).
type Resolver func(symbol string) (unsafe.Pointer, error)

// KernelInfo describes one generated launcher.
type KernelInfo struct {
	Symbol     string // extern "C" name: "forge_dequant_f32_q4_0"
	Format     string // format name: "Q4_0"; "" for a shared family's launcher
	Family     string // kernel family: "dequant"
	Kernel     string // kernel within the family: "dequant_f32"
	Output     string // element type written: "f32" or "f16"
	Signature  string // the launcher's C signature, as specs/families names it: "blocks"
	BlockElems int    // elements per block of Format
	BlockBytes int    // bytes per block of Format
	HeadDim    int    // an attention launcher's head dimension
}

// ErrNoCgo is the error of everything that would load or call a kernel
// library in a binary built without cgo: the GPU runtime's Open and Bind
// of the generated wrappers. The cpu backend needs no cgo; the GPU
// backends do, to dlopen a library and call its launchers.
var ErrNoCgo = errors.New("this binary was built without cgo (CGO_ENABLED=0, or no C compiler found when it was built), " +
	"and the GPU backends load kernel libraries through cgo: rebuild it with a C compiler (gcc or clang) on the PATH and CGO_ENABLED=1, " +
	"e.g. CGO_ENABLED=1 go install ./cmd/forgebench, or CGO_ENABLED=1 go test ...")

// LaunchError is a launcher's non-zero return code.
type LaunchError struct {
	Symbol string
	Code   int
}

func (e *LaunchError) Error() string {
	if e.Code == CodeInvalid {
		return fmt.Sprintf("%s: returned %d (invalid argument)", e.Symbol, e.Code)
	}
	return fmt.Sprintf("%s: returned %d (device runtime error)", e.Symbol, e.Code)
}

// Symbol is the extern "C" name of a launcher: forge_<kernel>_<format in
// lower case> for a kernel of a format-specific family ("dequant_f32",
// "Q4_0" → forge_dequant_f32_q4_0), forge_<kernel> for one of a family
// that is not ("attention_f16_d128", "" → forge_attention_f16_d128). The
// generator names the launchers by it and the backends look them up by
// it.
func Symbol(kernel, format string) string {
	if format == "" {
		return "forge_" + kernel
	}
	return "forge_" + kernel + "_" + strings.ToLower(format)
}
