// Evaluates the portability header's scalar intrinsics on the host, for
// hip_test.go to compare with the Go specs (specs/formats/scalar.go):
//   intrinsics IN OUT
// IN holds little-endian float32 bit patterns; OUT receives, little-endian:
//   65536 × u32  forge_half_to_f32(h) bits, h = 0..65535
//   65536 × u32  forge_bf16_to_f32(b) bits, b = 0..65535
//     256 × u32  forge_e8m0_to_f32(e) bits, e = 0..255
//     256 × u32  forge_e8m0_half_scale(e) bits, e = 0..255
//       N × u16  forge_f32_to_half(x) for each x of IN
// Compiled with hipcc --cuda-host-only (the intrinsics are __host__ __device__).
#include "../forge_portability.h"

#include <stdio.h>
#include <stdlib.h>

static void put32(FILE* f, uint32_t v) {
	unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
	fwrite(b, 1, 4, f);
}

int main(int argc, char** argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: intrinsics IN OUT\n");
		return 2;
	}
	FILE* in = fopen(argv[1], "rb");
	FILE* out = fopen(argv[2], "wb");
	if (!in || !out) {
		perror("open");
		return 1;
	}
	for (uint32_t h = 0; h < 65536; h++) {
		put32(out, forge_f32_bits(forge_half_to_f32((forge_half)h)));
	}
	for (uint32_t b = 0; b < 65536; b++) {
		put32(out, forge_f32_bits(forge_bf16_to_f32((forge_bfloat16)b)));
	}
	for (uint32_t e = 0; e < 256; e++) {
		put32(out, forge_f32_bits(forge_e8m0_to_f32((forge_e8m0)e)));
	}
	for (uint32_t e = 0; e < 256; e++) {
		put32(out, forge_f32_bits(forge_e8m0_half_scale((forge_e8m0)e)));
	}
	unsigned char b[4];
	while (fread(b, 1, 4, in) == 4) {
		uint32_t x = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		uint16_t h = forge_f32_to_half(forge_f32_from_bits(x));
		unsigned char o[2] = {(unsigned char)h, (unsigned char)(h >> 8)};
		fwrite(o, 1, 2, out);
	}
	if (ferror(in) || fclose(out) != 0) {
		perror("io");
		return 1;
	}
	return 0;
}
