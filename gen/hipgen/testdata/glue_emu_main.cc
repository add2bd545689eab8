// glue_emu_main.cc: runs a generated glue launcher (glue.hip, emulated by
// emu.h) on the host. Usage:
//   ./glue rmsnorm X W Y rows dim eps
//   ./glue rmsnorm_x8 X W XQ rows dim eps                (XQ: the X8 bytes)
//   ./glue rope X seq heads head_dim pos theta neox      (X in place)
//   ./glue silu_mul|add A B OUT n
//   ./glue heads|tokens SRC DST seq heads head_dim pos cap (DST read first: rows outside pos.. stay)
//   ./glue silu_mul_x8 A B XQ n
//   ./glue tokens_x8 SRC XQ seq heads head_dim pos cap
//   ./glue add_rmsnorm_x8 A B W H XQ rows dim eps           (H the same name as A: h is a)
//   ./glue rope_kv Q K V QH KC VC seq heads heads_kv head_dim pos cap theta neox
// Inputs are files of float32 (f16 bits for tokens' SRC and heads' DST);
// outputs are written back to their files. Prints the launcher's return
// code and how many launches it made. A file named "null" is a null pointer.
#include "emu_main.h"

extern "C" {
int forge_glue_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t dim, float eps, void* stream);
int forge_glue_rmsnorm_x8(const float* x, const float* w, void* xq, int64_t rows, int64_t dim, float eps, void* stream);
int forge_glue_rope_f32(float* x, int64_t seq, int64_t heads, int64_t head_dim, int64_t pos, float theta, int32_t neox, void* stream);
int forge_glue_silu_mul_f32(const float* gate, const float* up, float* out, int64_t n, void* stream);
int forge_glue_add_f32(const float* a, const float* b, float* out, int64_t n, void* stream);
int forge_glue_heads_f16(const float* src, uint16_t* dst, int64_t seq, int64_t heads, int64_t head_dim, int64_t pos, int64_t cap, void* stream);
int forge_glue_tokens_f32(const uint16_t* src, float* dst, int64_t seq, int64_t heads, int64_t head_dim, int64_t pos, int64_t cap, void* stream);
int forge_glue_silu_mul_x8(const float* gate, const float* up, void* xq, int64_t n, void* stream);
int forge_glue_tokens_x8(const uint16_t* src, void* xq, int64_t seq, int64_t heads, int64_t head_dim, int64_t pos, int64_t cap, void* stream);
int forge_glue_add_rmsnorm_x8(const float* a, const float* b, const float* w, float* h, void* xq, int64_t rows, int64_t dim, float eps, void* stream);
int forge_glue_rope_kv(const float* q, const float* k, const float* v, uint16_t* qh, uint16_t* kc, uint16_t* vc, int64_t seq, int64_t heads,
	int64_t heads_kv, int64_t head_dim, int64_t pos, int64_t cap, float theta, int32_t neox, void* stream);
}

int main(int argc, char** argv) {
	if (argc < 2) {
		fprintf(stderr, "bad usage\n");
		return 2;
	}
	const char* op = argv[1];
	int rc = -1;
	if (!strcmp(op, "rmsnorm") && argc == 8) {
		emu_buf x = emu_read(argv[2]), w = emu_read(argv[3]), y = emu_read(argv[4]);
		rc = forge_glue_rmsnorm_f32((float*)x.p, (float*)w.p, (float*)y.p, atoll(argv[5]), atoll(argv[6]), (float)atof(argv[7]), nullptr);
		emu_write(argv[4], y.p, y.size);
	} else if (!strcmp(op, "rmsnorm_x8") && argc == 8) {
		emu_buf x = emu_read(argv[2]), w = emu_read(argv[3]), y = emu_read(argv[4]);
		rc = forge_glue_rmsnorm_x8((float*)x.p, (float*)w.p, y.p, atoll(argv[5]), atoll(argv[6]), (float)atof(argv[7]), nullptr);
		emu_write(argv[4], y.p, y.size);
	} else if (!strcmp(op, "rope") && argc == 9) {
		emu_buf x = emu_read(argv[2]);
		rc = forge_glue_rope_f32((float*)x.p, atoll(argv[3]), atoll(argv[4]), atoll(argv[5]), atoll(argv[6]), (float)atof(argv[7]), atoi(argv[8]), nullptr);
		emu_write(argv[2], x.p, x.size);
	} else if ((!strcmp(op, "silu_mul") || !strcmp(op, "add")) && argc == 6) {
		emu_buf a = emu_read(argv[2]), b = emu_read(argv[3]), o = emu_read(argv[4]);
		const int64_t n = atoll(argv[5]);
		rc = !strcmp(op, "add") ? forge_glue_add_f32((float*)a.p, (float*)b.p, (float*)o.p, n, nullptr)
		                        : forge_glue_silu_mul_f32((float*)a.p, (float*)b.p, (float*)o.p, n, nullptr);
		emu_write(argv[4], o.p, o.size);
	} else if ((!strcmp(op, "heads") || !strcmp(op, "tokens")) && argc == 9) {
		emu_buf s = emu_read(argv[2]), d = emu_read(argv[3]);
		const int64_t seq = atoll(argv[4]), heads = atoll(argv[5]), hd = atoll(argv[6]), pos = atoll(argv[7]), cap = atoll(argv[8]);
		rc = !strcmp(op, "heads") ? forge_glue_heads_f16((float*)s.p, (uint16_t*)d.p, seq, heads, hd, pos, cap, nullptr)
		                          : forge_glue_tokens_f32((uint16_t*)s.p, (float*)d.p, seq, heads, hd, pos, cap, nullptr);
		emu_write(argv[3], d.p, d.size);
	} else if (!strcmp(op, "silu_mul_x8") && argc == 6) {
		emu_buf a = emu_read(argv[2]), b = emu_read(argv[3]), o = emu_read(argv[4]);
		rc = forge_glue_silu_mul_x8((float*)a.p, (float*)b.p, o.p, atoll(argv[5]), nullptr);
		emu_write(argv[4], o.p, o.size);
	} else if (!strcmp(op, "tokens_x8") && argc == 9) {
		emu_buf s = emu_read(argv[2]), d = emu_read(argv[3]);
		rc = forge_glue_tokens_x8((uint16_t*)s.p, d.p, atoll(argv[4]), atoll(argv[5]), atoll(argv[6]), atoll(argv[7]), atoll(argv[8]), nullptr);
		emu_write(argv[3], d.p, d.size);
	} else if (!strcmp(op, "add_rmsnorm_x8") && argc == 10) {
		emu_buf a = emu_read(argv[2]), b = emu_read(argv[3]), w = emu_read(argv[4]), h = emu_read(argv[5]), q = emu_read(argv[6]);
		float* hp = strcmp(argv[5], argv[2]) ? (float*)h.p : (float*)a.p; // H named as A: h == a, which it refuses
		rc = forge_glue_add_rmsnorm_x8((float*)a.p, (float*)b.p, (float*)w.p, hp, q.p, atoll(argv[7]), atoll(argv[8]), (float)atof(argv[9]), nullptr);
		emu_write(argv[5], h.p, h.size);
		emu_write(argv[6], q.p, q.size);
	} else if (!strcmp(op, "rope_kv") && argc == 16) {
		emu_buf q = emu_read(argv[2]), k = emu_read(argv[3]), v = emu_read(argv[4]);
		emu_buf qh = emu_read(argv[5]), kc = emu_read(argv[6]), vc = emu_read(argv[7]);
		rc = forge_glue_rope_kv((float*)q.p, (float*)k.p, (float*)v.p, (uint16_t*)qh.p, (uint16_t*)kc.p, (uint16_t*)vc.p, atoll(argv[8]), atoll(argv[9]),
			atoll(argv[10]), atoll(argv[11]), atoll(argv[12]), atoll(argv[13]), (float)atof(argv[14]), atoi(argv[15]), nullptr);
		emu_write(argv[2], q.p, q.size); // written back: the test checks the inputs are only read
		emu_write(argv[3], k.p, k.size);
		emu_write(argv[4], v.p, v.size);
		emu_write(argv[5], qh.p, qh.size);
		emu_write(argv[6], kc.p, kc.size);
		emu_write(argv[7], vc.p, vc.size);
	} else {
		fprintf(stderr, "bad usage\n");
		return 2;
	}
	return emu_report(rc);
}
