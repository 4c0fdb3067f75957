#!/usr/bin/env python3
"""Times PyTorch SDPA (cuDNN and flash backends, fp16) for attention shapes: the bar to beat.

Each measurement captures REPLAYS_PER_GRAPH back-to-back SDPA calls in a CUDA graph, replays the
graph --reps times between CUDA events and reports the median time per call (with p20/p80) and
TFLOP/s = 4*B*H*S*S*D (halved with --causal) / time.
Example: scripts/sdpa_baseline.py --shape 1,8,512,64 --shape 8,16,4096,64 --json out.json
"""
import argparse
import json
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}
DEFAULT_SHAPES = ["1,8,512,64", "8,16,4096,64", "4,16,4096,128"]
REPLAYS_PER_GRAPH = 10


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def time_backend(backend, q, k, v, causal, reps, warmup):
    with sdpa_kernel([backend]):
        for _ in range(3):  # fails here, outside the graph, when the backend rejects the shape
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream), torch.cuda.graph(graph, stream=stream):
            for _ in range(REPLAYS_PER_GRAPH):
                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.cuda.synchronize()
    for _ in range(warmup):
        graph.replay()
    samples = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1000.0 / REPLAYS_PER_GRAPH)
    return samples


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
                med = statistics.median(t)
                row.update(us=med, p20_us=quantile(t, 0.2), p80_us=quantile(t, 0.8), tflops=flops / med / 1e6)
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
