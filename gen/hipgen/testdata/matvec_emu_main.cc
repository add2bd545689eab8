// matvec_emu_main.cc: runs a generated matvec launcher (emulated by emu.h)
// on the host. Usage:
//   ./mv f32 LAUNCHER W X Y rows cols
//   ./mv x8 LAUNCHER W X XQ Y offset rows cols
// reads W's bytes and X's floats from files and writes Y's floats to Y,
// which starts as NaNs, so that a row the kernel skips shows. x8 first
// quantizes X with forge_glue_quantize_x8 into a buffer offset bytes past a
// 16-byte boundary (0, or 4 for the launcher's unaligned path), writes
// those X8 bytes to XQ, then runs LAUNCHER on them. Prints the launchers'
// return code (the first that is not FORGE_OK) and how many launches they
// made.
#include <math.h>

#include "emu_main.h"

extern "C" int forge_glue_quantize_x8(const float* x, void* xq, int64_t n, void* stream);

typedef int matvec_fn(const void* w, const void* x, float* y, int64_t rows, int64_t cols, void* stream);

int main(int argc, char** argv) {
	const bool x8 = argc == 10 && !strcmp(argv[1], "x8");
	if (!x8 && !(argc == 8 && !strcmp(argv[1], "f32"))) {
		fprintf(stderr, "usage: %s f32 LAUNCHER W X Y rows cols | x8 LAUNCHER W X XQ Y offset rows cols\n", argv[0]);
		return 2;
	}
	matvec_fn* launcher = emu_launcher<matvec_fn>(argv[2]);
	emu_buf w = emu_read(argv[3]), x = emu_read(argv[4]);
	const char* yp = argv[x8 ? 6 : 5];
	const int64_t rows = atoll(argv[x8 ? 8 : 6]), cols = atoll(argv[x8 ? 9 : 7]);
	emu_buf y = emu_zeros(rows * sizeof(float));
	for (int64_t r = 0; r < rows; ++r) {
		((float*)y.p)[r] = NAN;
	}
	int rc;
	if (x8) {
		const int64_t offset = atoll(argv[7]);
		const size_t xq_bytes = cols + cols / 8 + cols / 4; // formats.X8Bytes
		emu_buf xq = emu_zeros(xq_bytes + offset);
		rc = forge_glue_quantize_x8((const float*)x.p, xq.p + offset, cols, nullptr);
		emu_write(argv[5], xq.p + offset, xq_bytes);
		if (rc == 0) {
			rc = launcher(w.p, xq.p + offset, (float*)y.p, rows, cols, nullptr);
		}
	} else {
		rc = launcher(w.p, x.p, (float*)y.p, rows, cols, nullptr);
	}
	emu_write(yp, y.p, y.size);
	return emu_report(rc);
}
