// Test stand-in for templates/hip/forge_portability.h: only what translated
// device code uses (FORGE_DEVICE, __device__, the scalar typedefs, the
// conversion intrinsics and, spliced in, the real header's integer-form
// intrinsics), for hipcc (device compile) and for a host C++
// compiler (the execution test). The intrinsics follow specs/formats/scalar.go
// bit for bit; the tests compare their results with the Go spec's.
#ifndef FORGE_PORTABILITY_STANDIN_H
#define FORGE_PORTABILITY_STANDIN_H

#include <stdint.h>

#if defined(__HIP__) || defined(__HIPCC__)
#include <hip/hip_runtime.h>
#define FORGE_DEVICE __device__ __forceinline__
#define FORGE_HOST_DEVICE __host__ __device__ __forceinline__
#elif defined(__CUDACC__)
#define FORGE_DEVICE __device__ __forceinline__
#define FORGE_HOST_DEVICE __host__ __device__ __forceinline__
#else
// Host C++: device qualifiers vanish.
#define __device__
#define FORGE_DEVICE inline
#define FORGE_HOST_DEVICE inline
#endif

typedef uint16_t forge_half;
typedef uint16_t forge_bfloat16;
typedef uint8_t forge_e8m0;

static FORGE_DEVICE float forge_bits_f32(uint32_t u) {
	float f;
	__builtin_memcpy(&f, &u, 4);
	return f;
}

static FORGE_DEVICE uint32_t forge_f32_bits(float f) {
	uint32_t u;
	__builtin_memcpy(&u, &f, 4);
	return u;
}

// Exact; a NaN keeps its payload and gains the quiet bit.
FORGE_DEVICE float forge_half_to_f32(forge_half h) {
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = ((uint32_t)h >> 10) & 0x1fu;
	uint32_t man = (uint32_t)h & 0x3ffu;
	if (exp == 0x1fu) {
		return forge_bits_f32(man == 0 ? (sign | 0x7f800000u) : (sign | 0x7fc00000u | man << 13));
	}
	if (exp == 0) {
		float v = (float)man * 0x1p-24f; // exact
		return forge_bits_f32(sign | forge_f32_bits(v));
	}
	return forge_bits_f32(sign | (exp + 112u) << 23 | man << 13);
}

// The header's arithmetic-only widening is the exact one off NVIDIA.
FORGE_DEVICE float forge_half_to_f32_arith(forge_half h) {
	return forge_half_to_f32(h);
}

// Round to nearest even, overflow to inf, NaN to 0x7E00 with the sign.
FORGE_DEVICE uint16_t forge_f32_to_half(float f) {
	uint32_t bits = forge_f32_bits(f);
	uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
	uint32_t a = bits & 0x7fffffffu;
	if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
	if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
	if (a >= 0x38800000u) {
		uint32_t r = a - 0x38000000u;
		r += 0xfffu + ((r >> 13) & 1u);
		return (uint16_t)(sign | (uint16_t)(r >> 13));
	}
	if (a < 0x33000000u) return sign;
	uint32_t e = a >> 23;
	uint32_t m = (a & 0x7fffffu) | 0x800000u;
	uint32_t shift = 126u - e;
	uint32_t q = m >> shift;
	uint32_t rem = m & ((1u << shift) - 1u);
	uint32_t half = 1u << (shift - 1u);
	if (rem > half || (rem == half && (q & 1u))) q++;
	return (uint16_t)(sign | (uint16_t)q);
}

FORGE_DEVICE float forge_bf16_to_f32(forge_bfloat16 b) { return forge_bits_f32((uint32_t)b << 16); }

// 2^(e-127); 255 is NaN (the bits float32(math.NaN()) has in Go).
FORGE_DEVICE float forge_e8m0_to_f32(forge_e8m0 e) {
	if (e == 255) return forge_bits_f32(0x7fc00000u);
	if (e == 0) return forge_bits_f32(0x00400000u);
	return forge_bits_f32((uint32_t)e << 23);
}

// 2^(e-128), with 255 read as 2^127.
FORGE_DEVICE float forge_e8m0_half_scale(forge_e8m0 e) {
	if (e < 2) return forge_bits_f32(0x00200000u << e);
	return forge_bits_f32((uint32_t)(e - 1) << 23);
}

// The real header's integer-form intrinsics (word loads, forge_dot4) go
// here: the tests copy this file with the marker below replaced by that
// section of templates/hip/forge_portability.h, so they check the real code.
// FORGE_INT_INTRINSICS

#endif
