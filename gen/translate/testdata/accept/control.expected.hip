#line 6 "gen/translate/testdata/accept/control.go"
struct forge_BlockControl {
#line 7 "gen/translate/testdata/accept/control.go"
	int16_t B;
#line 8 "gen/translate/testdata/accept/control.go"
	uint8_t A;
#line 9 "gen/translate/testdata/accept/control.go"
	uint8_t C[9];
};
#line 6 "gen/translate/testdata/accept/control.go"
static_assert(sizeof(forge_BlockControl) == 12, "forge_BlockControl must be 12 bytes, as the Go struct BlockControl");
#line 7 "gen/translate/testdata/accept/control.go"
static_assert(__builtin_offsetof(forge_BlockControl, B) == 0, "forge_BlockControl.B must be at byte 0, as in the Go struct");
#line 8 "gen/translate/testdata/accept/control.go"
static_assert(__builtin_offsetof(forge_BlockControl, A) == 2, "forge_BlockControl.A must be at byte 2, as in the Go struct");
#line 9 "gen/translate/testdata/accept/control.go"
static_assert(__builtin_offsetof(forge_BlockControl, C) == 3, "forge_BlockControl.C must be at byte 3, as in the Go struct");
#line 12 "gen/translate/testdata/accept/control.go"
FORGE_DEVICE float forge_BlockControl_Dequant(const forge_BlockControl* __restrict__ b, int32_t j) {
#line 13 "gen/translate/testdata/accept/control.go"
	int32_t x = (int32_t)b->A;
#line 14 "gen/translate/testdata/accept/control.go"
	{
#line 14 "gen/translate/testdata/accept/control.go"
		int32_t y = (int32_t)((uint32_t)x * 2u);
#line 14 "gen/translate/testdata/accept/control.go"
		if (y > 200) {
#line 15 "gen/translate/testdata/accept/control.go"
			x = (int32_t)((uint32_t)y - 300u);
#line 16 "gen/translate/testdata/accept/control.go"
		} else if (y > 100) {
#line 17 "gen/translate/testdata/accept/control.go"
			x = (int32_t)(0u - (uint32_t)y);
#line 18 "gen/translate/testdata/accept/control.go"
		} else {
#line 19 "gen/translate/testdata/accept/control.go"
			x = (int32_t)((uint32_t)x + 1u);
		}
	}
#line 21 "gen/translate/testdata/accept/control.go"
	{
#line 22 "gen/translate/testdata/accept/control.go"
		int32_t x_1 = (int32_t)((uint32_t)x + 1000u);
#line 23 "gen/translate/testdata/accept/control.go"
		if (x_1 > 1100) {
#line 24 "gen/translate/testdata/accept/control.go"
			return (float)x_1;
		}
	}
#line 27 "gen/translate/testdata/accept/control.go"
	float r = 0x0p+00f;
#line 28 "gen/translate/testdata/accept/control.go"
	{
#line 28 "gen/translate/testdata/accept/control.go"
		uint8_t q = b->C[j & 7];
#line 28 "gen/translate/testdata/accept/control.go"
		uint8_t tag = (uint8_t)((uint32_t)q & 7u);
#line 29 "gen/translate/testdata/accept/control.go"
		if ((tag == ((uint8_t)0)) || (tag == ((uint8_t)1))) {
#line 30 "gen/translate/testdata/accept/control.go"
			r = 0x1p+00f;
#line 33 "gen/translate/testdata/accept/control.go"
		} else if (tag == ((uint8_t)5)) {
#line 34 "gen/translate/testdata/accept/control.go"
			r = -0x1.4p+02f;
#line 31 "gen/translate/testdata/accept/control.go"
		} else {
#line 32 "gen/translate/testdata/accept/control.go"
			r = (float)q;
		}
	}
#line 37 "gen/translate/testdata/accept/control.go"
	if ((j < 8) && (b->B < ((int16_t)0))) {
#line 38 "gen/translate/testdata/accept/control.go"
		r = r + 0x1p-01f;
#line 39 "gen/translate/testdata/accept/control.go"
	} else if ((j < 16) || (b->B == ((int16_t)7))) {
#line 40 "gen/translate/testdata/accept/control.go"
		r = r - 0x1p-02f;
	}
#line 42 "gen/translate/testdata/accept/control.go"
	{
#line 42 "gen/translate/testdata/accept/control.go"
		uint8_t tag_1 = (uint8_t)((uint32_t)b->A % 3u);
#line 43 "gen/translate/testdata/accept/control.go"
		if (tag_1 == ((uint8_t)2)) {
#line 44 "gen/translate/testdata/accept/control.go"
			r = r * 0x1p+01f;
		}
	}
#line 46 "gen/translate/testdata/accept/control.go"
	if ((!(b->B > ((int16_t)0))) || (j == 3)) {
#line 47 "gen/translate/testdata/accept/control.go"
		r = r + ((float)x);
	}
#line 49 "gen/translate/testdata/accept/control.go"
	if (x > 5) {
#line 50 "gen/translate/testdata/accept/control.go"
		r = r + 0x1p+00f;
#line 51 "gen/translate/testdata/accept/control.go"
	} else {
#line 51 "gen/translate/testdata/accept/control.go"
		int32_t z = (int32_t)((uint32_t)x * 3u);
#line 51 "gen/translate/testdata/accept/control.go"
		if (z > 4) {
#line 52 "gen/translate/testdata/accept/control.go"
			r = r + ((float)z);
#line 53 "gen/translate/testdata/accept/control.go"
		} else {
#line 53 "gen/translate/testdata/accept/control.go"
			int32_t w = (int32_t)((uint32_t)z - 1u);
#line 53 "gen/translate/testdata/accept/control.go"
			if (w < 0) {
#line 54 "gen/translate/testdata/accept/control.go"
				r = r - ((float)w);
			}
		}
	}
#line 56 "gen/translate/testdata/accept/control.go"
	return r;
}
