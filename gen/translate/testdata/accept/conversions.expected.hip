#line 5 "gen/translate/testdata/accept/conversions.go"
struct forge_BlockConversions {
#line 6 "gen/translate/testdata/accept/conversions.go"
	int32_t I;
#line 7 "gen/translate/testdata/accept/conversions.go"
	uint32_t V;
#line 8 "gen/translate/testdata/accept/conversions.go"
	float F;
#line 9 "gen/translate/testdata/accept/conversions.go"
	int8_t S[2];
#line 10 "gen/translate/testdata/accept/conversions.go"
	int16_t H;
#line 11 "gen/translate/testdata/accept/conversions.go"
	uint16_t W;
#line 12 "gen/translate/testdata/accept/conversions.go"
	uint8_t pad0[2];
};
#line 5 "gen/translate/testdata/accept/conversions.go"
static_assert(sizeof(forge_BlockConversions) == 20, "forge_BlockConversions must be 20 bytes, as the Go struct BlockConversions");
#line 6 "gen/translate/testdata/accept/conversions.go"
static_assert(__builtin_offsetof(forge_BlockConversions, I) == 0, "forge_BlockConversions.I must be at byte 0, as in the Go struct");
#line 7 "gen/translate/testdata/accept/conversions.go"
static_assert(__builtin_offsetof(forge_BlockConversions, V) == 4, "forge_BlockConversions.V must be at byte 4, as in the Go struct");
#line 8 "gen/translate/testdata/accept/conversions.go"
static_assert(__builtin_offsetof(forge_BlockConversions, F) == 8, "forge_BlockConversions.F must be at byte 8, as in the Go struct");
#line 9 "gen/translate/testdata/accept/conversions.go"
static_assert(__builtin_offsetof(forge_BlockConversions, S) == 12, "forge_BlockConversions.S must be at byte 12, as in the Go struct");
#line 10 "gen/translate/testdata/accept/conversions.go"
static_assert(__builtin_offsetof(forge_BlockConversions, H) == 14, "forge_BlockConversions.H must be at byte 14, as in the Go struct");
#line 11 "gen/translate/testdata/accept/conversions.go"
static_assert(__builtin_offsetof(forge_BlockConversions, W) == 16, "forge_BlockConversions.W must be at byte 16, as in the Go struct");
#line 12 "gen/translate/testdata/accept/conversions.go"
static_assert(__builtin_offsetof(forge_BlockConversions, pad0) == 18, "forge_BlockConversions.pad0 must be at byte 18, as in the Go struct");
#line 15 "gen/translate/testdata/accept/conversions.go"
FORGE_DEVICE float forge_BlockConversions_Dequant(const forge_BlockConversions* __restrict__ b, int32_t j) {
#line 16 "gen/translate/testdata/accept/conversions.go"
	{
#line 16 "gen/translate/testdata/accept/conversions.go"
		int32_t tag = j & 15;
#line 17 "gen/translate/testdata/accept/conversions.go"
		if (tag == 0) {
#line 18 "gen/translate/testdata/accept/conversions.go"
			return ((float)((int8_t)b->I)) + ((float)((uint8_t)b->I));
#line 19 "gen/translate/testdata/accept/conversions.go"
		} else if (tag == 1) {
#line 20 "gen/translate/testdata/accept/conversions.go"
			return ((float)((int16_t)b->V)) + ((float)((uint16_t)b->I));
#line 21 "gen/translate/testdata/accept/conversions.go"
		} else if (tag == 2) {
#line 22 "gen/translate/testdata/accept/conversions.go"
			return ((float)((uint32_t)b->S[0])) + ((float)((int32_t)b->S[1]));
#line 23 "gen/translate/testdata/accept/conversions.go"
		} else if (tag == 3) {
#line 24 "gen/translate/testdata/accept/conversions.go"
			return (((float)((uint8_t)b->H)) + ((float)((int8_t)b->W))) + ((float)((int32_t)b->W));
#line 25 "gen/translate/testdata/accept/conversions.go"
		} else if (tag == 4) {
#line 26 "gen/translate/testdata/accept/conversions.go"
			return (float)b->V;
#line 27 "gen/translate/testdata/accept/conversions.go"
		} else if (tag == 5) {
#line 28 "gen/translate/testdata/accept/conversions.go"
			return (float)b->I;
#line 29 "gen/translate/testdata/accept/conversions.go"
		} else if (tag == 6) {
#line 30 "gen/translate/testdata/accept/conversions.go"
			return ((float)((int32_t)b->V)) + ((float)((uint32_t)b->I));
#line 31 "gen/translate/testdata/accept/conversions.go"
		} else if (tag == 7) {
#line 32 "gen/translate/testdata/accept/conversions.go"
			return ((float)b->F) * 0x1.8p+00f;
#line 33 "gen/translate/testdata/accept/conversions.go"
		} else if (tag == 8) {
#line 34 "gen/translate/testdata/accept/conversions.go"
			return ((float)((uint16_t)((int8_t)b->V))) - ((float)((int16_t)((uint8_t)b->I)));
#line 35 "gen/translate/testdata/accept/conversions.go"
		} else if (tag == 9) {
#line 36 "gen/translate/testdata/accept/conversions.go"
			return (float)(((uint32_t)b->S[0]) >> 4);
		}
	}
#line 38 "gen/translate/testdata/accept/conversions.go"
	return (float)((float)(b->F * 0x1.8p+01f));
}
