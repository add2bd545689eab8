#line 9 "gen/translate/testdata/accept/words.go"
struct forge_BlockWords {
#line 10 "gen/translate/testdata/accept/words.go"
	uint16_t H;
#line 11 "gen/translate/testdata/accept/words.go"
	uint8_t A[14];
#line 12 "gen/translate/testdata/accept/words.go"
	uint8_t W[8];
#line 13 "gen/translate/testdata/accept/words.go"
	int8_t S[8];
};
#line 9 "gen/translate/testdata/accept/words.go"
static_assert(sizeof(forge_BlockWords) == 32, "forge_BlockWords must be 32 bytes, as the Go struct BlockWords");
#line 10 "gen/translate/testdata/accept/words.go"
static_assert(__builtin_offsetof(forge_BlockWords, H) == 0, "forge_BlockWords.H must be at byte 0, as in the Go struct");
#line 11 "gen/translate/testdata/accept/words.go"
static_assert(__builtin_offsetof(forge_BlockWords, A) == 2, "forge_BlockWords.A must be at byte 2, as in the Go struct");
#line 12 "gen/translate/testdata/accept/words.go"
static_assert(__builtin_offsetof(forge_BlockWords, W) == 16, "forge_BlockWords.W must be at byte 16, as in the Go struct");
#line 13 "gen/translate/testdata/accept/words.go"
static_assert(__builtin_offsetof(forge_BlockWords, S) == 24, "forge_BlockWords.S must be at byte 24, as in the Go struct");
#line 16 "gen/translate/testdata/accept/words.go"
FORGE_DEVICE float forge_BlockWords_Dequant(const forge_BlockWords* __restrict__ b, int32_t j) {
#line 17 "gen/translate/testdata/accept/words.go"
	int32_t k = j & 7;
#line 18 "gen/translate/testdata/accept/words.go"
	{
#line 18 "gen/translate/testdata/accept/words.go"
		int32_t tag = j >> 3;
#line 19 "gen/translate/testdata/accept/words.go"
		if (tag == 0) {
#line 20 "gen/translate/testdata/accept/words.go"
			return ((float)(forge_word32_a4(b->W + ((int32_t)(4u * (uint32_t)(k & 1)))) >> (4u * ((uint32_t)(k >> 1))))) + ((float)(forge_word32_a2(b->A + ((int32_t)(2u + (4u * (uint32_t)(k & 1))))) & 65535u));
#line 21 "gen/translate/testdata/accept/words.go"
		} else if (tag == 1) {
#line 22 "gen/translate/testdata/accept/words.go"
			return (float)(forge_word32_a1(b->A + ((int32_t)(1u + (uint32_t)k))) & 16777215u);
#line 23 "gen/translate/testdata/accept/words.go"
		} else if (tag == 2) {
#line 24 "gen/translate/testdata/accept/words.go"
			return (((float)forge_word16_a2(b->S + ((int32_t)(2u * (uint32_t)(k & 3))))) + ((float)forge_word16_a1(b->A + ((int32_t)((uint32_t)k + 1u))))) + ((float)forge_word16_a2(b->W + (6)));
		}
	}
#line 26 "gen/translate/testdata/accept/words.go"
	int32_t c = (int32_t)(2147483392u + ((uint32_t)b->H));
#line 27 "gen/translate/testdata/accept/words.go"
	if ((k & 1) != 0) {
#line 28 "gen/translate/testdata/accept/words.go"
		c = (int32_t)(0u - (uint32_t)c);
	}
#line 30 "gen/translate/testdata/accept/words.go"
	return (float)forge_dot4(forge_word32_a4(b->S + ((int32_t)(4u * (uint32_t)(k & 1)))), forge_word32_a4(b->W + ((int32_t)(4u * (uint32_t)((k >> 1) & 1)))), c);
}
