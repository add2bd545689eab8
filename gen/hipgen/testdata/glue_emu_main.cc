// glue_emu_main.cc: runs a generated glue launcher (glue.hip, emulated by
// matmul_emu.h) on the host. Usage:
//   ./glue rmsnorm X W Y rows dim eps
//   ./glue rope X seq heads head_dim pos theta neox      (X in place)
//   ./glue silu_mul|add A B OUT n
//   ./glue heads|tokens SRC DST seq heads head_dim pos cap (DST read first: rows outside pos.. stay)
// Inputs are files of float32 (f16 bits for tokens' SRC and heads' DST);
// outputs are written back to their files. Prints the launcher's return
// code and how many launches it made. A file named "null" is a null pointer.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <vector>

thread_local uint32_t forge_emu_tid;
uint32_t forge_emu_block, forge_emu_grid;
pthread_barrier_t forge_emu_barrier;
pthread_barrier_t forge_emu_wave_barrier[32];
float forge_emu_slot[1024];
int forge_emu_islot[1024];
int forge_emu_launches;

extern "C" {
int forge_glue_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t dim, float eps, void* stream);
int forge_glue_rope_f32(float* x, int64_t seq, int64_t heads, int64_t head_dim, int64_t pos, float theta, int32_t neox, void* stream);
int forge_glue_silu_mul_f32(const float* gate, const float* up, float* out, int64_t n, void* stream);
int forge_glue_add_f32(const float* a, const float* b, float* out, int64_t n, void* stream);
int forge_glue_heads_f16(const float* src, uint16_t* dst, int64_t seq, int64_t heads, int64_t head_dim, int64_t pos, int64_t cap, void* stream);
int forge_glue_tokens_f32(const uint16_t* src, float* dst, int64_t seq, int64_t heads, int64_t head_dim, int64_t pos, int64_t cap, void* stream);
}

struct buf {
	const char* path;
	std::vector<char> b;
	char* p() { return strcmp(path, "null") ? b.data() : nullptr; }
};

static buf slurp(const char* path) {
	buf r{path, {}};
	if (!strcmp(path, "null")) return r;
	FILE* f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) r.b.insert(r.b.end(), tmp, tmp + n);
	fclose(f);
	r.b.resize(r.b.size() + 16); // spare bytes: a refused call may name more than the file holds
	return r;
}

static void spill(buf& r) {
	if (!strcmp(r.path, "null")) return;
	FILE* f = fopen(r.path, "wb");
	fwrite(r.b.data(), 1, r.b.size() - 16, f);
	fclose(f);
}

int main(int argc, char** argv) {
	if (argc < 2) return 2;
	const char* op = argv[1];
	int rc = -1;
	if (!strcmp(op, "rmsnorm") && argc == 8) {
		buf x = slurp(argv[2]), w = slurp(argv[3]), y = slurp(argv[4]);
		rc = forge_glue_rmsnorm_f32((float*)x.p(), (float*)w.p(), (float*)y.p(), atoll(argv[5]), atoll(argv[6]), (float)atof(argv[7]), nullptr);
		spill(y);
	} else if (!strcmp(op, "rope") && argc == 9) {
		buf x = slurp(argv[2]);
		rc = forge_glue_rope_f32((float*)x.p(), atoll(argv[3]), atoll(argv[4]), atoll(argv[5]), atoll(argv[6]), (float)atof(argv[7]), atoi(argv[8]), nullptr);
		spill(x);
	} else if ((!strcmp(op, "silu_mul") || !strcmp(op, "add")) && argc == 6) {
		buf a = slurp(argv[2]), b = slurp(argv[3]), o = slurp(argv[4]);
		const int64_t n = atoll(argv[5]);
		rc = !strcmp(op, "add") ? forge_glue_add_f32((float*)a.p(), (float*)b.p(), (float*)o.p(), n, nullptr)
		                        : forge_glue_silu_mul_f32((float*)a.p(), (float*)b.p(), (float*)o.p(), n, nullptr);
		spill(o);
	} else if ((!strcmp(op, "heads") || !strcmp(op, "tokens")) && argc == 9) {
		buf s = slurp(argv[2]), d = slurp(argv[3]);
		const int64_t seq = atoll(argv[4]), heads = atoll(argv[5]), hd = atoll(argv[6]), pos = atoll(argv[7]), cap = atoll(argv[8]);
		rc = !strcmp(op, "heads") ? forge_glue_heads_f16((float*)s.p(), (uint16_t*)d.p(), seq, heads, hd, pos, cap, nullptr)
		                          : forge_glue_tokens_f32((uint16_t*)s.p(), (float*)d.p(), seq, heads, hd, pos, cap, nullptr);
		spill(d);
	} else {
		fprintf(stderr, "bad usage\n");
		return 2;
	}
	printf("rc=%d launches=%d\n", rc, forge_emu_launches);
	return 0;
}
