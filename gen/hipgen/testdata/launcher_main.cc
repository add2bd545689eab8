// Runs one generated launcher through the cases of launcher_test.go against
// hipstub.cc, printing one line per case:
//   <case> rc=<result> launches=<n> grid=<x,y,z> block=<x,y,z> shared=<bytes> n=<n_blocks arg> args=<ok|bad>
// FORGE_LAUNCHER names the launcher; FORGE_DST its element type.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" int FORGE_LAUNCHER(const void* src, FORGE_DST* dst, int64_t n_blocks, void* stream);

struct dim3 {
	uint32_t x, y, z;
};
extern "C" {
extern int stub_launches;
extern dim3 stub_grid, stub_block;
extern size_t stub_shared;
extern void* stub_stream;
extern int64_t stub_n_blocks;
extern const void* stub_src;
extern const void* stub_dst;
extern int stub_last_error;
extern int stub_launch_error;
}

static void run(const char* name, uintptr_t src, uintptr_t dst, int64_t n, int stale, int launch_error) {
	void* stream = (void*)(uintptr_t)0x5000;
	stub_launches = 0;
	stub_grid = stub_block = dim3{0, 0, 0};
	stub_shared = 0;
	stub_n_blocks = -1;
	stub_src = stub_dst = 0;
	stub_stream = 0;
	stub_last_error = stale;
	stub_launch_error = launch_error;
	int rc = FORGE_LAUNCHER((const void*)src, (FORGE_DST*)dst, n, stream);
	bool args = stub_launches == 0 ||
	            (stub_src == (const void*)src && stub_dst == (const void*)dst && stub_stream == stream);
	printf("%s rc=%d launches=%d grid=%u,%u,%u block=%u,%u,%u shared=%zu n=%lld args=%s\n", name, rc, stub_launches,
	       stub_grid.x, stub_grid.y, stub_grid.z, stub_block.x, stub_block.y, stub_block.z, stub_shared,
	       (long long)stub_n_blocks, args ? "ok" : "bad");
}

int main(int argc, char** argv) {
	// argv: tile (blocks per workgroup tile), max (largest accepted count)
	if (argc != 3) {
		return 2;
	}
	const int64_t tile = strtoll(argv[1], 0, 10), max = strtoll(argv[2], 0, 10);
	const uintptr_t src = 0x10000, dst = 0x20000;
	run("null_src", 0, dst, 1, 0, 0);
	run("null_dst", src, 0, 1, 0, 0);
	run("negative", src, dst, -1, 0, 0);
	run("most_negative", src, dst, INT64_MIN, 0, 0);
	run("too_many", src, dst, max + 1, 0, 0);
	run("src_misaligned", src + 1, dst, 1, 0, 0);
	run("dst_misaligned", src, dst + 1, 1, 0, 0);
	run("zero", src, dst, 0, 0, 0);
	run("zero_null", 0, 0, 0, 0, 0);
	run("one", src, dst, 1, 0, 0);
	run("tile", src, dst, tile, 0, 0);
	run("tile_plus_one", src, dst, tile + 1, 0, 0);
	run("huge", src, dst, (int64_t)1 << 40, 0, 0);
	run("max", src, dst, max, 0, 0);
	run("launch_error", src, dst, 5, 0, 98);
	run("stale_error", src, dst, 5, 7, 0);
	return 0;
}
