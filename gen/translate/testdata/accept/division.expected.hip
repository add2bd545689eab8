#line 6 "gen/translate/testdata/accept/division.go"
struct forge_BlockDivision {
#line 7 "gen/translate/testdata/accept/division.go"
	int8_t S[4];
#line 8 "gen/translate/testdata/accept/division.go"
	uint16_t U[4];
#line 9 "gen/translate/testdata/accept/division.go"
	int32_t I[4];
#line 10 "gen/translate/testdata/accept/division.go"
	uint32_t V;
};
#line 6 "gen/translate/testdata/accept/division.go"
static_assert(sizeof(forge_BlockDivision) == 32, "forge_BlockDivision must be 32 bytes, as the Go struct BlockDivision");
#line 7 "gen/translate/testdata/accept/division.go"
static_assert(__builtin_offsetof(forge_BlockDivision, S) == 0, "forge_BlockDivision.S must be at byte 0, as in the Go struct");
#line 8 "gen/translate/testdata/accept/division.go"
static_assert(__builtin_offsetof(forge_BlockDivision, U) == 4, "forge_BlockDivision.U must be at byte 4, as in the Go struct");
#line 9 "gen/translate/testdata/accept/division.go"
static_assert(__builtin_offsetof(forge_BlockDivision, I) == 12, "forge_BlockDivision.I must be at byte 12, as in the Go struct");
#line 10 "gen/translate/testdata/accept/division.go"
static_assert(__builtin_offsetof(forge_BlockDivision, V) == 28, "forge_BlockDivision.V must be at byte 28, as in the Go struct");
#line 15 "gen/translate/testdata/accept/division.go"
FORGE_DEVICE float forge_BlockDivision_Dequant(const forge_BlockDivision* __restrict__ b, int32_t j) {
#line 16 "gen/translate/testdata/accept/division.go"
	int32_t k = j & 3;
#line 17 "gen/translate/testdata/accept/division.go"
	int8_t s = b->S[k];
#line 17 "gen/translate/testdata/accept/division.go"
	uint16_t u = b->U[k];
#line 17 "gen/translate/testdata/accept/division.go"
	int32_t i = b->I[k];
#line 18 "gen/translate/testdata/accept/division.go"
	{
#line 18 "gen/translate/testdata/accept/division.go"
		int32_t tag = j >> 2;
#line 19 "gen/translate/testdata/accept/division.go"
		if (tag == 0) {
#line 20 "gen/translate/testdata/accept/division.go"
			return ((((float)((int8_t)((int32_t)s / 3))) + ((float)((int8_t)((int32_t)s % 3)))) + ((float)((int8_t)((int32_t)s / (-7))))) + ((float)((int8_t)((int32_t)s % (-7))));
#line 21 "gen/translate/testdata/accept/division.go"
		} else if (tag == 1) {
#line 22 "gen/translate/testdata/accept/division.go"
			return ((((float)((int8_t)(0u - (uint32_t)s))) + ((float)((int8_t)0))) + ((float)((int32_t)(0u - (uint32_t)i)))) + ((float)0);
#line 23 "gen/translate/testdata/accept/division.go"
		} else if (tag == 2) {
#line 24 "gen/translate/testdata/accept/division.go"
			return (((float)((uint16_t)((uint32_t)u / 10u))) + ((float)((uint16_t)((uint32_t)u % 10u)))) + ((float)((uint16_t)((uint32_t)u / 65535u)));
#line 25 "gen/translate/testdata/accept/division.go"
		} else if (tag == 3) {
#line 26 "gen/translate/testdata/accept/division.go"
			return ((((float)(i / 1000)) + ((float)(i % 1000))) + ((float)(i / (-3)))) + ((float)(i % (-3)));
#line 27 "gen/translate/testdata/accept/division.go"
		} else if (tag == 4) {
#line 28 "gen/translate/testdata/accept/division.go"
			return (((float)(b->V / 7u)) + ((float)(b->V % 7u))) + ((float)(b->V / 2147483648u));
#line 29 "gen/translate/testdata/accept/division.go"
		} else if (tag == 5) {
#line 30 "gen/translate/testdata/accept/division.go"
			int32_t m = (int32_t)(2147483648u + (uint32_t)k);
#line 31 "gen/translate/testdata/accept/division.go"
			return (((float)((int32_t)(0u - (uint32_t)m))) + ((float)(m / 2))) + ((float)(m % 2));
#line 32 "gen/translate/testdata/accept/division.go"
		} else if (tag == 6) {
#line 33 "gen/translate/testdata/accept/division.go"
			int32_t x = i;
#line 34 "gen/translate/testdata/accept/division.go"
			x = x / 16;
#line 35 "gen/translate/testdata/accept/division.go"
			x = x % 5;
#line 36 "gen/translate/testdata/accept/division.go"
			return (float)x;
		}
	}
#line 38 "gen/translate/testdata/accept/division.go"
	return (float)((int8_t)((int32_t)s / (-128)));
}
