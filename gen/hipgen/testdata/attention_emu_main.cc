// attention_emu_main.cc: runs a generated attention launcher (the generic
// kernel, or the wmma path with FORGE_EMU_WMMA, emulated by matmul_emu.h)
// on the host. Usage:
//   ./attn Q K V O batch heads heads_kv seq_q seq_kv scale causal [MODE]
// reads q's, k's and v's bytes from files (f16 bits or f32, as the launcher
// FORGE_LAUNCHER takes), writes o's bytes to O, and prints the launcher's
// return code and how many launches it made. MODE (default "ok") passes a
// bad pointer instead: null_q, null_k, null_o, misaligned_v.
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

extern "C" int FORGE_LAUNCHER(const void* q, const void* k, const void* v, void* o, int64_t batch, int64_t heads,
	int64_t heads_kv, int64_t seq_q, int64_t seq_kv, float scale, int32_t causal, void* stream);

static std::vector<char> slurp(const char* path) {
	FILE* f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	std::vector<char> b;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		b.insert(b.end(), buf, buf + n);
	}
	fclose(f);
	return b;
}

// aligned copies a file's bytes to a 16-byte aligned buffer (with 16 spare bytes).
static char* aligned(std::vector<char>& store, const std::vector<char>& src) {
	store.assign(src.size() + 48, 0);
	char* p = store.data() + (16 - (uintptr_t)store.data() % 16) % 16;
	memcpy(p, src.data(), src.size());
	return p;
}

int main(int argc, char** argv) {
	if (argc != 12 && argc != 13) {
		fprintf(stderr, "usage: %s Q K V O batch heads heads_kv seq_q seq_kv scale causal [MODE]\n", argv[0]);
		return 2;
	}
	std::vector<char> qs, ks, vs, os;
	char* q = aligned(qs, slurp(argv[1]));
	char* k = aligned(ks, slurp(argv[2]));
	char* v = aligned(vs, slurp(argv[3]));
	const int64_t batch = atoll(argv[5]), heads = atoll(argv[6]), heads_kv = atoll(argv[7]);
	const int64_t seq_q = atoll(argv[8]), seq_kv = atoll(argv[9]);
	const float scale = (float)atof(argv[10]);
	const int32_t causal = atoi(argv[11]);
	const char* mode = argc == 13 ? argv[12] : "ok";
	const size_t obytes = batch > 0 && heads > 0 && seq_q > 0 ? (size_t)(batch * heads * seq_q * FORGE_HEAD_DIM * FORGE_ELEM) : 0;
	std::vector<char> ob(obytes, 0);
	char* o = aligned(os, ob);
	if (!strcmp(mode, "null_q")) q = nullptr;
	if (!strcmp(mode, "null_k")) k = nullptr;
	if (!strcmp(mode, "null_o")) o = nullptr;
	if (!strcmp(mode, "misaligned_v")) v += 2;
	int rc = FORGE_LAUNCHER(q, k, v, o, batch, heads, heads_kv, seq_q, seq_kv, scale, causal, nullptr);
	FILE* f = fopen(argv[4], "wb");
	if (o) fwrite(o, 1, obytes, f);
	fclose(f);
	printf("rc=%d launches=%d\n", rc, forge_emu_launches);
	return 0;
}
