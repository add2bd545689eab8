// decode_bench times one attention launcher of a built kernel library on
// decode shapes (batch 1), K and V rotated over copies totalling at least
// 256 MiB (so they come from DRAM), 50 calls back to back per sample, median
// of 7 samples; then the same 50 calls captured in a CUDA graph (the
// launchers' stream-ordered scratch is capturable) and replayed, which is
// the GPU's time without the host's launch gap. GB/s counts K and V once;
// the copy line is cudaMemcpy device to device of 256 MiB. scripts/attn/
// decode-sweep.sh builds it and the variant libraries (docs/PERFORMANCE.md,
// "Decode attention").
//
//   decode_bench LIB SYMBOL ELEM_BYTES HEAD_DIM HEADS HEADS_KV SEQ_Q SEQ_KV...
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
typedef int fn_t(const void*, const void*, const void*, void*, int64_t, int64_t, int64_t, int64_t, int64_t, float, int32_t, cudaStream_t);
int main(int argc, char** argv) {
	if (argc < 9) { fprintf(stderr, "usage: lib symbol elem D heads heads_kv seq_q seq_kv...\n"); return 2; }
	void* h = dlopen(argv[1], RTLD_NOW);
	if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
	fn_t* f = (fn_t*)dlsym(h, argv[2]);
	if (!f) { fprintf(stderr, "no %s\n", argv[2]); return 1; }
	const int elem = atoi(argv[3]), D = atoi(argv[4]);
	const int64_t H = atoll(argv[5]), HK = atoll(argv[6]), SQ = atoll(argv[7]);
	cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
	// copy roofline: 256 MiB device to device
	{
		size_t n = 256u << 20; void *a, *b; cudaMalloc(&a, n); cudaMalloc(&b, n);
		std::vector<float> ts;
		for (int s = 0; s < 7; ++s) { cudaEventRecord(e0); for (int i = 0; i < 5; ++i) cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms / 5); }
		std::sort(ts.begin(), ts.end());
		printf("copy %.0f GB/s\n", 2.0 * n / (ts[3] * 1e-3) / 1e9);
		cudaFree(a); cudaFree(b);
	}
	for (int ai = 8; ai < argc; ++ai) {
		const int64_t SKV = atoll(argv[ai]);
		const size_t kvb = (size_t)HK * SKV * D * elem, qb = (size_t)H * SQ * D * elem;
		int copies = (int)std::min<size_t>(64, (256u << 20) / (2 * kvb) + 1);
		std::vector<void*> ks(copies), vs(copies);
		void *q, *o; cudaMalloc(&q, qb); cudaMalloc(&o, qb); cudaMemset(q, 0x31, qb);
		for (int c = 0; c < copies; ++c) { cudaMalloc(&ks[c], kvb); cudaMalloc(&vs[c], kvb); cudaMemset(ks[c], 0x32, kvb); cudaMemset(vs[c], 0x33, kvb); }
		int it = 0, rc = 0;
		for (int i = 0; i < 5; ++i, ++it) rc |= f(q, ks[it % copies], vs[it % copies], o, 1, H, HK, SQ, SKV, 0.088f, 1, 0);
		std::vector<float> ts;
		for (int s = 0; s < 7; ++s) {
			cudaEventRecord(e0);
			for (int i = 0; i < 50; ++i, ++it) rc |= f(q, ks[it % copies], vs[it % copies], o, 1, H, HK, SQ, SKV, 0.088f, 1, 0);
			cudaEventRecord(e1); cudaEventSynchronize(e1);
			float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms / 50);
		}
		std::sort(ts.begin(), ts.end());
		const double us = ts[3] * 1e3;
		// The same 50 calls captured in a graph and replayed: GPU time without the host's.
		cudaStream_t st; cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
		cudaGraph_t g; cudaGraphExec_t ge;
		cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal);
		for (int i = 0; i < 50; ++i, ++it) rc |= f(q, ks[it % copies], vs[it % copies], o, 1, H, HK, SQ, SKV, 0.088f, 1, st);
		cudaError_t ce = cudaStreamEndCapture(st, &g);
		double gus = -1;
		if (ce == cudaSuccess && cudaGraphInstantiate(&ge, g, 0) == cudaSuccess) {
			std::vector<float> gt;
			cudaGraphLaunch(ge, st); cudaStreamSynchronize(st);
			for (int s = 0; s < 7; ++s) {
				cudaEventRecord(e0, st); cudaGraphLaunch(ge, st); cudaEventRecord(e1, st); cudaEventSynchronize(e1);
				float ms; cudaEventElapsedTime(&ms, e0, e1); gt.push_back(ms / 50);
			}
			std::sort(gt.begin(), gt.end());
			gus = gt[3] * 1e3;
		} else {
			printf("graph capture failed: %s\n", cudaGetErrorString(ce));
		}
		printf("%s sq%ld skv%ld: %.2f us  %.0f GB/s; graph %.2f us %.0f GB/s (rc %d, %d copies, %s)\n", argv[2], (long)SQ, (long)SKV, us, 2.0 * kvb / (us * 1e-6) / 1e9, gus, 2.0 * kvb / (gus * 1e-6) / 1e9, rc, copies, cudaGetErrorString(cudaGetLastError()));
		for (int c = 0; c < copies; ++c) { cudaFree(ks[c]); cudaFree(vs[c]); }
		cudaFree(q); cudaFree(o);
	}
	return 0;
}
