#line 6 "gen/translate/testdata/accept/assign.go"
struct forge_BlockAssign {
#line 7 "gen/translate/testdata/accept/assign.go"
	int16_t A;
#line 8 "gen/translate/testdata/accept/assign.go"
	int16_t B;
#line 9 "gen/translate/testdata/accept/assign.go"
	uint8_t U;
#line 10 "gen/translate/testdata/accept/assign.go"
	uint8_t pad0;
};
#line 6 "gen/translate/testdata/accept/assign.go"
static_assert(sizeof(forge_BlockAssign) == 6, "forge_BlockAssign must be 6 bytes, as the Go struct BlockAssign");
#line 7 "gen/translate/testdata/accept/assign.go"
static_assert(__builtin_offsetof(forge_BlockAssign, A) == 0, "forge_BlockAssign.A must be at byte 0, as in the Go struct");
#line 8 "gen/translate/testdata/accept/assign.go"
static_assert(__builtin_offsetof(forge_BlockAssign, B) == 2, "forge_BlockAssign.B must be at byte 2, as in the Go struct");
#line 9 "gen/translate/testdata/accept/assign.go"
static_assert(__builtin_offsetof(forge_BlockAssign, U) == 4, "forge_BlockAssign.U must be at byte 4, as in the Go struct");
#line 10 "gen/translate/testdata/accept/assign.go"
static_assert(__builtin_offsetof(forge_BlockAssign, pad0) == 5, "forge_BlockAssign.pad0 must be at byte 5, as in the Go struct");
#line 13 "gen/translate/testdata/accept/assign.go"
FORGE_DEVICE float forge_BlockAssign_Dequant(const forge_BlockAssign* __restrict__ b, int32_t j) {
#line 14 "gen/translate/testdata/accept/assign.go"
	int16_t a = b->A;
#line 14 "gen/translate/testdata/accept/assign.go"
	int16_t c = b->B;
#line 15 "gen/translate/testdata/accept/assign.go"
	int16_t tmp = c;
#line 15 "gen/translate/testdata/accept/assign.go"
	int16_t tmp_1 = a;
#line 15 "gen/translate/testdata/accept/assign.go"
	a = tmp;
#line 15 "gen/translate/testdata/accept/assign.go"
	c = tmp_1;
#line 16 "gen/translate/testdata/accept/assign.go"
	int16_t tmp_2 = (int16_t)((uint32_t)a + (uint32_t)c);
#line 16 "gen/translate/testdata/accept/assign.go"
	int16_t tmp_3 = (int16_t)((uint32_t)c - (uint32_t)a);
#line 16 "gen/translate/testdata/accept/assign.go"
	c = tmp_2;
#line 16 "gen/translate/testdata/accept/assign.go"
	int16_t d = tmp_3;
#line 17 "gen/translate/testdata/accept/assign.go"
	int16_t e = (int16_t)0;
#line 17 "gen/translate/testdata/accept/assign.go"
	int16_t f = (int16_t)0;
#line 18 "gen/translate/testdata/accept/assign.go"
	uint8_t g = b->U;
#line 19 "gen/translate/testdata/accept/assign.go"
	bool h = false;
#line 20 "gen/translate/testdata/accept/assign.go"
	(void)h;
#line 21 "gen/translate/testdata/accept/assign.go"
	e = (int16_t)((uint32_t)e + (uint32_t)a);
#line 22 "gen/translate/testdata/accept/assign.go"
	e = (int16_t)((uint32_t)e - 3u);
#line 23 "gen/translate/testdata/accept/assign.go"
	e = (int16_t)((uint32_t)e * 3u);
#line 24 "gen/translate/testdata/accept/assign.go"
	e = (int16_t)((int32_t)e / 2);
#line 25 "gen/translate/testdata/accept/assign.go"
	e = (int16_t)((int32_t)e % 1000);
#line 26 "gen/translate/testdata/accept/assign.go"
	e = (int16_t)((uint32_t)e & 2047u);
#line 27 "gen/translate/testdata/accept/assign.go"
	e = (int16_t)((uint32_t)e | 256u);
#line 28 "gen/translate/testdata/accept/assign.go"
	e = (int16_t)((uint32_t)e ^ (uint32_t)c);
#line 29 "gen/translate/testdata/accept/assign.go"
	e = (int16_t)((uint32_t)e & ~1u);
#line 30 "gen/translate/testdata/accept/assign.go"
	e = (int16_t)((uint32_t)e << 2);
#line 31 "gen/translate/testdata/accept/assign.go"
	e = (int16_t)((int32_t)e >> 1);
#line 32 "gen/translate/testdata/accept/assign.go"
	f = (int16_t)((uint32_t)f + 1u);
#line 33 "gen/translate/testdata/accept/assign.go"
	f = (int16_t)((uint32_t)f - 1u);
#line 34 "gen/translate/testdata/accept/assign.go"
	f = (int16_t)((uint32_t)f - 1u);
#line 35 "gen/translate/testdata/accept/assign.go"
	g = (uint8_t)((uint32_t)g << 3);
#line 36 "gen/translate/testdata/accept/assign.go"
	g = (uint8_t)((uint32_t)g >> 1);
#line 37 "gen/translate/testdata/accept/assign.go"
	g = (uint8_t)((uint32_t)g + 1u);
#line 38 "gen/translate/testdata/accept/assign.go"
	uint8_t tmp_4 = (uint8_t)((uint32_t)g + 1u);
#line 38 "gen/translate/testdata/accept/assign.go"
	int16_t tmp_5 = (int16_t)((uint32_t)e + (uint32_t)((int16_t)g));
#line 38 "gen/translate/testdata/accept/assign.go"
	g = tmp_4;
#line 38 "gen/translate/testdata/accept/assign.go"
	e = tmp_5;
#line 39 "gen/translate/testdata/accept/assign.go"
	if ((j & 1) == 1) {
#line 40 "gen/translate/testdata/accept/assign.go"
		h = true;
	}
#line 42 "gen/translate/testdata/accept/assign.go"
	if (h) {
#line 43 "gen/translate/testdata/accept/assign.go"
		return ((float)d) + ((float)f);
	}
#line 45 "gen/translate/testdata/accept/assign.go"
	return (((float)e) + ((float)g)) + ((float)c);
}
