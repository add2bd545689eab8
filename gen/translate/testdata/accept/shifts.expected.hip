#line 6 "gen/translate/testdata/accept/shifts.go"
struct forge_BlockShifts {
#line 7 "gen/translate/testdata/accept/shifts.go"
	int8_t S[4];
#line 8 "gen/translate/testdata/accept/shifts.go"
	uint8_t U[4];
#line 9 "gen/translate/testdata/accept/shifts.go"
	int16_t H;
#line 10 "gen/translate/testdata/accept/shifts.go"
	uint16_t W;
#line 11 "gen/translate/testdata/accept/shifts.go"
	int32_t I;
#line 12 "gen/translate/testdata/accept/shifts.go"
	uint32_t V;
#line 13 "gen/translate/testdata/accept/shifts.go"
	uint8_t N8[4];
};
#line 6 "gen/translate/testdata/accept/shifts.go"
static_assert(sizeof(forge_BlockShifts) == 24, "forge_BlockShifts must be 24 bytes, as the Go struct BlockShifts");
#line 7 "gen/translate/testdata/accept/shifts.go"
static_assert(__builtin_offsetof(forge_BlockShifts, S) == 0, "forge_BlockShifts.S must be at byte 0, as in the Go struct");
#line 8 "gen/translate/testdata/accept/shifts.go"
static_assert(__builtin_offsetof(forge_BlockShifts, U) == 4, "forge_BlockShifts.U must be at byte 4, as in the Go struct");
#line 9 "gen/translate/testdata/accept/shifts.go"
static_assert(__builtin_offsetof(forge_BlockShifts, H) == 8, "forge_BlockShifts.H must be at byte 8, as in the Go struct");
#line 10 "gen/translate/testdata/accept/shifts.go"
static_assert(__builtin_offsetof(forge_BlockShifts, W) == 10, "forge_BlockShifts.W must be at byte 10, as in the Go struct");
#line 11 "gen/translate/testdata/accept/shifts.go"
static_assert(__builtin_offsetof(forge_BlockShifts, I) == 12, "forge_BlockShifts.I must be at byte 12, as in the Go struct");
#line 12 "gen/translate/testdata/accept/shifts.go"
static_assert(__builtin_offsetof(forge_BlockShifts, V) == 16, "forge_BlockShifts.V must be at byte 16, as in the Go struct");
#line 13 "gen/translate/testdata/accept/shifts.go"
static_assert(__builtin_offsetof(forge_BlockShifts, N8) == 20, "forge_BlockShifts.N8 must be at byte 20, as in the Go struct");
#line 16 "gen/translate/testdata/accept/shifts.go"
FORGE_DEVICE float forge_BlockShifts_Dequant(const forge_BlockShifts* __restrict__ b, int32_t j) {
#line 17 "gen/translate/testdata/accept/shifts.go"
	int32_t k = j & 3;
#line 18 "gen/translate/testdata/accept/shifts.go"
	uint8_t n = b->N8[k];
#line 19 "gen/translate/testdata/accept/shifts.go"
	{
#line 19 "gen/translate/testdata/accept/shifts.go"
		int32_t tag = j >> 2;
#line 20 "gen/translate/testdata/accept/shifts.go"
		if (tag == 0) {
#line 21 "gen/translate/testdata/accept/shifts.go"
			return ((((float)((int8_t)((uint32_t)b->S[k] << 3))) + ((float)((int8_t)((int32_t)b->S[k] >> 2)))) + ((float)((uint8_t)((uint32_t)b->U[k] << 5)))) + ((float)((uint8_t)((uint32_t)b->U[k] >> 7)));
#line 22 "gen/translate/testdata/accept/shifts.go"
		} else if (tag == 1) {
#line 23 "gen/translate/testdata/accept/shifts.go"
			return (((((float)((int8_t)((uint32_t)b->S[k] << 8))) + ((float)((int8_t)((int32_t)b->S[k] >> 9)))) + ((float)((uint8_t)((uint32_t)b->U[k] << 8)))) + ((float)((int16_t)((int32_t)b->H >> 15)))) + ((float)((uint16_t)((uint32_t)b->W << 12)));
#line 24 "gen/translate/testdata/accept/shifts.go"
		} else if (tag == 2) {
#line 25 "gen/translate/testdata/accept/shifts.go"
			return (((((((float)((int32_t)((uint32_t)b->I << 31))) + ((float)(b->I >> 31))) + ((float)(b->V << 31))) + ((float)(b->V >> 31))) + ((float)0)) + ((float)(b->I >> 31))) + ((float)0u);
#line 26 "gen/translate/testdata/accept/shifts.go"
		} else if (tag == 3) {
#line 27 "gen/translate/testdata/accept/shifts.go"
			return ((((float)((((uint32_t)n) < 32u) ? ((int8_t)((uint32_t)b->S[k] << ((uint32_t)n))) : ((int8_t)0))) + ((float)((int8_t)((int32_t)b->S[k] >> ((((uint32_t)n) < 31u) ? ((uint32_t)n) : 31u))))) + ((float)((((uint32_t)n) < 32u) ? ((uint8_t)((uint32_t)b->U[k] << ((uint32_t)n))) : ((uint8_t)0)))) + ((float)((((uint32_t)n) < 32u) ? ((uint8_t)((uint32_t)b->U[k] >> ((uint32_t)n))) : ((uint8_t)0)));
#line 28 "gen/translate/testdata/accept/shifts.go"
		} else if (tag == 4) {
#line 29 "gen/translate/testdata/accept/shifts.go"
			return ((((float)((((uint32_t)n) < 32u) ? ((int16_t)((uint32_t)b->H << ((uint32_t)n))) : ((int16_t)0))) + ((float)((int16_t)((int32_t)b->H >> ((((uint32_t)n) < 31u) ? ((uint32_t)n) : 31u))))) + ((float)((((uint32_t)n) < 32u) ? ((uint16_t)((uint32_t)b->W << ((uint32_t)n))) : ((uint16_t)0)))) + ((float)((((uint32_t)n) < 32u) ? ((uint16_t)((uint32_t)b->W >> ((uint32_t)n))) : ((uint16_t)0)));
#line 30 "gen/translate/testdata/accept/shifts.go"
		} else if (tag == 5) {
#line 31 "gen/translate/testdata/accept/shifts.go"
			return ((((float)((((uint32_t)n) < 32u) ? ((int32_t)((uint32_t)b->I << ((uint32_t)n))) : 0)) + ((float)(b->I >> ((((uint32_t)n) < 31u) ? ((uint32_t)n) : 31u)))) + ((float)((((uint32_t)n) < 32u) ? (b->V << ((uint32_t)n)) : 0u))) + ((float)((((uint32_t)n) < 32u) ? (b->V >> ((uint32_t)n)) : 0u));
#line 32 "gen/translate/testdata/accept/shifts.go"
		} else if (tag == 6) {
#line 33 "gen/translate/testdata/accept/shifts.go"
			int32_t c = (int32_t)((uint8_t)((uint32_t)n & 63u));
#line 34 "gen/translate/testdata/accept/shifts.go"
			uint16_t d = (uint16_t)((uint32_t)((uint16_t)n) * 3u);
#line 35 "gen/translate/testdata/accept/shifts.go"
			return ((((float)(b->I >> ((((uint32_t)c) < 31u) ? ((uint32_t)c) : 31u))) + ((float)((((uint32_t)c) < 32u) ? (b->V << ((uint32_t)c)) : 0u))) + ((float)((int16_t)((int32_t)b->H >> ((((uint32_t)d) < 31u) ? ((uint32_t)d) : 31u))))) + ((float)((((uint32_t)d) < 32u) ? (b->V >> ((uint32_t)d)) : 0u));
		}
	}
#line 37 "gen/translate/testdata/accept/shifts.go"
	uint32_t x = b->V;
#line 38 "gen/translate/testdata/accept/shifts.go"
	x = x << ((uint8_t)((uint32_t)n & 7u));
#line 39 "gen/translate/testdata/accept/shifts.go"
	x = x >> ((uint8_t)k);
#line 40 "gen/translate/testdata/accept/shifts.go"
	int8_t y = b->S[k];
#line 41 "gen/translate/testdata/accept/shifts.go"
	y = (int8_t)((int32_t)y >> ((((uint32_t)n) < 31u) ? ((uint32_t)n) : 31u));
#line 42 "gen/translate/testdata/accept/shifts.go"
	return (((float)x) + ((float)y)) + ((float)(1u << (j & 31)));
}
