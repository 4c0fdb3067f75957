#!/usr/bin/env python3
"""Times PyTorch SDPA (cuDNN and flash backends, fp16) for attention shapes: the bar to beat.

Each measurement captures REPLAYS_PER_GRAPH back-to-back SDPA calls in a CUDA graph, replays the
graph --reps times between CUDA events and reports the median time per call (with p20/p80) and
TFLOP/s = 4*B*H*S*S*D (halved with --causal) / time.
Example: scripts/sdpa_baseline.py --shape 1,8,512,64 --shape 8,16,4096,64 --json out.json
"""
import argparse
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from compare_torch import time_callable

BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}
DEFAULT_SHAPES = ["1,8,512,64", "8,16,4096,64", "4,16,4096,128"]


def time_backend(backend, q, k, v, causal, reps, warmup):
    def call():
        with sdpa_kernel([backend]):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return time_callable(torch, call, reps, warmup)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", action="append", help="B,H,S,D (repeatable); default: %s" % " ".join(DEFAULT_SHAPES))
    ap.add_argument("--causal", action="store_true", help="causal mask (flops halved)")
    ap.add_argument("--backend", action="append", choices=sorted(BACKENDS), help="default: all")
    ap.add_argument("--reps", type=int, default=100, help="timed graph replays (median reported)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON ('-' = stdout)")
    args = ap.parse_args()

    torch.manual_seed(0)
    device = torch.cuda.get_device_name()
    results = []
    for shape in args.shape or DEFAULT_SHAPES:
        b, h, s, d = (int(x) for x in shape.split(","))
        q, k, v = (torch.rand(b, h, s, d, device="cuda", dtype=torch.float16) * 2 - 1 for _ in range(3))
        flops = 4 * b * h * s * s * d / (2 if args.causal else 1)
        for name in args.backend or sorted(BACKENDS):
            row = {"device": device, "B": b, "H": h, "S": s, "D": d, "causal": args.causal, "backend": name}
            try:
                t = time_backend(BACKENDS[name], q, k, v, args.causal, args.reps, args.warmup)
                med = t["us"]
                row.update(t, tflops=flops / med / 1e6)
                print(f"B={b} H={h} S={s} D={d} causal={int(args.causal)} {name:6s} "
                      f"{med:10.1f} us  [p20 {row['p20_us']:.1f}, p80 {row['p80_us']:.1f}]  {row['tflops']:7.1f} TFLOP/s")
            except RuntimeError as e:  # backend not available for this shape or build
                row["error"] = str(e).splitlines()[0]
                print(f"B={b} H={h} S={s} D={d} {name:6s} unavailable: {row['error']}")
            results.append(row)
    if args.json:
        text = json.dumps(results, indent=2)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
