#line 27 "gen/translate/testdata/accept/helpers.go"
struct forge_BlockHelpers {
#line 28 "gen/translate/testdata/accept/helpers.go"
	float D;
#line 29 "gen/translate/testdata/accept/helpers.go"
	uint8_t Qs[16];
};
#line 27 "gen/translate/testdata/accept/helpers.go"
static_assert(sizeof(forge_BlockHelpers) == 20, "forge_BlockHelpers must be 20 bytes, as the Go struct BlockHelpers");
#line 28 "gen/translate/testdata/accept/helpers.go"
static_assert(__builtin_offsetof(forge_BlockHelpers, D) == 0, "forge_BlockHelpers.D must be at byte 0, as in the Go struct");
#line 29 "gen/translate/testdata/accept/helpers.go"
static_assert(__builtin_offsetof(forge_BlockHelpers, Qs) == 4, "forge_BlockHelpers.Qs must be at byte 4, as in the Go struct");
#line 6 "gen/translate/testdata/accept/helpers.go"
static FORGE_DEVICE uint8_t forge_nibble(uint8_t x, bool hi) {
#line 7 "gen/translate/testdata/accept/helpers.go"
	if (hi) {
#line 8 "gen/translate/testdata/accept/helpers.go"
		return (uint8_t)((uint32_t)x >> 4);
	}
#line 10 "gen/translate/testdata/accept/helpers.go"
	return (uint8_t)((uint32_t)x & 15u);
}
#line 32 "gen/translate/testdata/accept/helpers.go"
static FORGE_DEVICE uint8_t forge_BlockHelpers_code(const forge_BlockHelpers* __restrict__ b, int32_t j) {
#line 32 "gen/translate/testdata/accept/helpers.go"
	return forge_nibble(b->Qs[j & 15], j >= 16);
}
#line 13 "gen/translate/testdata/accept/helpers.go"
static FORGE_DEVICE int32_t forge_centre(uint8_t q, int32_t bias) {
#line 13 "gen/translate/testdata/accept/helpers.go"
	return (int32_t)(((uint32_t)q) - (uint32_t)bias);
}
#line 15 "gen/translate/testdata/accept/helpers.go"
static FORGE_DEVICE float forge_scaled(uint8_t q, int32_t bias, float d) {
#line 16 "gen/translate/testdata/accept/helpers.go"
	return ((float)forge_centre(q, bias)) * d;
}
#line 19 "gen/translate/testdata/accept/helpers.go"
static FORGE_DEVICE int32_t forge_pick(int32_t a, int32_t b, int32_t c) {
#line 20 "gen/translate/testdata/accept/helpers.go"
	if (a > b) {
#line 21 "gen/translate/testdata/accept/helpers.go"
		return (int32_t)((uint32_t)a + (uint32_t)c);
	}
#line 23 "gen/translate/testdata/accept/helpers.go"
	return (int32_t)((uint32_t)b - (uint32_t)c);
}
#line 34 "gen/translate/testdata/accept/helpers.go"
static FORGE_DEVICE float forge_BlockHelpers_scale(const forge_BlockHelpers* __restrict__ b) {
#line 34 "gen/translate/testdata/accept/helpers.go"
	return b->D * 0x1p-01f;
}
#line 36 "gen/translate/testdata/accept/helpers.go"
FORGE_DEVICE float forge_BlockHelpers_Dequant(const forge_BlockHelpers* __restrict__ b, int32_t j) {
#line 37 "gen/translate/testdata/accept/helpers.go"
	uint8_t q = forge_BlockHelpers_code(b, j);
#line 38 "gen/translate/testdata/accept/helpers.go"
	return forge_scaled(q, forge_pick(8, (int32_t)q, 1), forge_BlockHelpers_scale(b));
}
#line 42 "gen/translate/testdata/accept/helpers.go"
struct forge_BlockHelpers2 {
#line 43 "gen/translate/testdata/accept/helpers.go"
	uint8_t Qs[16];
};
#line 42 "gen/translate/testdata/accept/helpers.go"
static_assert(sizeof(forge_BlockHelpers2) == 16, "forge_BlockHelpers2 must be 16 bytes, as the Go struct BlockHelpers2");
#line 43 "gen/translate/testdata/accept/helpers.go"
static_assert(__builtin_offsetof(forge_BlockHelpers2, Qs) == 0, "forge_BlockHelpers2.Qs must be at byte 0, as in the Go struct");
#line 13 "gen/translate/testdata/accept/helpers.go"
static FORGE_DEVICE int32_t forge_centre(uint8_t q, int32_t bias) {
#line 13 "gen/translate/testdata/accept/helpers.go"
	return (int32_t)(((uint32_t)q) - (uint32_t)bias);
}
#line 6 "gen/translate/testdata/accept/helpers.go"
static FORGE_DEVICE uint8_t forge_nibble(uint8_t x, bool hi) {
#line 7 "gen/translate/testdata/accept/helpers.go"
	if (hi) {
#line 8 "gen/translate/testdata/accept/helpers.go"
		return (uint8_t)((uint32_t)x >> 4);
	}
#line 10 "gen/translate/testdata/accept/helpers.go"
	return (uint8_t)((uint32_t)x & 15u);
}
#line 46 "gen/translate/testdata/accept/helpers.go"
FORGE_DEVICE float forge_BlockHelpers2_Dequant(const forge_BlockHelpers2* __restrict__ b, int32_t j) {
#line 47 "gen/translate/testdata/accept/helpers.go"
	return (float)forge_centre(forge_nibble(b->Qs[j & 15], (j & 16) != 0), 7);
}
