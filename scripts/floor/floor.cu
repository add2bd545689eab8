// The floor of a rotated matvec at each format's bytes (docs/PERFORMANCE.md,
// "The floor"): the time of a pure read of W's S bytes (W rotated past the
// L2 over >= 100 MiB of copies, 20 launches back to back per sample, median
// of 10) as a plain launch, as a dependent launch, and after forge's own x
// quantization (forge_glue_quantize_x8 of 14336 elements, a dependent
// launch): the least a quantize + matvec pair can cost. Also the cost of a
// launch itself. Percentages count W plus x (f32) and y as the matvec
// benchmark does, against cudaMemcpy device to device of 256 MiB.
// Arguments: NAME:BYTES ... (scripts/matvec-floor.sh passes every format's).
#include "../../generated/hip/sm_90/glue.hip"
#include <cstdio>
#include <vector>
#include <algorithm>
#include <chrono>
#include <string>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)

template <int U, bool PDL>
__global__ void __launch_bounds__(256) rd(const uint4* __restrict__ p, long n16, unsigned* sink) {
  unsigned acc = 0;
  const long stride = (long)gridDim.x * 256 * U;
  for (long i = (long)blockIdx.x * 256 * U + threadIdx.x; i < n16; i += stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = i + u * 256 < n16 ? __ldcs(p + i + u * 256) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (PDL) forge_dependency_wait();
  if (acc == 0x12345678u) *sink = acc;
}
__global__ void cpy(const uint4* __restrict__ a, uint4* __restrict__ b, long n) {
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) b[i] = a[i];
}
__global__ void empty_k() {}
__global__ void empty_w() { forge_dependency_wait(); }

int main(int argc, char** argv) {
  const int cols = 14336;
  float* dx; uint8_t* dxq; unsigned* sink;
  CK(cudaMalloc(&dx, cols * 4)); CK(cudaMemset(dx, 0, cols * 4));
  CK(cudaMalloc(&dxq, cols * 2)); CK(cudaMalloc(&sink, 4));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  double memcpy_gbs = 0, copy_gbs = 0;
  {
    const long n = (256l << 20) / 16; uint4 *s, *d; CK(cudaMalloc(&s, n * 16)); CK(cudaMalloc(&d, n * 16)); CK(cudaMemset(s, 1, n * 16));
    for (int rep = 0; rep < 5; ++rep) {
      float ms;
      cudaEventRecord(a); for (int i = 0; i < 10; ++i) cpy<<<(unsigned)(n / 256), 256>>>(s, d, n); cudaEventRecord(b); CK(cudaEventSynchronize(b));
      cudaEventElapsedTime(&ms, a, b); copy_gbs = std::max(copy_gbs, 2.0 * n * 16 * 10 / (ms * 1e6));
      cudaEventRecord(a); for (int i = 0; i < 10; ++i) cudaMemcpyAsync(d, s, n * 16, cudaMemcpyDeviceToDevice); cudaEventRecord(b); CK(cudaEventSynchronize(b));
      cudaEventElapsedTime(&ms, a, b); memcpy_gbs = std::max(memcpy_gbs, 2.0 * n * 16 * 10 / (ms * 1e6));
    }
    cudaFree(s); cudaFree(d);
  }
  printf("copy kernel %.1f GB/s, cudaMemcpy d2d %.1f GB/s (256 MiB)\n", copy_gbs, memcpy_gbs);
  const double roof = memcpy_gbs;
  auto timeit = [&](auto&& f) {
    for (int i = 0; i < 20; ++i) f();
    CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int rep = 0; rep < 10; ++rep) {
      cudaEventRecord(a);
      for (int i = 0; i < 20; ++i) f();
      cudaEventRecord(b); CK(cudaEventSynchronize(b));
      float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000 / 20);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[5];
  };
  // launch cost: GPU-side back to back, and the host's time to enqueue
  {
    auto host = [&](auto&& f) {
      CK(cudaDeviceSynchronize());
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 200; ++i) f();
      auto t1 = std::chrono::steady_clock::now();
      CK(cudaDeviceSynchronize());
      return std::chrono::duration<double, std::micro>(t1 - t0).count() / 200;
    };
    auto e1 = [&] { empty_k<<<1, 32>>>(); };
    auto e2 = [&] { forge_launch_after(empty_w, dim3(1), dim3(32), 0, (cudaStream_t)0); };
    auto q = [&] { forge_glue_quantize_x8(dx, dxq, cols, 0); };
    printf("empty <<<>>>: %.2f us per launch on the device, %.2f us to enqueue\n", timeit(e1), host(e1));
    printf("empty dependent launch: %.2f us, %.2f us to enqueue\n", timeit(e2), host(e2));
    printf("quantize x8 (14336): %.2f us, %.2f us to enqueue\n", timeit(q), host(q));
  }
  printf("%-11s %9s %4s | %-26s | %-26s | %-26s | %-26s\n", "format", "bytes", "K", "read U1 one pass", "read U4 132x8", "read U1 dependent", "quantize + read dependent");
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const std::string name = arg.substr(0, arg.find(':'));
    const long bytes = atol(arg.substr(arg.find(':') + 1).c_str());
    const long pad = (bytes + 255) & ~255L;
    const int K = std::max<int>(2, (int)((100l << 20) / bytes) + 1);
    uint8_t* w; CK(cudaMalloc(&w, pad * K)); CK(cudaMemset(w, 1, pad * K));
    int rot = 0;
    auto W = [&] { const uint4* p = (const uint4*)(w + (rot % K) * pad); ++rot; return p; };
    const long n16 = bytes / 16;
    const unsigned g1 = (unsigned)((n16 + 255) / 256);
    const double gb = (bytes + cols * 4.0 + 4096 * 4.0) / 1e3; // what the matvec benchmark counts
    float t[4];
    t[0] = timeit([&] { rd<1, false><<<g1, 256>>>(W(), n16, sink); });
    t[1] = timeit([&] { rd<4, false><<<132 * 8, 256>>>(W(), n16, sink); });
    t[2] = timeit([&] { FORGE_LAUNCH_AFTER((rd<1, true>), dim3(g1), dim3(256), 0, (cudaStream_t)0, W(), n16, sink); });
    t[3] = timeit([&] { forge_glue_quantize_x8(dx, dxq, cols, 0); FORGE_LAUNCH_AFTER((rd<1, true>), dim3(g1), dim3(256), 0, (cudaStream_t)0, W(), n16, sink); });
    printf("%-11s %9ld %4d", name.c_str(), bytes, K);
    for (int k = 0; k < 4; ++k) printf(" | %6.2f us %5.0f GB/s %5.1f%%", t[k], gb / t[k], 100 * gb / t[k] / roof);
    printf("\n");
    cudaFree(w);
  }
  return 0;
}
