package gguf

import "fmt"

// GGMLType is a ggml tensor type id (ggml's enum ggml_type), as stored in a
// tensor info.
type GGMLType uint32

// TypeTraits is the block geometry of a ggml type: a tensor of the type is
// stored as back-to-back blocks of BlockElems elements in BlockBytes bytes
// (1 element per block for plain scalar types).
type TypeTraits struct {
	Name       string // as ggml's enum spells it, without GGML_TYPE_ ("Q4_K")
	BlockElems int    // elements per block; 0 for an id ggml has removed
	BlockBytes int    // bytes per block; 0 for an id ggml has removed
}

// typeTable is ggml's enum ggml_type with ggml's type_traits geometry
// (blck_size and type_size in src/ggml.c; the block structs are in
// src/ggml-common.h). Ids that ggml has removed keep their name but have no
// geometry, and ggml refuses tensors of those types, as this package does.
var typeTable = [...]TypeTraits{
	0:  {"F32", 1, 4},
	1:  {"F16", 1, 2},
	2:  {"Q4_0", 32, 18},  // fp16 d, 16 bytes of nibbles
	3:  {"Q4_1", 32, 20},  // fp16 d, m, 16 bytes of nibbles
	4:  {"Q4_2", 0, 0},    // removed
	5:  {"Q4_3", 0, 0},    // removed
	6:  {"Q5_0", 32, 22},  // fp16 d, 4 bytes high bits, 16 bytes nibbles
	7:  {"Q5_1", 32, 24},  // fp16 d, m, 4 bytes high bits, 16 bytes nibbles
	8:  {"Q8_0", 32, 34},  // fp16 d, 32 int8
	9:  {"Q8_1", 32, 36},  // fp16 d, s, 32 int8
	10: {"Q2_K", 256, 84}, // 16 scales, 64 qs, fp16 d, dmin
	11: {"Q3_K", 256, 110},
	12: {"Q4_K", 256, 144},
	13: {"Q5_K", 256, 176},
	14: {"Q6_K", 256, 210},
	15: {"Q8_K", 256, 292}, // float32 d, 256 int8, 16 int16 bsums
	16: {"IQ2_XXS", 256, 66},
	17: {"IQ2_XS", 256, 74},
	18: {"IQ3_XXS", 256, 98},
	19: {"IQ1_S", 256, 50},
	20: {"IQ4_NL", 32, 18},
	21: {"IQ3_S", 256, 110},
	22: {"IQ2_S", 256, 82},
	23: {"IQ4_XS", 256, 136},
	24: {"I8", 1, 1},
	25: {"I16", 1, 2},
	26: {"I32", 1, 4},
	27: {"I64", 1, 8},
	28: {"F64", 1, 8},
	29: {"IQ1_M", 256, 56},
	30: {"BF16", 1, 2},
	31: {"Q4_0_4_4", 0, 0}, // removed: use Q4_0 with runtime repacking
	32: {"Q4_0_4_8", 0, 0}, // removed
	33: {"Q4_0_8_8", 0, 0}, // removed
	34: {"TQ1_0", 256, 54},
	35: {"TQ2_0", 256, 66},
	36: {"IQ4_NL_4_4", 0, 0}, // removed: use IQ4_NL with runtime repacking
	37: {"IQ4_NL_4_8", 0, 0}, // removed
	38: {"IQ4_NL_8_8", 0, 0}, // removed
	39: {"MXFP4", 32, 17},    // E8M0 scale, 16 bytes of E2M1 nibbles
	40: {"NVFP4", 64, 36},    // 4 UE4M3 sub-block scales, 32 bytes of E2M1 nibbles
	41: {"Q1_0", 128, 18},    // fp16 d, 16 bytes of sign bits
	42: {"Q2_0", 64, 18},     // fp16 d, 16 bytes of 2-bit codes
}

// Traits returns the type's geometry, or false when ggml does not define
// the id or has removed it.
func (t GGMLType) Traits() (TypeTraits, bool) {
	if int64(t) >= int64(len(typeTable)) {
		return TypeTraits{}, false
	}
	tt := typeTable[t]
	return tt, tt.BlockElems > 0
}

// String is the type's ggml name ("Q4_K"), or "type(N)" for an id ggml does
// not define.
func (t GGMLType) String() string {
	if int64(t) < int64(len(typeTable)) {
		return typeTable[t].Name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// GGMLTypes returns every type id that ggml defines and has not removed, in
// id order.
func GGMLTypes() []GGMLType {
	var ts []GGMLType
	for id := range typeTable {
		if _, ok := GGMLType(id).Traits(); ok {
			ts = append(ts, GGMLType(id))
		}
	}
	return ts
}
