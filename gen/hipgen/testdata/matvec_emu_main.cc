// matvec_emu_main.cc: runs a generated matvec launcher (emulated by emu.h)
// on the host. Usage:
//   ./mv f32 LAUNCHER W X Y rows cols
//   ./mv x8 LAUNCHER W X XQ Y offset rows cols
// reads W's bytes and X's floats from files and writes Y's floats to Y.
// x8 first quantizes X with forge_glue_quantize_x8 into a buffer offset
// bytes past a 16-byte boundary (0, or 4 for the launcher's unaligned
// path), writes those X8 bytes to XQ, then runs LAUNCHER on them. Prints
// the launchers' return code (the first that is not FORGE_OK) and how many
// launches they made.
//
// So that a kernel that reads or writes outside its buffers fails instead
// of reading zeros: W, X and XQ end less than 16 bytes before an
// inaccessible page (a read a row or block past the end faults), and y
// starts as NaNs followed by 16 NaN canaries, which must survive.
#include <math.h>

#include "emu_main.h"

extern "C" int forge_glue_quantize_x8(const float* x, void* xq, int64_t n, void* stream);

// guarded returns n bytes, 16-byte aligned plus offset (< 16), that end
// less than 16 bytes before a PROT_NONE page; a copy of src where src is
// not null.
static char* guarded(size_t n, size_t offset, const void* src) {
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (n + offset + 15 + page - 1) / page * page;
	char* base = (char*)mmap(nullptr, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED || mprotect(base + span, page, PROT_NONE) != 0) {
		fprintf(stderr, "no memory for a guarded buffer\n");
		exit(2);
	}
	char* p = (char*)(((uintptr_t)(base + span) - n - offset) & ~(uintptr_t)15) + offset;
	if (src) {
		memcpy(p, src, n);
	}
	return p;
}

typedef int matvec_fn(const void* w, const void* x, float* y, int64_t rows, int64_t cols, void* stream);

int main(int argc, char** argv) {
	const bool x8 = argc == 10 && !strcmp(argv[1], "x8");
	if (!x8 && !(argc == 8 && !strcmp(argv[1], "f32"))) {
		fprintf(stderr, "usage: %s f32 LAUNCHER W X Y rows cols | x8 LAUNCHER W X XQ Y offset rows cols\n", argv[0]);
		return 2;
	}
	matvec_fn* launcher = emu_launcher<matvec_fn>(argv[2]);
	emu_buf wf = emu_read(argv[3]), xf = emu_read(argv[4]);
	const char* w = guarded(wf.size, 0, wf.p);
	const char* x = guarded(xf.size, 0, xf.p);
	const char* yp = argv[x8 ? 6 : 5];
	const int64_t rows = atoll(argv[x8 ? 8 : 6]), cols = atoll(argv[x8 ? 9 : 7]);
	const int64_t canaries = 16;
	std::vector<float> y(rows + canaries, NAN);
	int rc;
	if (x8) {
		const int64_t offset = atoll(argv[7]);
		const size_t xq_bytes = cols + cols / 8 + cols / 4; // formats.X8Bytes
		char* xq = guarded(xq_bytes, offset, nullptr);
		rc = forge_glue_quantize_x8((const float*)x, xq, cols, nullptr);
		emu_write(argv[5], xq, xq_bytes);
		if (rc == 0) {
			rc = launcher(w, xq, y.data(), rows, cols, nullptr);
		}
	} else {
		rc = launcher(w, x, y.data(), rows, cols, nullptr);
	}
	for (int64_t i = rows; i < rows + canaries; ++i) {
		if (!isnan(y[i])) {
			fprintf(stderr, "y[%lld] (past the %lld rows) was written\n", (long long)i, (long long)rows);
			return 3;
		}
	}
	emu_write(yp, y.data(), rows * sizeof(float));
	return emu_report(rc);
}
