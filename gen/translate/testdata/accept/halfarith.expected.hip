#line 9 "gen/translate/testdata/accept/halfarith.go"
struct forge_BlockHalfArith {
#line 10 "gen/translate/testdata/accept/halfarith.go"
	forge_half D;
#line 11 "gen/translate/testdata/accept/halfarith.go"
	forge_half M;
#line 12 "gen/translate/testdata/accept/halfarith.go"
	uint8_t Q[4];
};
#line 9 "gen/translate/testdata/accept/halfarith.go"
static_assert(sizeof(forge_BlockHalfArith) == 8, "forge_BlockHalfArith must be 8 bytes, as the Go struct BlockHalfArith");
#line 10 "gen/translate/testdata/accept/halfarith.go"
static_assert(__builtin_offsetof(forge_BlockHalfArith, D) == 0, "forge_BlockHalfArith.D must be at byte 0, as in the Go struct");
#line 11 "gen/translate/testdata/accept/halfarith.go"
static_assert(__builtin_offsetof(forge_BlockHalfArith, M) == 2, "forge_BlockHalfArith.M must be at byte 2, as in the Go struct");
#line 12 "gen/translate/testdata/accept/halfarith.go"
static_assert(__builtin_offsetof(forge_BlockHalfArith, Q) == 4, "forge_BlockHalfArith.Q must be at byte 4, as in the Go struct");
#line 15 "gen/translate/testdata/accept/halfarith.go"
FORGE_DEVICE float forge_BlockHalfArith_Dequant(const forge_BlockHalfArith* __restrict__ b, int32_t j) {
#line 16 "gen/translate/testdata/accept/halfarith.go"
	float q = (float)b->Q[j & 3];
#line 17 "gen/translate/testdata/accept/halfarith.go"
	{
#line 17 "gen/translate/testdata/accept/halfarith.go"
		int32_t tag = (j >> 2) & 7;
#line 18 "gen/translate/testdata/accept/halfarith.go"
		if (tag == 0) {
#line 19 "gen/translate/testdata/accept/halfarith.go"
			return (forge_half_to_f32_arith(b->D) * q) - forge_half_to_f32_arith(b->M);
#line 20 "gen/translate/testdata/accept/halfarith.go"
		} else if (tag == 1) {
#line 21 "gen/translate/testdata/accept/halfarith.go"
			float d = forge_half_to_f32_arith(b->D);
#line 22 "gen/translate/testdata/accept/halfarith.go"
			return (d * q) + (d / 0x1p+01f);
#line 23 "gen/translate/testdata/accept/halfarith.go"
		} else if (tag == 2) {
#line 24 "gen/translate/testdata/accept/halfarith.go"
			return forge_half_to_f32(b->D);
#line 25 "gen/translate/testdata/accept/halfarith.go"
		} else if (tag == 3) {
#line 26 "gen/translate/testdata/accept/halfarith.go"
			float d_1 = forge_half_to_f32(b->D);
#line 27 "gen/translate/testdata/accept/halfarith.go"
			if (d_1 > q) {
#line 28 "gen/translate/testdata/accept/halfarith.go"
				return d_1 * q;
			}
#line 30 "gen/translate/testdata/accept/halfarith.go"
			return q;
#line 31 "gen/translate/testdata/accept/halfarith.go"
		} else if (tag == 4) {
#line 32 "gen/translate/testdata/accept/halfarith.go"
			return (-forge_half_to_f32(b->M)) * q;
#line 33 "gen/translate/testdata/accept/halfarith.go"
		} else if (tag == 5) {
#line 34 "gen/translate/testdata/accept/halfarith.go"
			float d_2 = forge_half_to_f32(b->D);
#line 35 "gen/translate/testdata/accept/halfarith.go"
			d_2 = d_2 * q;
#line 36 "gen/translate/testdata/accept/halfarith.go"
			return d_2 + q;
		}
	}
#line 38 "gen/translate/testdata/accept/halfarith.go"
	return (float)forge_f32_to_half(forge_half_to_f32_arith(b->M) + q);
}
