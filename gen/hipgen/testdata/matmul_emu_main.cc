// matmul_emu_main.cc: runs a generated matmul launcher (emulated by emu.h)
// on the host. Usage:
//   ./mm LAUNCHER W X Y rows cols batch
// reads W's bytes and X's floats from files, writes Y's floats to Y, and
// prints the launcher's return code and how many launches it made.
#include "emu_main.h"

typedef int matmul_fn(const void* w, const float* x, float* y, int64_t rows, int64_t cols, int64_t batch, void* stream);

int main(int argc, char** argv) {
	if (argc != 8) {
		fprintf(stderr, "usage: %s LAUNCHER W X Y rows cols batch\n", argv[0]);
		return 2;
	}
	matmul_fn* launcher = emu_launcher<matmul_fn>(argv[1]);
	emu_buf w = emu_read(argv[2]), x = emu_read(argv[3]);
	const int64_t rows = atoll(argv[5]), cols = atoll(argv[6]), batch = atoll(argv[7]);
	emu_buf y = emu_zeros(rows * batch * sizeof(float));
	int rc = launcher(w.p, (const float*)x.p, (float*)y.p, rows, cols, batch, nullptr);
	emu_write(argv[4], y.p, y.size);
	return emu_report(rc);
}
