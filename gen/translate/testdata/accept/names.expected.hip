#line 5 "gen/translate/testdata/accept/names.go"
struct forge_BlockNames {
#line 6 "gen/translate/testdata/accept/names.go"
	uint8_t Class;
#line 7 "gen/translate/testdata/accept/names.go"
	uint8_t pad0;
#line 8 "gen/translate/testdata/accept/names.go"
	int16_t delete_;
};
#line 5 "gen/translate/testdata/accept/names.go"
static_assert(sizeof(forge_BlockNames) == 4, "forge_BlockNames must be 4 bytes, as the Go struct BlockNames");
#line 6 "gen/translate/testdata/accept/names.go"
static_assert(__builtin_offsetof(forge_BlockNames, Class) == 0, "forge_BlockNames.Class must be at byte 0, as in the Go struct");
#line 7 "gen/translate/testdata/accept/names.go"
static_assert(__builtin_offsetof(forge_BlockNames, pad0) == 1, "forge_BlockNames.pad0 must be at byte 1, as in the Go struct");
#line 8 "gen/translate/testdata/accept/names.go"
static_assert(__builtin_offsetof(forge_BlockNames, delete_) == 2, "forge_BlockNames.delete_ must be at byte 2, as in the Go struct");
#line 11 "gen/translate/testdata/accept/names.go"
FORGE_DEVICE float forge_BlockNames_Dequant(const forge_BlockNames* __restrict__ b, int32_t j) {
#line 12 "gen/translate/testdata/accept/names.go"
	int32_t this_ = (int32_t)b->Class;
#line 13 "gen/translate/testdata/accept/names.go"
	int32_t new_ = (int32_t)b->delete_;
#line 14 "gen/translate/testdata/accept/names.go"
	int32_t linux_ = (int32_t)((uint32_t)this_ + (uint32_t)new_);
#line 15 "gen/translate/testdata/accept/names.go"
	int32_t NULL_ = j;
#line 16 "gen/translate/testdata/accept/names.go"
	int32_t v_x = 1;
#line 17 "gen/translate/testdata/accept/names.go"
	int32_t v_Y = 2;
#line 18 "gen/translate/testdata/accept/names.go"
	int32_t v_forge_q = 3;
#line 19 "gen/translate/testdata/accept/names.go"
	float float_ = ((float)linux_) + ((float)NULL_);
#line 20 "gen/translate/testdata/accept/names.go"
	int32_t x = this_;
#line 21 "gen/translate/testdata/accept/names.go"
	{
#line 22 "gen/translate/testdata/accept/names.go"
		int32_t x_1 = (int32_t)((uint32_t)x * 2u);
#line 23 "gen/translate/testdata/accept/names.go"
		int32_t this_1 = (int32_t)((uint32_t)x_1 + 1u);
#line 24 "gen/translate/testdata/accept/names.go"
		float_ = float_ + ((float)this_1);
	}
#line 26 "gen/translate/testdata/accept/names.go"
	return float_ + ((float)((int32_t)((((uint32_t)x + (uint32_t)v_x) + (uint32_t)v_Y) + (uint32_t)v_forge_q)));
}
