#line 6 "gen/translate/testdata/accept/loops.go"
struct forge_BlockLoops {
#line 7 "gen/translate/testdata/accept/loops.go"
	float D;
#line 8 "gen/translate/testdata/accept/loops.go"
	int8_t Qs[32];
};
#line 6 "gen/translate/testdata/accept/loops.go"
static_assert(sizeof(forge_BlockLoops) == 36, "forge_BlockLoops must be 36 bytes, as the Go struct BlockLoops");
#line 7 "gen/translate/testdata/accept/loops.go"
static_assert(__builtin_offsetof(forge_BlockLoops, D) == 0, "forge_BlockLoops.D must be at byte 0, as in the Go struct");
#line 8 "gen/translate/testdata/accept/loops.go"
static_assert(__builtin_offsetof(forge_BlockLoops, Qs) == 4, "forge_BlockLoops.Qs must be at byte 4, as in the Go struct");
#line 13 "gen/translate/testdata/accept/loops.go"
FORGE_DEVICE float forge_BlockLoops_Dequant(const forge_BlockLoops* __restrict__ b, int32_t j) {
#line 14 "gen/translate/testdata/accept/loops.go"
	float sum = 0x0p+00f;
#line 15 "gen/translate/testdata/accept/loops.go"
	for (int32_t i = 0; i < 32; i++) {
#line 16 "gen/translate/testdata/accept/loops.go"
		if (i > j) {
#line 17 "gen/translate/testdata/accept/loops.go"
			break;
		}
#line 19 "gen/translate/testdata/accept/loops.go"
		sum = sum + ((float)(((float)b->Qs[i]) * b->D));
	}
#line 21 "gen/translate/testdata/accept/loops.go"
	uint8_t cnt = (uint8_t)0;
#line 22 "gen/translate/testdata/accept/loops.go"
	for (uint8_t i_1 = (uint8_t)255; i_1 >= ((uint8_t)250); i_1--) {
#line 23 "gen/translate/testdata/accept/loops.go"
		cnt = (uint8_t)((uint32_t)cnt + ((uint32_t)i_1 & 1u));
	}
#line 25 "gen/translate/testdata/accept/loops.go"
	for (int32_t i_2 = 30; i_2 > 0; i_2 = (int32_t)((uint32_t)i_2 - 7u)) {
#line 26 "gen/translate/testdata/accept/loops.go"
		if (((int8_t)((uint32_t)b->Qs[i_2] & 1u)) == ((int8_t)0)) {
#line 27 "gen/translate/testdata/accept/loops.go"
			continue;
		}
#line 29 "gen/translate/testdata/accept/loops.go"
		cnt = (uint8_t)((uint32_t)cnt + 1u);
	}
#line 31 "gen/translate/testdata/accept/loops.go"
	for (int8_t i_3 = (int8_t)0; i_3 <= ((int8_t)127); i_3 = (int8_t)((uint32_t)i_3 + 64u)) {
#line 32 "gen/translate/testdata/accept/loops.go"
		cnt = (uint8_t)((uint32_t)cnt + (uint32_t)((uint8_t)i_3));
#line 33 "gen/translate/testdata/accept/loops.go"
		if (i_3 < ((int8_t)0)) {
#line 34 "gen/translate/testdata/accept/loops.go"
			break;
		}
	}
#line 37 "gen/translate/testdata/accept/loops.go"
	for (int32_t i_4 = 0; i_4 < 32; i_4++) {
#line 38 "gen/translate/testdata/accept/loops.go"
		if (i_4 == j) {
#line 39 "gen/translate/testdata/accept/loops.go"
			cnt = (uint8_t)((uint32_t)cnt + (uint32_t)((uint8_t)b->Qs[i_4]));
		}
	}
#line 42 "gen/translate/testdata/accept/loops.go"
	for (int32_t iter = 0; iter < 3; iter++) {
#line 43 "gen/translate/testdata/accept/loops.go"
		cnt = (uint8_t)((uint32_t)cnt * 3u);
	}
#line 45 "gen/translate/testdata/accept/loops.go"
	for (int16_t k = (int16_t)0; k < (int16_t)4; k++) {
#line 46 "gen/translate/testdata/accept/loops.go"
		cnt = (uint8_t)((uint32_t)cnt ^ (uint32_t)((uint8_t)k));
	}
#line 48 "gen/translate/testdata/accept/loops.go"
	for (uint16_t i_5 = (uint16_t)0; i_5 != ((uint16_t)10); i_5 = (uint16_t)((uint32_t)i_5 + 5u)) {
#line 49 "gen/translate/testdata/accept/loops.go"
		cnt = (uint8_t)((uint32_t)cnt + (uint32_t)((uint8_t)i_5));
	}
#line 51 "gen/translate/testdata/accept/loops.go"
	return sum + ((float)cnt);
}
