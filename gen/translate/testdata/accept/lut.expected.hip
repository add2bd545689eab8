#line 15 "gen/translate/testdata/accept/lut.go"
struct forge_BlockLut {
#line 16 "gen/translate/testdata/accept/lut.go"
	uint8_t Qs[16];
};
#line 15 "gen/translate/testdata/accept/lut.go"
static_assert(sizeof(forge_BlockLut) == 16, "forge_BlockLut must be 16 bytes, as the Go struct BlockLut");
#line 16 "gen/translate/testdata/accept/lut.go"
static_assert(__builtin_offsetof(forge_BlockLut, Qs) == 0, "forge_BlockLut.Qs must be at byte 0, as in the Go struct");
#line 19 "gen/translate/testdata/accept/lut.go"
FORGE_DEVICE float forge_BlockLut_Dequant(const forge_BlockLut* __restrict__ b, int32_t j) {
#line 20 "gen/translate/testdata/accept/lut.go"
	uint32_t q = forge_word32_a4(b->Qs + ((int32_t)(4u * (uint32_t)(j & 3)))) >> (4u * ((uint32_t)((j >> 2) & 1)));
#line 21 "gen/translate/testdata/accept/lut.go"
	uint32_t c = forge_lut16(0xF7C08180u, 0x020100FFu, 0x0D080503u, 0x7F402215u, q);
#line 22 "gen/translate/testdata/accept/lut.go"
	if (((uint8_t)((uint32_t)b->Qs[15] & 1u)) != ((uint8_t)0)) {
#line 23 "gen/translate/testdata/accept/lut.go"
		c = forge_lut16(0xFD000000u, 0x46000000u, 0x000000F8u, 0xF1000000u, q);
	}
#line 25 "gen/translate/testdata/accept/lut.go"
	return (float)((int8_t)(c >> (8u * ((uint32_t)((j >> 3) & 3)))));
}
