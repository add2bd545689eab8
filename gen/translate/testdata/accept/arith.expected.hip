#line 5 "gen/translate/testdata/accept/arith.go"
struct forge_BlockArith {
#line 6 "gen/translate/testdata/accept/arith.go"
	int8_t A8[4];
#line 7 "gen/translate/testdata/accept/arith.go"
	uint8_t U8[4];
#line 8 "gen/translate/testdata/accept/arith.go"
	int16_t A16[4];
#line 9 "gen/translate/testdata/accept/arith.go"
	uint16_t U16[4];
#line 10 "gen/translate/testdata/accept/arith.go"
	int32_t A32[4];
#line 11 "gen/translate/testdata/accept/arith.go"
	uint32_t U32[4];
};
#line 5 "gen/translate/testdata/accept/arith.go"
static_assert(sizeof(forge_BlockArith) == 56, "forge_BlockArith must be 56 bytes, as the Go struct BlockArith");
#line 6 "gen/translate/testdata/accept/arith.go"
static_assert(__builtin_offsetof(forge_BlockArith, A8) == 0, "forge_BlockArith.A8 must be at byte 0, as in the Go struct");
#line 7 "gen/translate/testdata/accept/arith.go"
static_assert(__builtin_offsetof(forge_BlockArith, U8) == 4, "forge_BlockArith.U8 must be at byte 4, as in the Go struct");
#line 8 "gen/translate/testdata/accept/arith.go"
static_assert(__builtin_offsetof(forge_BlockArith, A16) == 8, "forge_BlockArith.A16 must be at byte 8, as in the Go struct");
#line 9 "gen/translate/testdata/accept/arith.go"
static_assert(__builtin_offsetof(forge_BlockArith, U16) == 16, "forge_BlockArith.U16 must be at byte 16, as in the Go struct");
#line 10 "gen/translate/testdata/accept/arith.go"
static_assert(__builtin_offsetof(forge_BlockArith, A32) == 24, "forge_BlockArith.A32 must be at byte 24, as in the Go struct");
#line 11 "gen/translate/testdata/accept/arith.go"
static_assert(__builtin_offsetof(forge_BlockArith, U32) == 40, "forge_BlockArith.U32 must be at byte 40, as in the Go struct");
#line 14 "gen/translate/testdata/accept/arith.go"
FORGE_DEVICE float forge_BlockArith_Dequant(const forge_BlockArith* __restrict__ b, int32_t j) {
#line 15 "gen/translate/testdata/accept/arith.go"
	int32_t k = j & 3;
#line 16 "gen/translate/testdata/accept/arith.go"
	int8_t a8 = (int8_t)((uint32_t)((int8_t)((uint32_t)b->A8[k] + (uint32_t)((int8_t)((uint32_t)b->A8[((int32_t)((uint32_t)k + 1u)) & 3] * (uint32_t)b->A8[((int32_t)((uint32_t)k + 2u)) & 3])))) - (uint32_t)b->A8[3]);
#line 17 "gen/translate/testdata/accept/arith.go"
	uint8_t u8 = (uint8_t)((uint32_t)((uint8_t)((uint32_t)((uint8_t)((uint32_t)b->U8[k] * (uint32_t)b->U8[((int32_t)((uint32_t)k + 1u)) & 3])) + (uint32_t)b->U8[2])) - (uint32_t)b->U8[((int32_t)((uint32_t)k + 3u)) & 3]);
#line 18 "gen/translate/testdata/accept/arith.go"
	int16_t a16 = (int16_t)((uint32_t)b->A16[k] * (uint32_t)b->A16[((int32_t)((uint32_t)k + 1u)) & 3]);
#line 19 "gen/translate/testdata/accept/arith.go"
	uint16_t u16 = (uint16_t)((uint32_t)b->U16[k] * (uint32_t)b->U16[((int32_t)((uint32_t)k + 1u)) & 3]);
#line 20 "gen/translate/testdata/accept/arith.go"
	int32_t a32 = (int32_t)((((uint32_t)b->A32[k] * (uint32_t)b->A32[((int32_t)((uint32_t)k + 1u)) & 3]) + (uint32_t)b->A32[((int32_t)((uint32_t)k + 2u)) & 3]) - (uint32_t)b->A32[((int32_t)((uint32_t)k + 3u)) & 3]);
#line 21 "gen/translate/testdata/accept/arith.go"
	uint32_t u32 = (b->U32[k] * b->U32[((int32_t)((uint32_t)k + 1u)) & 3]) - b->U32[2];
#line 22 "gen/translate/testdata/accept/arith.go"
	{
#line 22 "gen/translate/testdata/accept/arith.go"
		int32_t tag = j >> 2;
#line 23 "gen/translate/testdata/accept/arith.go"
		if (tag == 0) {
#line 24 "gen/translate/testdata/accept/arith.go"
			return (float)a8;
#line 25 "gen/translate/testdata/accept/arith.go"
		} else if (tag == 1) {
#line 26 "gen/translate/testdata/accept/arith.go"
			return (float)u8;
#line 27 "gen/translate/testdata/accept/arith.go"
		} else if (tag == 2) {
#line 28 "gen/translate/testdata/accept/arith.go"
			return (float)a16;
#line 29 "gen/translate/testdata/accept/arith.go"
		} else if (tag == 3) {
#line 30 "gen/translate/testdata/accept/arith.go"
			return (float)u16;
#line 31 "gen/translate/testdata/accept/arith.go"
		} else if (tag == 4) {
#line 32 "gen/translate/testdata/accept/arith.go"
			return (float)a32;
#line 33 "gen/translate/testdata/accept/arith.go"
		} else if (tag == 5) {
#line 34 "gen/translate/testdata/accept/arith.go"
			return (float)u32;
#line 35 "gen/translate/testdata/accept/arith.go"
		} else if (tag == 6) {
#line 36 "gen/translate/testdata/accept/arith.go"
			return (((((float)((int8_t)(0u - (uint32_t)a8))) + ((float)((uint8_t)(0u - (uint32_t)u8)))) + ((float)((int32_t)(0u - (uint32_t)a32)))) + ((float)((uint16_t)(~(uint32_t)u16)))) + ((float)((int16_t)(~(uint32_t)a16)));
		}
	}
#line 38 "gen/translate/testdata/accept/arith.go"
	return (((float)(0u - u32)) + ((float)(~u32))) + ((float)((int16_t)(0u - (uint32_t)b->A16[k])));
}
#line 42 "gen/translate/testdata/accept/arith.go"
struct forge_BlockBitwise {
#line 43 "gen/translate/testdata/accept/arith.go"
	int8_t A[4];
#line 44 "gen/translate/testdata/accept/arith.go"
	uint16_t B[4];
#line 45 "gen/translate/testdata/accept/arith.go"
	int32_t C[4];
#line 46 "gen/translate/testdata/accept/arith.go"
	uint32_t D;
};
#line 42 "gen/translate/testdata/accept/arith.go"
static_assert(sizeof(forge_BlockBitwise) == 32, "forge_BlockBitwise must be 32 bytes, as the Go struct BlockBitwise");
#line 43 "gen/translate/testdata/accept/arith.go"
static_assert(__builtin_offsetof(forge_BlockBitwise, A) == 0, "forge_BlockBitwise.A must be at byte 0, as in the Go struct");
#line 44 "gen/translate/testdata/accept/arith.go"
static_assert(__builtin_offsetof(forge_BlockBitwise, B) == 4, "forge_BlockBitwise.B must be at byte 4, as in the Go struct");
#line 45 "gen/translate/testdata/accept/arith.go"
static_assert(__builtin_offsetof(forge_BlockBitwise, C) == 12, "forge_BlockBitwise.C must be at byte 12, as in the Go struct");
#line 46 "gen/translate/testdata/accept/arith.go"
static_assert(__builtin_offsetof(forge_BlockBitwise, D) == 28, "forge_BlockBitwise.D must be at byte 28, as in the Go struct");
#line 49 "gen/translate/testdata/accept/arith.go"
FORGE_DEVICE float forge_BlockBitwise_Dequant(const forge_BlockBitwise* __restrict__ b, int32_t j) {
#line 50 "gen/translate/testdata/accept/arith.go"
	int32_t k = j & 3;
#line 51 "gen/translate/testdata/accept/arith.go"
	int8_t x = (int8_t)((uint32_t)b->A[k] & ~(uint32_t)b->A[((int32_t)((uint32_t)k + 1u)) & 3]);
#line 52 "gen/translate/testdata/accept/arith.go"
	uint16_t y = (uint16_t)(((uint32_t)b->B[k] ^ (uint32_t)b->B[((int32_t)((uint32_t)k + 2u)) & 3]) | ((uint32_t)b->B[3] & 4080u));
#line 53 "gen/translate/testdata/accept/arith.go"
	int32_t z = ((b->C[k] & ~b->C[((int32_t)((uint32_t)k + 1u)) & 3]) ^ b->C[2]) | (-12345);
#line 54 "gen/translate/testdata/accept/arith.go"
	uint32_t w = (b->D & ~4042322160u) ^ ((uint32_t)j);
#line 55 "gen/translate/testdata/accept/arith.go"
	if (j >= 16) {
#line 56 "gen/translate/testdata/accept/arith.go"
		return ((float)x) * ((float)y);
	}
#line 58 "gen/translate/testdata/accept/arith.go"
	return ((float)z) + ((float)w);
}
