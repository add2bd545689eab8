#line 7 "gen/translate/testdata/accept/constants.go"
struct forge_BlockConstants {
#line 8 "gen/translate/testdata/accept/constants.go"
	float X;
#line 9 "gen/translate/testdata/accept/constants.go"
	uint8_t Qs[8];
};
#line 7 "gen/translate/testdata/accept/constants.go"
static_assert(sizeof(forge_BlockConstants) == 12, "forge_BlockConstants must be 12 bytes, as the Go struct BlockConstants");
#line 8 "gen/translate/testdata/accept/constants.go"
static_assert(__builtin_offsetof(forge_BlockConstants, X) == 0, "forge_BlockConstants.X must be at byte 0, as in the Go struct");
#line 9 "gen/translate/testdata/accept/constants.go"
static_assert(__builtin_offsetof(forge_BlockConstants, Qs) == 4, "forge_BlockConstants.Qs must be at byte 4, as in the Go struct");
#line 27 "gen/translate/testdata/accept/constants.go"
FORGE_DEVICE float forge_BlockConstants_Dequant(const forge_BlockConstants* __restrict__ b, int32_t j) {
#line 28 "gen/translate/testdata/accept/constants.go"
	{
#line 28 "gen/translate/testdata/accept/constants.go"
		int32_t tag = j & 7;
#line 29 "gen/translate/testdata/accept/constants.go"
		if (tag == 0) {
#line 30 "gen/translate/testdata/accept/constants.go"
			return b->X * 0x1.555556p-02f;
#line 31 "gen/translate/testdata/accept/constants.go"
		} else if (tag == 1) {
#line 32 "gen/translate/testdata/accept/constants.go"
			return 0x1p+31f;
#line 33 "gen/translate/testdata/accept/constants.go"
		} else if (tag == 2) {
#line 34 "gen/translate/testdata/accept/constants.go"
			return 0x1p-149f * b->X;
#line 35 "gen/translate/testdata/accept/constants.go"
		} else if (tag == 3) {
#line 36 "gen/translate/testdata/accept/constants.go"
			return 0x1.fffffep+127f - b->X;
#line 37 "gen/translate/testdata/accept/constants.go"
		} else if (tag == 4) {
#line 38 "gen/translate/testdata/accept/constants.go"
			return 0x1.cp+04f;
#line 39 "gen/translate/testdata/accept/constants.go"
		} else if (tag == 5) {
#line 40 "gen/translate/testdata/accept/constants.go"
			return 0x0p+00f;
#line 41 "gen/translate/testdata/accept/constants.go"
		} else if (tag == 6) {
#line 42 "gen/translate/testdata/accept/constants.go"
			return 0x0p+00f;
		}
	}
#line 44 "gen/translate/testdata/accept/constants.go"
	return (b->X * 0x1.555556p-01f) * 0x1.2a05f2p+33f;
}
