"""f16 matrix products through PyTorch (cuBLAS) on the current GPU: the
vendor-library bar for forge's matmul benchmarks (docs/PERFORMANCE.md).

    python3 scripts/cublas_f16.py [ROWSxCOLSxBATCH ...]

For each shape, Y = W·X with W rows×cols and X cols×batch in float16,
float32 accumulation as cuBLAS chooses, timed with CUDA events over 200
launches after 20 warm-up ones; prints µs per product and TFLOPS
(2·rows·cols·batch per product).
"""
import sys

import torch


def bench(rows, cols, batch, reps=200):
    w = torch.randn(rows, cols, dtype=torch.float16, device="cuda")
    x = torch.randn(cols, batch, dtype=torch.float16, device="cuda")
    for _ in range(20):
        torch.matmul(w, x)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(reps):
        torch.matmul(w, x)
    end.record()
    torch.cuda.synchronize()
    us = start.elapsed_time(end) * 1e3 / reps
    return us, 2.0 * rows * cols * batch / (us * 1e-6) / 1e12


def main():
    shapes = sys.argv[1:] or ["4096x4096x16", "4096x4096x64", "4096x4096x512",
                              "4096x14336x16", "4096x14336x64", "4096x14336x512"]
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}")
    print("shape                  us/op    TFLOPS")
    for s in shapes:
        rows, cols, batch = (int(v) for v in s.lower().split("x"))
        us, tflops = bench(rows, cols, batch)
        print(f"{s:20s} {us:9.2f} {tflops:9.1f}")


if __name__ == "__main__":
    main()
