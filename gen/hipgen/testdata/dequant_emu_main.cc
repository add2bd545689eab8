// dequant_emu_main.cc: runs a generated dequant launcher (emulated by
// emu.h) on the host. Usage:
//   ./dq LAUNCHER SRC DST n_blocks n_elems elem_bytes dst_offset
// reads the blocks' bytes from SRC into a 16-byte aligned buffer that ends
// less than 16 bytes before an inaccessible page (a read past the last
// block faults), runs LAUNCHER on n_blocks blocks into a buffer dst_offset
// bytes past a 16-byte boundary (0: the 16-byte store path; otherwise the
// element stores), and writes the n_elems·elem_bytes output bytes to DST.
// The 64 bytes after the output start as a canary pattern, which must
// survive. Prints the launcher's return code and how many launches it made.
#include "emu_main.h"

typedef int dequant_fn(const void* src, void* dst, int64_t n_blocks, void* stream);

int main(int argc, char** argv) {
	if (argc != 8) {
		fprintf(stderr, "usage: %s LAUNCHER SRC DST n_blocks n_elems elem_bytes dst_offset\n", argv[0]);
		return 2;
	}
	dequant_fn* launcher = emu_launcher<dequant_fn>(argv[1]);
	emu_buf sf = emu_read(argv[2]);
	const int64_t n_blocks = atoll(argv[4]), n_elems = atoll(argv[5]), elem_bytes = atoll(argv[6]), dst_offset = atoll(argv[7]);
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (sf.size + 15 + page - 1) / page * page;
	char* base = (char*)mmap(nullptr, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED || mprotect(base + span, page, PROT_NONE) != 0) {
		fprintf(stderr, "no memory for a guarded buffer\n");
		return 2;
	}
	char* src = (char*)(((uintptr_t)(base + span) - sf.size) & ~(uintptr_t)15);
	memcpy(src, sf.p, sf.size);
	const size_t out_bytes = (size_t)(n_elems * elem_bytes), canary = 64;
	emu_buf out = emu_zeros(out_bytes + canary + 16);
	char* dst = out.p + dst_offset;
	memset(dst, 0xa5, out_bytes + canary);
	const int rc = launcher(src, dst, n_blocks, nullptr);
	for (size_t i = out_bytes; i < out_bytes + canary; ++i) {
		if ((unsigned char)dst[i] != 0xa5) {
			fprintf(stderr, "byte %zu past the %zu output bytes was written\n", i - out_bytes, out_bytes);
			return 3;
		}
	}
	emu_write(argv[3], dst, out_bytes);
	return emu_report(rc);
}
