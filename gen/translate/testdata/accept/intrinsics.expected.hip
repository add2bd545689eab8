#line 8 "gen/translate/testdata/accept/intrinsics.go"
struct forge_BlockIntrinsics {
#line 9 "gen/translate/testdata/accept/intrinsics.go"
	forge_half H;
#line 10 "gen/translate/testdata/accept/intrinsics.go"
	forge_bfloat16 BF;
#line 11 "gen/translate/testdata/accept/intrinsics.go"
	forge_half Hs[4];
#line 12 "gen/translate/testdata/accept/intrinsics.go"
	forge_e8m0 E;
#line 13 "gen/translate/testdata/accept/intrinsics.go"
	uint8_t pad0;
};
#line 8 "gen/translate/testdata/accept/intrinsics.go"
static_assert(sizeof(forge_BlockIntrinsics) == 14, "forge_BlockIntrinsics must be 14 bytes, as the Go struct BlockIntrinsics");
#line 9 "gen/translate/testdata/accept/intrinsics.go"
static_assert(__builtin_offsetof(forge_BlockIntrinsics, H) == 0, "forge_BlockIntrinsics.H must be at byte 0, as in the Go struct");
#line 10 "gen/translate/testdata/accept/intrinsics.go"
static_assert(__builtin_offsetof(forge_BlockIntrinsics, BF) == 2, "forge_BlockIntrinsics.BF must be at byte 2, as in the Go struct");
#line 11 "gen/translate/testdata/accept/intrinsics.go"
static_assert(__builtin_offsetof(forge_BlockIntrinsics, Hs) == 4, "forge_BlockIntrinsics.Hs must be at byte 4, as in the Go struct");
#line 12 "gen/translate/testdata/accept/intrinsics.go"
static_assert(__builtin_offsetof(forge_BlockIntrinsics, E) == 12, "forge_BlockIntrinsics.E must be at byte 12, as in the Go struct");
#line 13 "gen/translate/testdata/accept/intrinsics.go"
static_assert(__builtin_offsetof(forge_BlockIntrinsics, pad0) == 13, "forge_BlockIntrinsics.pad0 must be at byte 13, as in the Go struct");
#line 16 "gen/translate/testdata/accept/intrinsics.go"
FORGE_DEVICE float forge_BlockIntrinsics_Dequant(const forge_BlockIntrinsics* __restrict__ b, int32_t j) {
#line 17 "gen/translate/testdata/accept/intrinsics.go"
	{
#line 17 "gen/translate/testdata/accept/intrinsics.go"
		int32_t tag = j & 7;
#line 18 "gen/translate/testdata/accept/intrinsics.go"
		if (tag == 0) {
#line 19 "gen/translate/testdata/accept/intrinsics.go"
			return forge_half_to_f32(b->H);
#line 20 "gen/translate/testdata/accept/intrinsics.go"
		} else if (tag == 1) {
#line 21 "gen/translate/testdata/accept/intrinsics.go"
			return forge_bf16_to_f32(b->BF);
#line 22 "gen/translate/testdata/accept/intrinsics.go"
		} else if (tag == 2) {
#line 23 "gen/translate/testdata/accept/intrinsics.go"
			return forge_e8m0_to_f32(b->E);
#line 24 "gen/translate/testdata/accept/intrinsics.go"
		} else if (tag == 3) {
#line 25 "gen/translate/testdata/accept/intrinsics.go"
			return forge_e8m0_half_scale(b->E);
#line 26 "gen/translate/testdata/accept/intrinsics.go"
		} else if (tag == 4) {
#line 27 "gen/translate/testdata/accept/intrinsics.go"
			return forge_half_to_f32((forge_half)((uint16_t)((uint32_t)((uint16_t)b->Hs[j >> 3]) ^ 32768u)));
#line 28 "gen/translate/testdata/accept/intrinsics.go"
		} else if (tag == 5) {
#line 29 "gen/translate/testdata/accept/intrinsics.go"
			return forge_half_to_f32(forge_f32_to_half(forge_bf16_to_f32(b->BF)));
#line 30 "gen/translate/testdata/accept/intrinsics.go"
		} else if (tag == 6) {
#line 31 "gen/translate/testdata/accept/intrinsics.go"
			if ((b->E == ((forge_e8m0)255)) || (((uint8_t)b->E) < ((uint8_t)3))) {
#line 32 "gen/translate/testdata/accept/intrinsics.go"
				return (float)b->E;
			}
#line 34 "gen/translate/testdata/accept/intrinsics.go"
			return forge_e8m0_half_scale((forge_e8m0)((uint8_t)((uint32_t)((uint8_t)b->E) - 1u)));
		}
	}
#line 36 "gen/translate/testdata/accept/intrinsics.go"
	return (float)forge_f32_to_half(forge_half_to_f32_arith(b->H) * 0x1.8p+01f);
}
