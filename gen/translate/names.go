package translate

import (
	"strconv"
	"strings"
)

// cReserved are names a local variable or field may not keep in C++: the
// C++ keywords and alternative tokens, the standard and HIP/CUDA names a
// translation unit can see (types, macros, built-in variables), and the
// macros GNU dialects predefine (linux, unix). A Go name in this set gets
// a "_" suffix.
var cReserved = setOf(`
alignas alignof and and_eq asm auto bitand bitor bool break case catch char
char8_t char16_t char32_t class compl concept const consteval constexpr
constinit const_cast continue co_await co_return co_yield decltype default
delete do double dynamic_cast else enum explicit export extern false float
for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast
requires restrict return short signed sizeof static static_assert static_cast
struct switch template this thread_local throw true try typedef typeid
typename union unsigned using virtual void volatile wchar_t while xor xor_eq
int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t
uintptr_t size_t ptrdiff_t ssize_t offsetof NULL assert errno EOF
INFINITY NAN HUGE_VAL HUGE_VALF HUGE_VALL FLT_MAX FLT_MIN FLT_EPSILON
DBL_MAX DBL_MIN INT8_MAX INT8_MIN INT16_MAX INT16_MIN INT32_MAX INT32_MIN
INT64_MAX INT64_MIN UINT8_MAX UINT16_MAX UINT32_MAX UINT64_MAX INT_MAX
INT_MIN UINT_MAX CHAR_BIT isnan isinf isfinite signbit fpclassify
major minor makedev linux unix i386 stdin stdout stderr
threadIdx blockIdx blockDim gridDim warpSize dim3 half bfloat16 main
`)

// headerNames are the top-level names the portability header defines that a
// forge_-prefixed Go name could collide with.
var headerNames = setOf(`
forge_half forge_bfloat16 forge_e8m0 forge_half_to_f32 forge_half_to_f32_arith forge_f32_to_half
forge_bf16_to_f32 forge_e8m0_to_f32 forge_e8m0_half_scale forge_stream_t
forge_abi_version forge_word16_a1 forge_word16_a2 forge_word32_a1
forge_word32_a2 forge_word32_a4 forge_dot4 forge_lut16
`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// reservedName reports whether a Go local or field name cannot be used in
// C++ as it is: a reserved word, a name the C++ implementation reserves
// (containing "__", or "_" and an upper-case letter), or a name in the
// forge_ namespace of the generated top-level declarations.
func reservedName(name string) bool {
	if cReserved[name] || strings.Contains(name, "__") {
		return true
	}
	if len(name) > 1 && name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z' {
		return true
	}
	l := strings.ToLower(name)
	return strings.HasPrefix(l, "forge_")
}

// localName is the C name for a Go local or field name before uniquing:
// reserved names get a "_" suffix; names the implementation reserves
// (leading underscores, "__") and forge_ names are spelled out with a v_
// prefix and single underscores.
func localName(name string) string {
	if !reservedName(name) {
		return name
	}
	if cReserved[name] {
		return name + "_"
	}
	s := name
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	s = strings.TrimLeft(s, "_")
	if s == "" {
		s = "x"
	}
	return "v_" + s
}

// uniqueName returns base, or base with the smallest numeric suffix that is
// not yet in used ("x_1", or "this_1" for "this_": never a "__"), and
// records it.
func uniqueName(base string, used map[string]bool) string {
	sep := "_"
	if strings.HasSuffix(base, "_") {
		sep = ""
	}
	name := base
	for i := 1; used[name] || cReserved[name]; i++ {
		name = base + sep + strconv.Itoa(i)
	}
	used[name] = true
	return name
}

// asciiIdent reports whether name is an ASCII identifier (Go allows
// Unicode letters; device compilers do not all accept them).
func asciiIdent(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			return false
		}
	}
	return true
}
