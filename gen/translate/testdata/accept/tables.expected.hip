#line 20 "gen/translate/testdata/accept/tables.go"
struct forge_BlockTables {
#line 21 "gen/translate/testdata/accept/tables.go"
	uint8_t Q[16];
};
#line 20 "gen/translate/testdata/accept/tables.go"
static_assert(sizeof(forge_BlockTables) == 16, "forge_BlockTables must be 16 bytes, as the Go struct BlockTables");
#line 21 "gen/translate/testdata/accept/tables.go"
static_assert(__builtin_offsetof(forge_BlockTables, Q) == 0, "forge_BlockTables.Q must be at byte 0, as in the Go struct");
#line 9 "gen/translate/testdata/accept/tables.go"
static __device__ const int8_t forge_codebook[16] = {
	-127, -104, -83, -65, -49, -35, -22, -10,
	1, 13, 25, 38, 53, 69, 89, 113
};
#line 10 "gen/translate/testdata/accept/tables.go"
static __device__ const float forge_steps[8] = {0x0p+00f, 0x1.99999ap-04f, -0x1p-02f, 0x1.555556p-02f, 0x1.b38fb8p-127f, 0x1.fffffep+127f, -0x1p-149f, 0x1.ffcp+15f};
#line 14 "gen/translate/testdata/accept/tables.go"
static __device__ const bool forge_flags[4] = {true, false, false, true};
#line 11 "gen/translate/testdata/accept/tables.go"
static __device__ const uint32_t forge_extremes[3] = {0u, 2147483648u, 4294967295u};
#line 12 "gen/translate/testdata/accept/tables.go"
static __device__ const int16_t forge_sparse[8] = {0, 0, -32768, 0, 0, 32767, 7, 0};
#line 13 "gen/translate/testdata/accept/tables.go"
static __device__ const uint8_t forge_grid[4][4] = {
	{1, 2, 3, 4},
	{5, 6, 7, 8},
	{9, 0, 0, 0},
	{13, 14, 15, 16}
};
#line 16 "gen/translate/testdata/accept/tables.go"
static __device__ const int32_t forge_ints[2] = {(-2147483647 - 1), 2147483647};
#line 15 "gen/translate/testdata/accept/tables.go"
static __device__ const forge_half forge_halves[4] = {15360, 48128, 31743, 1};
#line 24 "gen/translate/testdata/accept/tables.go"
FORGE_DEVICE float forge_BlockTables_Dequant(const forge_BlockTables* __restrict__ b, int32_t j) {
#line 25 "gen/translate/testdata/accept/tables.go"
	uint8_t q = b->Q[j & 15];
#line 26 "gen/translate/testdata/accept/tables.go"
	{
#line 26 "gen/translate/testdata/accept/tables.go"
		int32_t tag = j >> 3;
#line 27 "gen/translate/testdata/accept/tables.go"
		if (tag == 0) {
#line 28 "gen/translate/testdata/accept/tables.go"
			return ((float)forge_codebook[(uint8_t)((uint32_t)q & 15u)]) * forge_steps[(uint8_t)((uint32_t)q >> 5)];
#line 29 "gen/translate/testdata/accept/tables.go"
		} else if (tag == 1) {
#line 30 "gen/translate/testdata/accept/tables.go"
			if (forge_flags[(uint8_t)((uint32_t)q & 3u)]) {
#line 31 "gen/translate/testdata/accept/tables.go"
				return ((float)forge_extremes[(uint8_t)((uint32_t)q % 3u)]) + ((float)forge_sparse[(uint8_t)((uint32_t)q & 7u)]);
			}
#line 33 "gen/translate/testdata/accept/tables.go"
			return ((float)forge_grid[(uint8_t)((uint32_t)q & 3u)][(uint8_t)((uint32_t)q >> 6)]) + ((float)forge_ints[(uint8_t)((uint32_t)q & 1u)]);
#line 34 "gen/translate/testdata/accept/tables.go"
		} else if (tag == 2) {
#line 35 "gen/translate/testdata/accept/tables.go"
			return forge_half_to_f32(forge_halves[(uint8_t)((uint32_t)q & 3u)]);
		}
	}
#line 37 "gen/translate/testdata/accept/tables.go"
	return forge_steps[j & 7];
}
