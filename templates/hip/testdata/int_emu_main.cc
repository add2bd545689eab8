// Runs the device forms of the header's integer-form intrinsics on the host,
// for hip_test.go to compare with the Go specs (specs/formats/intform.go).
// The test compiles this file with a plain C++ compiler, the header's
// integer-form section spliced in at the marker below, once per vendor
// branch: -D__CUDA_ARCH__=900 (NVIDIA), -D__HIP_DEVICE_COMPILE__ with an
// AMD target's macro (__gfx1030__, __gfx90a__, or __gfx1100__ and
// __GFX11__), or neither (the host's plain C). The instructions those
// branches call are emulated below as their vendors document them; a
// selector or clamp that the header is not meant to use aborts.
//   int_emu lut IN OUT: IN holds records of 16 table bytes (entry 0 first)
//     and a little-endian uint32 q; OUT gets forge_lut16 of each, with the
//     table packed four bytes to a word, little-endian.
//   int_emu dot IN OUT: IN holds records of three little-endian uint32
//     a, b, c; OUT gets forge_dot4(a, b, (int32_t)c) of each.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORGE_HOST_DEVICE static inline

static inline int8_t emu_byte(uint32_t x, int k) { return (int8_t)(uint8_t)(x >> (8 * k)); }

#if defined(__CUDA_ARCH__)
// CUDA's __byte_perm(x, y, s): byte n of the result is byte ((s >> 4n) & 7)
// of the eight bytes y:x, x the low word (the upper 16 bits of s and the
// top bit of each nibble are not used).
static inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
	const uint64_t v = (uint64_t)y << 32 | x;
	uint32_t r = 0;
	for (int n = 0; n < 4; n++) {
		r |= (uint32_t)(uint8_t)(v >> (8 * ((s >> (4 * n)) & 7u))) << (8 * n);
	}
	return r;
}

// CUDA's __dp4a(a, b, c): c plus the products of the signed bytes of a and
// b, wrapping.
static inline int __dp4a(int a, int b, int c) {
	uint32_t sum = (uint32_t)c;
	for (int k = 0; k < 4; k++) {
		sum += (uint32_t)((int32_t)emu_byte((uint32_t)a, k) * (int32_t)emu_byte((uint32_t)b, k));
	}
	return (int)sum;
}
#endif

#if defined(__HIP_DEVICE_COMPILE__)
// AMD's v_perm_b32 D, S0, S1, S2 (__builtin_amdgcn_perm(S0, S1, S2)): byte k
// of D is byte_permute({S0, S1}, S2[8k+7:8k]), which for a selector below 8
// is that byte of the 64-bit S0:S1, S1 the low word (bytes 0..3). Selectors
// 8..15 give sign bits and constants; the header never uses them.
static inline uint32_t emu_amdgcn_perm(uint32_t s0, uint32_t s1, uint32_t s2) {
	const uint64_t v = (uint64_t)s0 << 32 | s1;
	uint32_t r = 0;
	for (int k = 0; k < 4; k++) {
		const uint32_t sel = (s2 >> (8 * k)) & 0xffu;
		if (sel > 7) {
			fprintf(stderr, "v_perm_b32 selector %#x: not one of the byte selectors 0..7\n", sel);
			abort();
		}
		r |= (uint32_t)(uint8_t)(v >> (8 * sel)) << (8 * k);
	}
	return r;
}
#define __builtin_amdgcn_perm emu_amdgcn_perm

// v_dot4_i32_i8 (__builtin_amdgcn_sdot4(a, b, c, clamp)) and, on gfx11,
// v_dot4_i32_iu8 (__builtin_amdgcn_sudot4(a_signed, a, b_signed, b, c,
// clamp)): c plus the products of the bytes of a and b, signed or
// unsigned as asked, wrapping unless clamped (the header never clamps).
static inline int emu_amdgcn_sudot4(bool as, int a, bool bs, int b, int c, bool clamp) {
	if (clamp) {
		fprintf(stderr, "dot4 with clamp: the header never asks for it\n");
		abort();
	}
	uint32_t sum = (uint32_t)c;
	for (int k = 0; k < 4; k++) {
		const int32_t x = as ? emu_byte((uint32_t)a, k) : (uint8_t)((uint32_t)a >> (8 * k));
		const int32_t y = bs ? emu_byte((uint32_t)b, k) : (uint8_t)((uint32_t)b >> (8 * k));
		sum += (uint32_t)(x * y);
	}
	return (int)sum;
}
static inline int emu_amdgcn_sdot4(int a, int b, int c, bool clamp) { return emu_amdgcn_sudot4(true, a, true, b, c, clamp); }
#define __builtin_amdgcn_sdot4 emu_amdgcn_sdot4
#define __builtin_amdgcn_sudot4 emu_amdgcn_sudot4
#endif

// FORGE_INT_INTRINSICS

static uint32_t get32(const unsigned char* b) {
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void put32(FILE* f, uint32_t v) {
	unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
	fwrite(b, 1, 4, f);
}

int main(int argc, char** argv) {
	if (argc != 4 || (strcmp(argv[1], "lut") != 0 && strcmp(argv[1], "dot") != 0)) {
		fprintf(stderr, "usage: int_emu lut|dot IN OUT\n");
		return 2;
	}
	const bool lut = strcmp(argv[1], "lut") == 0;
	FILE* in = fopen(argv[2], "rb");
	FILE* out = fopen(argv[3], "wb");
	if (!in || !out) {
		perror("open");
		return 1;
	}
	unsigned char r[20];
	const size_t size = lut ? 20 : 12;
	while (fread(r, 1, size, in) == size) {
		if (lut) {
			put32(out, forge_lut16(get32(r), get32(r + 4), get32(r + 8), get32(r + 12), get32(r + 16)));
		} else {
			put32(out, (uint32_t)forge_dot4(get32(r), get32(r + 4), (int32_t)get32(r + 8)));
		}
	}
	return fclose(out) == 0 ? 0 : 1;
}
