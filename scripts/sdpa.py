"""Flash attention forward through PyTorch's scaled_dot_product_attention on
the current GPU: the bar for forge's attention suite (the H100 target:
forge's TFLOPS at seq 2048, head dim 128, at least half of this).

    python3 scripts/sdpa.py [bBATCH_hHEADS_sSEQ_dDIM ...] [--causal|--full|--both]

Shapes default to the suite's (runtime/suite/attnsuite, spec attention/flash): the
sequence sweep at b1 h32, the heads sweep and the batch sweep at s2048, for
head dims 64 and 128. q, k and v are float16 [batch, heads, seq, dim]
(PyTorch's layout for SDPA, and forge's), scale 1/sqrt(dim), timed with CUDA
events over 100 calls after 10 warm-up ones. TFLOPS use forge's convention
(cpu.AttentionShape.FLOPs): 4·b·h·s²·d per call, counting only the attended
(query, key) pairs under causal masking, s(s+1)/2 per head (about half).
The backend PyTorch picks (FlashAttention-2, cuDNN or memory-efficient) is
its own; the line says which ones were enabled.
"""
import math
import sys

import torch
import torch.nn.functional as F


def flops(b, h, s, d, causal):
    pairs = s * (s + 1) // 2 if causal else s * s
    return 4.0 * b * h * d * pairs


def bench(b, h, s, d, causal, reps=100):
    q = torch.randn(b, h, s, d, dtype=torch.float16, device="cuda") * 2
    k = torch.randn(b, h, s, d, dtype=torch.float16, device="cuda")
    v = torch.randn(b, h, s, d, dtype=torch.float16, device="cuda")
    scale = 1.0 / math.sqrt(d)
    for _ in range(10):
        F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(reps):
        F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
    end.record()
    torch.cuda.synchronize()
    us = start.elapsed_time(end) * 1e3 / reps
    return us, flops(b, h, s, d, causal) / (us * 1e-6) / 1e12


def default_shapes():
    out = []
    for d in (64, 128):
        sizes = [(1, 32, s) for s in (128, 256, 512, 1024, 2048, 4096)]
        sizes += [(1, h, 2048) for h in (4, 8, 16, 32)]
        sizes += [(b, 32, 2048) for b in (1, 2, 4)]
        for x in dict.fromkeys(sizes):
            out.append((*x, d))
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    modes = [False, True]
    if "--causal" in flags:
        modes = [True]
    elif "--full" in flags:
        modes = [False]
    shapes = default_shapes()
    if args:
        shapes = []
        for a in args:
            parts = dict((p[0], int(p[1:])) for p in a.lower().split("_"))
            shapes.append((parts["b"], parts["h"], parts["s"], parts["d"]))
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}; "
          f"SDPA backends: flash {torch.backends.cuda.flash_sdp_enabled()}, "
          f"mem_efficient {torch.backends.cuda.mem_efficient_sdp_enabled()}, math {torch.backends.cuda.math_sdp_enabled()}")
    print("case                                us/op    TFLOPS   tokens/s")
    for causal in modes:
        for b, h, s, d in shapes:
            us, tflops = bench(b, h, s, d, causal)
            name = f"f16/d{d}/{'causal' if causal else 'full'}/b{b}_h{h}_s{s}"
            print(f"{name:32s} {us:9.1f} {tflops:9.1f} {b * s / (us * 1e-6):10.3g}")


if __name__ == "__main__":
    main()
