//go:build cgo

package abitest

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int fake_abi_version_value = 1;
static int fake_abi_version(void) { return fake_abi_version_value; }

// The last call any recording launcher received, and how many there were.
// Matvec launchers record w as src, y as dst, and x, rows and cols; matmul
// launchers batch as well.
// Attention launchers record q as src, k as x, v, o as dst, batch, heads,
// heads_kv, seq_q, seq_kv, scale and causal.
typedef struct {
	int slot;
	uintptr_t src, dst, stream, x, v;
	int64_t n, rows, cols, batch, heads, heads_kv, seq_q, seq_kv;
	float scale;
	int32_t causal;
	int64_t pos, cap;
	uintptr_t aux, aux2; // the fused glue launchers' pointers past src, x, v and dst
} fake_call;
static fake_call fake_last;
static int64_t fake_calls;
static int fake_code;

static int fake_record(int slot, const void* src, void* dst, int64_t n, void* stream) {
	memset(&fake_last, 0, sizeof fake_last);
	fake_calls++;
	fake_last.slot = slot;
	fake_last.src = (uintptr_t)src;
	fake_last.dst = (uintptr_t)dst;
	fake_last.n = n;
	fake_last.stream = (uintptr_t)stream;
	fake_last.x = 0;
	fake_last.rows = 0;
	fake_last.cols = 0;
	fake_last.batch = 0;
	return fake_code;
}

static int fake_record_matvec(int slot, const void* w, const float* x, float* y, int64_t rows, int64_t cols, void* stream) {
	memset(&fake_last, 0, sizeof fake_last);
	fake_calls++;
	fake_last.slot = slot;
	fake_last.src = (uintptr_t)w;
	fake_last.x = (uintptr_t)x;
	fake_last.dst = (uintptr_t)y;
	fake_last.n = 0;
	fake_last.rows = rows;
	fake_last.cols = cols;
	fake_last.batch = 0;
	fake_last.stream = (uintptr_t)stream;
	return fake_code;
}

static int fake_record_matmul(int slot, const void* w, const float* x, float* y, int64_t rows, int64_t cols, int64_t batch, void* stream) {
	fake_record_matvec(slot, w, x, y, rows, cols, stream);
	fake_last.batch = batch;
	return fake_code;
}
static int fake_record_attention(int slot, const void* q, const void* k, const void* v, void* o, int64_t batch, int64_t heads,
	int64_t heads_kv, int64_t seq_q, int64_t seq_kv, float scale, int32_t causal, void* stream) {
	fake_record_matvec(slot, q, (const float*)k, (float*)o, 0, 0, stream);
	fake_last.v = (uintptr_t)v;
	fake_last.batch = batch;
	fake_last.heads = heads;
	fake_last.heads_kv = heads_kv;
	fake_last.seq_q = seq_q;
	fake_last.seq_kv = seq_kv;
	fake_last.scale = scale;
	fake_last.causal = causal;
	return fake_code;
}
// Glue launchers: rmsnorm records x as src, w as x, y as dst,
// rows and dim as cols, eps as scale; rope x as dst, seq as rows, heads,
// head_dim as cols, pos, theta as scale, neox as causal; the element-wise
// ones a as src, b as x, out as dst, n as rows; the layout ones src, dst,
// seq as rows, heads, head_dim as cols, pos and cap; add_norm a as src, b
// as x, w as v, h as dst, xq as aux, rows, dim as cols, eps as scale;
// rope_kv q as src, k as x, v, qh as dst, kc as aux, vc as aux2, seq as
// rows, heads, heads_kv, head_dim as cols, pos, cap, theta as scale and
// neox as causal.
static int fake_record_glue_norm(int slot, const float* x, const float* w, float* y, int64_t rows, int64_t dim, float eps, void* stream) {
	fake_record_matvec(slot, x, w, y, rows, dim, stream);
	fake_last.scale = eps;
	return fake_code;
}
static int fake_record_glue_rope(int slot, float* x, int64_t seq, int64_t heads, int64_t head_dim, int64_t pos, float theta, int32_t neox, void* stream) {
	fake_record_matvec(slot, NULL, NULL, x, seq, head_dim, stream);
	fake_last.heads = heads;
	fake_last.pos = pos;
	fake_last.scale = theta;
	fake_last.causal = neox;
	return fake_code;
}
static int fake_record_glue_binary(int slot, const float* a, const float* b, float* out, int64_t n, void* stream) {
	return fake_record_matvec(slot, a, b, out, n, 0, stream);
}
static int fake_record_glue_layout(int slot, const void* src, void* dst, int64_t seq, int64_t heads, int64_t head_dim, int64_t pos, int64_t cap, void* stream) {
	fake_record_matvec(slot, src, NULL, (float*)dst, seq, head_dim, stream);
	fake_last.heads = heads;
	fake_last.pos = pos;
	fake_last.cap = cap;
	return fake_code;
}
static int fake_record_glue_add_norm(int slot, const float* a, const float* b, const float* w, float* h, void* xq, int64_t rows, int64_t dim,
	float eps, void* stream) {
	fake_record_matvec(slot, a, b, h, rows, dim, stream);
	fake_last.v = (uintptr_t)w;
	fake_last.aux = (uintptr_t)xq;
	fake_last.scale = eps;
	return fake_code;
}
static int fake_record_glue_rope_kv(int slot, const float* q, const float* k, const float* v, uint16_t* qh, uint16_t* kc, uint16_t* vc,
	int64_t seq, int64_t heads, int64_t heads_kv, int64_t head_dim, int64_t pos, int64_t cap, float theta, int32_t neox, void* stream) {
	fake_record_matvec(slot, q, k, (float*)qh, seq, head_dim, stream);
	fake_last.v = (uintptr_t)v;
	fake_last.aux = (uintptr_t)kc;
	fake_last.aux2 = (uintptr_t)vc;
	fake_last.heads = heads;
	fake_last.heads_kv = heads_kv;
	fake_last.pos = pos;
	fake_last.cap = cap;
	fake_last.scale = theta;
	fake_last.causal = neox;
	return fake_code;
}
// 8 recorders of each glue shape, each told the slot (the symbol's index
// among the resolved ones) it records as when it is handed out.
#define FAKE_GN(i) static int fake_gn_##i(const float* x, const float* w, float* y, int64_t r, int64_t d, float e, void* st) { return fake_record_glue_norm(fake_glue_slot[0][i], x, w, y, r, d, e, st); }
#define FAKE_GR(i) static int fake_gr_##i(float* x, int64_t s, int64_t h, int64_t d, int64_t p, float t, int32_t n, void* st) { return fake_record_glue_rope(fake_glue_slot[1][i], x, s, h, d, p, t, n, st); }
#define FAKE_GB(i) static int fake_gb_##i(const float* a, const float* b, float* o, int64_t n, void* st) { return fake_record_glue_binary(fake_glue_slot[2][i], a, b, o, n, st); }
#define FAKE_GL(i) static int fake_gl_##i(const void* s, void* d, int64_t q, int64_t h, int64_t hd, int64_t p, int64_t c, void* st) { return fake_record_glue_layout(fake_glue_slot[3][i], s, d, q, h, hd, p, c, st); }
#define FAKE_GA(i) static int fake_ga_##i(const float* a, const float* b, const float* w, float* h, void* xq, int64_t r, int64_t d, float e, void* st) { \
	return fake_record_glue_add_norm(fake_glue_slot[4][i], a, b, w, h, xq, r, d, e, st); }
#define FAKE_GK(i) static int fake_gk_##i(const float* q, const float* k, const float* v, uint16_t* qh, uint16_t* kc, uint16_t* vc, int64_t s, \
	int64_t h, int64_t hkv, int64_t hd, int64_t p, int64_t c, float t, int32_t n, void* st) { \
	return fake_record_glue_rope_kv(fake_glue_slot[5][i], q, k, v, qh, kc, vc, s, h, hkv, hd, p, c, t, n, st); }
static int fake_glue_slot[6][8];
#define FAKE_G8(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
FAKE_G8(FAKE_GN) FAKE_G8(FAKE_GR) FAKE_G8(FAKE_GB) FAKE_G8(FAKE_GL) FAKE_G8(FAKE_GA) FAKE_G8(FAKE_GK)
#define FAKE_GNP(i) (void*)fake_gn_##i,
#define FAKE_GRP(i) (void*)fake_gr_##i,
#define FAKE_GBP(i) (void*)fake_gb_##i,
#define FAKE_GLP(i) (void*)fake_gl_##i,
#define FAKE_GAP(i) (void*)fake_ga_##i,
#define FAKE_GKP(i) (void*)fake_gk_##i,
static void* const fake_glue_recorders[6][8] = {{FAKE_G8(FAKE_GNP)}, {FAKE_G8(FAKE_GRP)}, {FAKE_G8(FAKE_GBP)}, {FAKE_G8(FAKE_GLP)},
	{FAKE_G8(FAKE_GAP)}, {FAKE_G8(FAKE_GKP)}};
// fake_glue_recorder hands out recorder k of shape kind for slot, or NULL
// when the shape's 8 are used.
static void* fake_glue_recorder(int kind, int k, int slot) {
	if (k >= 8) return NULL;
	fake_glue_slot[kind][k] = slot;
	return fake_glue_recorders[kind][k];
}
static fake_call fake_last_call(void) { return fake_last; }
static int64_t fake_call_count(void) { return fake_calls; }
static void fake_set_code(int code) { fake_code = code; }

// 256 recording launchers, fake_rec_0x00 .. fake_rec_0xff, each knowing its
// slot. They take void* for the output pointer; the trampolines call them
// as float* or uint16_t*, which every C ABI that Go supports passes alike.
#define FAKE_REC(i) static int fake_rec_##i(const void* s, void* d, int64_t n, void* st) { return fake_record(i, s, d, n, st); }
#define FAKE_REC16(h) FAKE_REC(h##0) FAKE_REC(h##1) FAKE_REC(h##2) FAKE_REC(h##3) FAKE_REC(h##4) FAKE_REC(h##5) FAKE_REC(h##6) FAKE_REC(h##7) \
	FAKE_REC(h##8) FAKE_REC(h##9) FAKE_REC(h##a) FAKE_REC(h##b) FAKE_REC(h##c) FAKE_REC(h##d) FAKE_REC(h##e) FAKE_REC(h##f)
FAKE_REC16(0x0) FAKE_REC16(0x1) FAKE_REC16(0x2) FAKE_REC16(0x3) FAKE_REC16(0x4) FAKE_REC16(0x5) FAKE_REC16(0x6) FAKE_REC16(0x7)
FAKE_REC16(0x8) FAKE_REC16(0x9) FAKE_REC16(0xa) FAKE_REC16(0xb) FAKE_REC16(0xc) FAKE_REC16(0xd) FAKE_REC16(0xe) FAKE_REC16(0xf)

#define FAKE_PTR(i) (void*)fake_rec_##i,
#define FAKE_PTR16(h) FAKE_PTR(h##0) FAKE_PTR(h##1) FAKE_PTR(h##2) FAKE_PTR(h##3) FAKE_PTR(h##4) FAKE_PTR(h##5) FAKE_PTR(h##6) FAKE_PTR(h##7) \
	FAKE_PTR(h##8) FAKE_PTR(h##9) FAKE_PTR(h##a) FAKE_PTR(h##b) FAKE_PTR(h##c) FAKE_PTR(h##d) FAKE_PTR(h##e) FAKE_PTR(h##f)
static void* const fake_recorders[256] = {
	FAKE_PTR16(0x0) FAKE_PTR16(0x1) FAKE_PTR16(0x2) FAKE_PTR16(0x3) FAKE_PTR16(0x4) FAKE_PTR16(0x5) FAKE_PTR16(0x6) FAKE_PTR16(0x7)
	FAKE_PTR16(0x8) FAKE_PTR16(0x9) FAKE_PTR16(0xa) FAKE_PTR16(0xb) FAKE_PTR16(0xc) FAKE_PTR16(0xd) FAKE_PTR16(0xe) FAKE_PTR16(0xf)
};
static void* fake_recorder(int slot) { return fake_recorders[slot]; }

// 256 recording matvec launchers, with the matvec family's signature.
#define FAKE_MV(i) static int fake_mv_##i(const void* w, const float* x, float* y, int64_t r, int64_t c, void* st) { return fake_record_matvec(i, w, x, y, r, c, st); }
#define FAKE_MV16(h) FAKE_MV(h##0) FAKE_MV(h##1) FAKE_MV(h##2) FAKE_MV(h##3) FAKE_MV(h##4) FAKE_MV(h##5) FAKE_MV(h##6) FAKE_MV(h##7) \
	FAKE_MV(h##8) FAKE_MV(h##9) FAKE_MV(h##a) FAKE_MV(h##b) FAKE_MV(h##c) FAKE_MV(h##d) FAKE_MV(h##e) FAKE_MV(h##f)
FAKE_MV16(0x0) FAKE_MV16(0x1) FAKE_MV16(0x2) FAKE_MV16(0x3) FAKE_MV16(0x4) FAKE_MV16(0x5) FAKE_MV16(0x6) FAKE_MV16(0x7)
FAKE_MV16(0x8) FAKE_MV16(0x9) FAKE_MV16(0xa) FAKE_MV16(0xb) FAKE_MV16(0xc) FAKE_MV16(0xd) FAKE_MV16(0xe) FAKE_MV16(0xf)

#define FAKE_MVPTR(i) (void*)fake_mv_##i,
#define FAKE_MVPTR16(h) FAKE_MVPTR(h##0) FAKE_MVPTR(h##1) FAKE_MVPTR(h##2) FAKE_MVPTR(h##3) FAKE_MVPTR(h##4) FAKE_MVPTR(h##5) FAKE_MVPTR(h##6) FAKE_MVPTR(h##7) \
	FAKE_MVPTR(h##8) FAKE_MVPTR(h##9) FAKE_MVPTR(h##a) FAKE_MVPTR(h##b) FAKE_MVPTR(h##c) FAKE_MVPTR(h##d) FAKE_MVPTR(h##e) FAKE_MVPTR(h##f)
static void* const fake_mv_recorders[256] = {
	FAKE_MVPTR16(0x0) FAKE_MVPTR16(0x1) FAKE_MVPTR16(0x2) FAKE_MVPTR16(0x3) FAKE_MVPTR16(0x4) FAKE_MVPTR16(0x5) FAKE_MVPTR16(0x6) FAKE_MVPTR16(0x7)
	FAKE_MVPTR16(0x8) FAKE_MVPTR16(0x9) FAKE_MVPTR16(0xa) FAKE_MVPTR16(0xb) FAKE_MVPTR16(0xc) FAKE_MVPTR16(0xd) FAKE_MVPTR16(0xe) FAKE_MVPTR16(0xf)
};
static void* fake_mv_recorder(int slot) { return fake_mv_recorders[slot]; }

// 256 recording matmul launchers, with the matmul family's signature.
#define FAKE_MM(i) static int fake_mm_##i(const void* w, const float* x, float* y, int64_t r, int64_t c, int64_t b, void* st) { return fake_record_matmul(i, w, x, y, r, c, b, st); }
#define FAKE_MM16(h) FAKE_MM(h##0) FAKE_MM(h##1) FAKE_MM(h##2) FAKE_MM(h##3) FAKE_MM(h##4) FAKE_MM(h##5) FAKE_MM(h##6) FAKE_MM(h##7) \
	FAKE_MM(h##8) FAKE_MM(h##9) FAKE_MM(h##a) FAKE_MM(h##b) FAKE_MM(h##c) FAKE_MM(h##d) FAKE_MM(h##e) FAKE_MM(h##f)
FAKE_MM16(0x0) FAKE_MM16(0x1) FAKE_MM16(0x2) FAKE_MM16(0x3) FAKE_MM16(0x4) FAKE_MM16(0x5) FAKE_MM16(0x6) FAKE_MM16(0x7)
FAKE_MM16(0x8) FAKE_MM16(0x9) FAKE_MM16(0xa) FAKE_MM16(0xb) FAKE_MM16(0xc) FAKE_MM16(0xd) FAKE_MM16(0xe) FAKE_MM16(0xf)

#define FAKE_MMPTR(i) (void*)fake_mm_##i,
#define FAKE_MMPTR16(h) FAKE_MMPTR(h##0) FAKE_MMPTR(h##1) FAKE_MMPTR(h##2) FAKE_MMPTR(h##3) FAKE_MMPTR(h##4) FAKE_MMPTR(h##5) FAKE_MMPTR(h##6) FAKE_MMPTR(h##7) \
	FAKE_MMPTR(h##8) FAKE_MMPTR(h##9) FAKE_MMPTR(h##a) FAKE_MMPTR(h##b) FAKE_MMPTR(h##c) FAKE_MMPTR(h##d) FAKE_MMPTR(h##e) FAKE_MMPTR(h##f)
static void* const fake_mm_recorders[256] = {
	FAKE_MMPTR16(0x0) FAKE_MMPTR16(0x1) FAKE_MMPTR16(0x2) FAKE_MMPTR16(0x3) FAKE_MMPTR16(0x4) FAKE_MMPTR16(0x5) FAKE_MMPTR16(0x6) FAKE_MMPTR16(0x7)
	FAKE_MMPTR16(0x8) FAKE_MMPTR16(0x9) FAKE_MMPTR16(0xa) FAKE_MMPTR16(0xb) FAKE_MMPTR16(0xc) FAKE_MMPTR16(0xd) FAKE_MMPTR16(0xe) FAKE_MMPTR16(0xf)
};
static void* fake_mm_recorder(int slot) { return fake_mm_recorders[slot]; }

// 256 recording attention launchers, with the attention family's signature.
#define FAKE_AT(i) static int fake_at_##i(const void* q, const void* k, const void* v, void* o, int64_t b, int64_t h, int64_t hkv, \
	int64_t sq, int64_t skv, float scale, int32_t causal, void* st) { return fake_record_attention(i, q, k, v, o, b, h, hkv, sq, skv, scale, causal, st); }
#define FAKE_AT16(h) FAKE_AT(h##0) FAKE_AT(h##1) FAKE_AT(h##2) FAKE_AT(h##3) FAKE_AT(h##4) FAKE_AT(h##5) FAKE_AT(h##6) FAKE_AT(h##7) \
	FAKE_AT(h##8) FAKE_AT(h##9) FAKE_AT(h##a) FAKE_AT(h##b) FAKE_AT(h##c) FAKE_AT(h##d) FAKE_AT(h##e) FAKE_AT(h##f)
FAKE_AT16(0x0) FAKE_AT16(0x1) FAKE_AT16(0x2) FAKE_AT16(0x3) FAKE_AT16(0x4) FAKE_AT16(0x5) FAKE_AT16(0x6) FAKE_AT16(0x7)
FAKE_AT16(0x8) FAKE_AT16(0x9) FAKE_AT16(0xa) FAKE_AT16(0xb) FAKE_AT16(0xc) FAKE_AT16(0xd) FAKE_AT16(0xe) FAKE_AT16(0xf)

#define FAKE_ATPTR(i) (void*)fake_at_##i,
#define FAKE_ATPTR16(h) FAKE_ATPTR(h##0) FAKE_ATPTR(h##1) FAKE_ATPTR(h##2) FAKE_ATPTR(h##3) FAKE_ATPTR(h##4) FAKE_ATPTR(h##5) FAKE_ATPTR(h##6) FAKE_ATPTR(h##7) \
	FAKE_ATPTR(h##8) FAKE_ATPTR(h##9) FAKE_ATPTR(h##a) FAKE_ATPTR(h##b) FAKE_ATPTR(h##c) FAKE_ATPTR(h##d) FAKE_ATPTR(h##e) FAKE_ATPTR(h##f)
static void* const fake_at_recorders[256] = {
	FAKE_ATPTR16(0x0) FAKE_ATPTR16(0x1) FAKE_ATPTR16(0x2) FAKE_ATPTR16(0x3) FAKE_ATPTR16(0x4) FAKE_ATPTR16(0x5) FAKE_ATPTR16(0x6) FAKE_ATPTR16(0x7)
	FAKE_ATPTR16(0x8) FAKE_ATPTR16(0x9) FAKE_ATPTR16(0xa) FAKE_ATPTR16(0xb) FAKE_ATPTR16(0xc) FAKE_ATPTR16(0xd) FAKE_ATPTR16(0xe) FAKE_ATPTR16(0xf)
};
static void* fake_at_recorder(int slot) { return fake_at_recorders[slot]; }

// Scalar conversions, bit for bit those of specs/formats/scalar.go.
static float fake_half_to_f32(uint16_t h) {
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
	float f;
	if (exp == 0x1f) {
		bits = sign | 0x7f800000 | (man ? 0x400000 | man << 13 : 0);
	} else if (exp == 0) {
		f = (float)man * (1.0f / 16777216.0f);
		memcpy(&bits, &f, 4);
		bits |= sign;
	} else {
		bits = sign | (exp + 112) << 23 | man << 13;
	}
	memcpy(&f, &bits, 4);
	return f;
}

static uint16_t fake_f32_to_half(float f) {
	uint32_t bits, abs, r, e, m, shift, q, rem, half;
	uint16_t sign;
	memcpy(&bits, &f, 4);
	sign = (uint16_t)(bits >> 16) & 0x8000;
	abs = bits & 0x7fffffff;
	if (abs > 0x7f800000) return sign | 0x7e00;
	if (abs >= 0x477ff000) return sign | 0x7c00;
	if (abs >= 0x38800000) {
		r = abs - 0x38000000;
		r += 0xfff + ((r >> 13) & 1);
		return sign | (uint16_t)(r >> 13);
	}
	if (abs < 0x33000000) return sign;
	e = abs >> 23;
	m = (abs & 0x7fffff) | 0x800000;
	shift = 126 - e;
	q = m >> shift;
	rem = m & ((1u << shift) - 1);
	half = 1u << (shift - 1);
	if (rem > half || (rem == half && (q & 1))) q++;
	return sign | (uint16_t)q;
}

// Q4_0 on the host, with the launchers' contract: 18-byte blocks, an fp16
// scale then 16 bytes of nibbles, element j = (nibble - 8) * d.
static float fake_q4_0(const uint8_t* b, int j) {
	uint16_t d = (uint16_t)(b[0] | b[1] << 8);
	uint8_t q = b[2 + (j & 15)];
	if (j >= 16) q >>= 4;
	return (float)((int)(q & 15) - 8) * fake_half_to_f32(d);
}

static int fake_dequant_f32_q4_0(const void* src, float* dst, int64_t n, void* stream) {
	(void)stream;
	if (src == NULL || dst == NULL || n < 0) return 1;
	for (int64_t i = 0; i < n * 32; i++) dst[i] = fake_q4_0((const uint8_t*)src + (i / 32) * 18, (int)(i % 32));
	return 0;
}

static int fake_dequant_f16_q4_0(const void* src, uint16_t* dst, int64_t n, void* stream) {
	(void)stream;
	if (src == NULL || dst == NULL || n < 0) return 1;
	for (int64_t i = 0; i < n * 32; i++) dst[i] = fake_f32_to_half(fake_q4_0((const uint8_t*)src + (i / 32) * 18, (int)(i % 32)));
	return 0;
}

static void* fake_host_kernel(int i) {
	return i == 0 ? (void*)fake_dequant_f32_q4_0 : (void*)fake_dequant_f16_q4_0;
}

static void fake_set(int abi, int code) { fake_abi_version_value = abi; fake_code = code; fake_calls = 0; }
static void* fake_abi_version_ptr(void) { return (void*)fake_abi_version; }

static uintptr_t fake_alloc(size_t n) { return (uintptr_t)calloc(n ? n : 1, 1); }
static void fake_free(uintptr_t p) { free((void*)p); }
static void fake_upload(uintptr_t dst, const void* src, size_t n) { memcpy((void*)dst, src, n); }
static void fake_download(void* dst, uintptr_t src, size_t n) { memcpy(dst, (const void*)src, n); }
*/
import "C"

import (
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/rocmforge/forge/runtime/device/abi"
)

// hostKernels are the symbols the fake really implements, in the order of
// fake_host_kernel's index.
var hostKernels = []string{"forge_dequant_f32_q4_0", "forge_dequant_f16_q4_0"}

// HostKernels returns the launcher symbols the fake library really
// implements on host memory; every other kernel symbol only records.
func HostKernels() []string { return slices.Clone(hostKernels) }

// Options configure a fake library.
type Options struct {
	ABIVersion int      // what forge_abi_version returns; 0 means abi.ABIVersion
	Missing    []string // symbols the library lacks
	Code       int      // what the recording launchers return
	// Kernels are the launchers the library exports (generated/kernels'
	// table): each symbol resolves to a recorder of its Signature.
	Kernels []abi.KernelInfo
}

// Call is the last call a recording launcher received. A matvec launcher
// (and a matvec_x8 one, xq as X) records w as Src, y as Dst, and X, Rows
// and Cols; NBlocks is 0. The glue's quantize launcher records x as Src,
// xq as Dst and n as NBlocks. A matmul
// launcher records Batch as well. A blocks launcher (dequant) leaves X,
// Rows, Cols and Batch 0.
type Call struct {
	Symbol  string
	Src     abi.DevicePtr
	Dst     abi.DevicePtr
	NBlocks int64
	Stream  abi.Stream
	X       abi.DevicePtr
	Rows    int64
	Cols    int64
	Batch   int64
	// An attention launcher records q as Src, k as X, v
	// as V, o as Dst, and Batch, Heads, HeadsKV, SeqQ, SeqKV, Scale and
	// Causal.
	V       abi.DevicePtr
	Heads   int64
	HeadsKV int64
	SeqQ    int64
	SeqKV   int64
	Scale   float32
	Causal  int32
	// A glue launcher records as the fake's C comment says:
	// rope and the layout launchers the position as Pos, layout's capacity
	// as Cap.
	Pos int64
	Cap int64
	// The fused glue launchers have more pointers than Src, X, V and Dst:
	// add_norm records xq as Aux (a as Src, b as X, w as V, h as Dst);
	// rope_kv kc as Aux and vc as Aux2 (q as Src, k as X, v as V, qh as
	// Dst), and the rest as rope and the layout launchers do, with HeadsKV.
	Aux  abi.DevicePtr
	Aux2 abi.DevicePtr
}

// glueKinds are the recorder tables of the glue signatures.
var glueKinds = map[string]int{"glue_norm": 0, "glue_rope": 1, "glue_binary": 2, "glue_layout": 3, "glue_add_norm": 4, "glue_rope_kv": 5}

// Lib is an open fake library.
type Lib struct {
	missing []string
	sigs    map[string]string         // symbol → its signature
	slots   []string                  // recording slot → symbol
	glue    map[string]unsafe.Pointer // glue recorders handed out, by symbol
	nGlue   [6]int                    // and how many of each shape
	closed  bool
}

// lock serializes the fake libraries: their state is C globals.
var lock sync.Mutex

// Open opens a fake library, waiting for any other to be closed.
func Open(o Options) *Lib {
	lock.Lock()
	v := o.ABIVersion
	if v == 0 {
		v = abi.ABIVersion
	}
	C.fake_set(C.int(v), C.int(o.Code))
	l := &Lib{missing: slices.Clone(o.Missing), sigs: map[string]string{}}
	for _, k := range o.Kernels {
		l.sigs[k.Symbol] = k.Signature
	}
	return l
}

// Close releases the fake library.
func (l *Lib) Close() {
	if !l.closed {
		l.closed = true
		lock.Unlock()
	}
}

// SetCode sets what the recording launchers return from now on.
func (l *Lib) SetCode(code int) { C.fake_set_code(C.int(code)) }

// Resolve is the library's abi.Resolver: forge_abi_version, the real host
// kernels, and a distinct recording launcher for any other symbol.
func (l *Lib) Resolve(symbol string) (unsafe.Pointer, error) {
	if slices.Contains(l.missing, symbol) {
		return nil, fmt.Errorf("abitest: undefined symbol: %s", symbol)
	}
	if symbol == abi.ABIVersionSymbol {
		return C.fake_abi_version_ptr(), nil
	}
	if i := slices.Index(hostKernels, symbol); i >= 0 {
		return C.fake_host_kernel(C.int(i)), nil
	}
	sig := l.sigs[symbol]
	_, glue := glueKinds[sig]
	switch {
	case sig == "":
		return nil, fmt.Errorf("abitest: %s: not among Options.Kernels", symbol)
	case !glue && sig != "blocks" && sig != "matvec" && sig != "matvec_x8" && sig != "matmul" && sig != "attention" && sig != "glue_quantize":
		return nil, fmt.Errorf("abitest: %s: the fake has no recorder of signature %q", symbol, sig)
	}
	slot := slices.Index(l.slots, symbol)
	if slot < 0 {
		if len(l.slots) == 256 {
			return nil, fmt.Errorf("abitest: %s: all 256 recording launchers are in use", symbol)
		}
		slot = len(l.slots)
		l.slots = append(l.slots, symbol)
	}
	switch sig {
	case "matvec", "matvec_x8": // matvec_x8's xq is a const void* where matvec's x is a const float*: one C ABI
		return C.fake_mv_recorder(C.int(slot)), nil
	case "matmul":
		return C.fake_mm_recorder(C.int(slot)), nil
	case "attention":
		return C.fake_at_recorder(C.int(slot)), nil
	}
	if !glue {
		// blocks, and glue_quantize (x, xq, n) of the same shape: x as Src, xq as Dst, n as NBlocks.
		return C.fake_recorder(C.int(slot)), nil
	}
	kind := glueKinds[sig]
	if p, ok := l.glue[symbol]; ok {
		return p, nil
	}
	p := C.fake_glue_recorder(C.int(kind), C.int(l.nGlue[kind]), C.int(slot))
	if p == nil {
		return nil, fmt.Errorf("abitest: %s: all 8 recording launchers of signature %s are in use", symbol, sig)
	}
	l.nGlue[kind]++
	if l.glue == nil {
		l.glue = map[string]unsafe.Pointer{}
	}
	l.glue[symbol] = p
	return p, nil
}

// Calls is the number of calls the recording launchers received.
func (l *Lib) Calls() int64 { return int64(C.fake_call_count()) }

// LastCall is the last call a recording launcher received; false if none.
func (l *Lib) LastCall() (Call, bool) {
	if C.fake_call_count() == 0 {
		return Call{}, false
	}
	c := C.fake_last_call()
	return Call{
		Symbol:  l.slots[int(c.slot)],
		Src:     abi.DevicePtr(c.src),
		Dst:     abi.DevicePtr(c.dst),
		NBlocks: int64(c.n),
		Stream:  abi.Stream(c.stream),
		X:       abi.DevicePtr(c.x),
		Rows:    int64(c.rows),
		Cols:    int64(c.cols),
		Batch:   int64(c.batch),
		V:       abi.DevicePtr(c.v),
		Heads:   int64(c.heads),
		HeadsKV: int64(c.heads_kv),
		SeqQ:    int64(c.seq_q),
		SeqKV:   int64(c.seq_kv),
		Scale:   float32(c.scale),
		Causal:  int32(c.causal),
		Pos:     int64(c.pos),
		Cap:     int64(c.cap),
		Aux:     abi.DevicePtr(c.aux),
		Aux2:    abi.DevicePtr(c.aux2),
	}, true
}

// Alloc returns n zeroed bytes of the fake's "device" memory: the C heap,
// outside Go's, as device memory is.
func Alloc(n int) abi.DevicePtr { return abi.DevicePtr(C.fake_alloc(C.size_t(n))) }

// Free releases memory from Alloc.
func Free(p abi.DevicePtr) { C.fake_free(C.uintptr_t(p)) }

// Upload copies src to the fake device memory at dst.
func Upload(dst abi.DevicePtr, src []byte) {
	if len(src) > 0 {
		C.fake_upload(C.uintptr_t(dst), unsafe.Pointer(&src[0]), C.size_t(len(src)))
	}
}

// Download copies len(dst) elements from the fake device memory at src.
func Download[T ~uint8 | ~uint16 | ~float32](dst []T, src abi.DevicePtr) {
	if len(dst) > 0 {
		var z T
		C.fake_download(unsafe.Pointer(&dst[0]), C.uintptr_t(src), C.size_t(len(dst)*int(unsafe.Sizeof(z))))
	}
}
