// matmul_emu_main.cc: runs a generated matmul launcher (the generic kernel,
// emulated by matmul_emu.h) on the host. Usage:
//   ./mm W X Y rows cols batch
// reads W's bytes and X's floats from files, writes Y's floats to Y, and
// prints the launcher's return code and how many launches it made.
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

extern "C" int FORGE_LAUNCHER(const void* w, const float* x, float* y, int64_t rows, int64_t cols, int64_t batch, void* stream);

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

int main(int argc, char** argv) {
	if (argc != 7) {
		fprintf(stderr, "usage: %s W X Y rows cols batch\n", argv[0]);
		return 2;
	}
	std::vector<char> w = slurp(argv[1]), xb = slurp(argv[2]);
	const int64_t rows = atoll(argv[4]), cols = atoll(argv[5]), batch = atoll(argv[6]);
	std::vector<float> x(xb.size() / 4 + 1), y(rows * batch + 1);
	memcpy(x.data(), xb.data(), xb.size());
	std::vector<char> wa(w.size() + 16); // 16-byte aligned copy
	char* wp = wa.data() + (16 - (uintptr_t)wa.data() % 16) % 16;
	memcpy(wp, w.data(), w.size());
	int rc = FORGE_LAUNCHER(wp, x.data(), y.data(), rows, cols, batch, nullptr);
	FILE* f = fopen(argv[3], "wb");
	fwrite(y.data(), 4, rows * batch, f);
	fclose(f);
	printf("rc=%d launches=%d\n", rc, forge_emu_launches);
	return 0;
}
