"""f16 matrix products through PyTorch (cuBLAS) on the current GPU: the
vendor-library bar for forge's matmul benchmarks (docs/PERFORMANCE.md).

    python3 scripts/cublas_f16.py [--count N] [--reps R] [ROWSxCOLSxBATCH ...]

For each shape, Y = W·X with W rows×cols and X cols×batch in float16,
float32 accumulation as cuBLAS chooses: after 20 warm-up launches, N
samples (default 5), each the mean of R back-to-back launches (default
100) timed with CUDA events, as forgebench run times forge's (--count,
--launches-per-sample); prints the median sample's µs per product and
TFLOPS (2·rows·cols·batch per product), and each shape's samples on a
comment line. The protocol matters on a GPU that holds its clocks down
under a sustained load (the H200 at its power cap: 84.6 µs at
4096×14336×512 in 20-launch samples, 98 in 200-launch ones), so the
comparison scripts pass forge's COUNT and LAUNCHES here.
"""
import argparse

import torch


def bench(rows, cols, batch, count, reps):
    w = torch.randn(rows, cols, dtype=torch.float16, device="cuda")
    x = torch.randn(cols, batch, dtype=torch.float16, device="cuda")
    for _ in range(20):
        torch.matmul(w, x)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(count):
        torch.cuda.synchronize()
        start.record()
        for _ in range(reps):
            torch.matmul(w, x)
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end) * 1e3 / reps)
    us = sorted(samples)[(count - 1) // 2]
    return us, 2.0 * rows * cols * batch / (us * 1e-6) / 1e12, samples


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--count", type=int, default=5)
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("shapes", nargs="*")
    a = p.parse_args()
    if a.count < 1 or a.reps < 1:
        p.error("--count and --reps are at least 1")
    shapes = a.shapes or ["4096x4096x16", "4096x4096x64", "4096x4096x512",
                          "4096x14336x16", "4096x14336x64", "4096x14336x512"]
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}")
    print(f"# statistic: median of {a.count} samples, each the mean µs of {a.reps} back-to-back launches of torch.matmul on f16 tensors (cuBLAS), after 20 warm-up ones")
    print("shape                  us/op    TFLOPS")
    for s in shapes:
        rows, cols, batch = (int(v) for v in s.lower().split("x"))
        us, tflops, samples = bench(rows, cols, batch, a.count, a.reps)
        print(f"{s:20s} {us:9.2f} {tflops:9.1f}")
        print(f"# {s} samples: " + " ".join(f"{v:.2f}" for v in samples), flush=True)


if __name__ == "__main__":
    main()
