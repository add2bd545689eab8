// attention_emu_main.cc: runs a generated attention launcher (the generic
// kernel, or the wmma path with FORGE_EMU_WMMA, emulated by emu.h) on the
// host. Usage:
//   ./attn LAUNCHER head_dim elem_bytes Q K V O batch heads heads_kv seq_q seq_kv scale causal [MODE]
// reads q's, k's and v's bytes from files (f16 bits or f32, as the launcher
// takes), writes o's bytes to O, and prints the launcher's return code and
// how many launches it made. MODE (default "ok") passes a bad pointer
// instead: null_q, null_k, null_o, misaligned_v.
#include "emu_main.h"

typedef int attention_fn(const void* q, const void* k, const void* v, void* o, int64_t batch, int64_t heads,
	int64_t heads_kv, int64_t seq_q, int64_t seq_kv, float scale, int32_t causal, void* stream);

int main(int argc, char** argv) {
	if (argc != 15 && argc != 16) {
		fprintf(stderr, "usage: %s LAUNCHER head_dim elem_bytes Q K V O batch heads heads_kv seq_q seq_kv scale causal [MODE]\n", argv[0]);
		return 2;
	}
	attention_fn* launcher = emu_launcher<attention_fn>(argv[1]);
	const int64_t head_dim = atoll(argv[2]), elem = atoll(argv[3]);
	emu_buf qb = emu_read(argv[4]), kb = emu_read(argv[5]), vb = emu_read(argv[6]);
	const int64_t batch = atoll(argv[8]), heads = atoll(argv[9]), heads_kv = atoll(argv[10]);
	const int64_t seq_q = atoll(argv[11]), seq_kv = atoll(argv[12]);
	const float scale = (float)atof(argv[13]);
	const int32_t causal = atoi(argv[14]);
	const char* mode = argc == 16 ? argv[15] : "ok";
	const size_t obytes = batch > 0 && heads > 0 && seq_q > 0 ? (size_t)(batch * heads * seq_q * head_dim * elem) : 0;
	emu_buf ob = emu_zeros(obytes);
	char *q = qb.p, *k = kb.p, *v = vb.p, *o = ob.p;
	if (!strcmp(mode, "null_q")) q = nullptr;
	if (!strcmp(mode, "null_k")) k = nullptr;
	if (!strcmp(mode, "null_o")) o = nullptr;
	if (!strcmp(mode, "misaligned_v")) v += 2;
	int rc = launcher(q, k, v, o, batch, heads, heads_kv, seq_q, seq_kv, scale, causal, nullptr);
	emu_write(argv[7], o, obytes);
	return emu_report(rc);
}
