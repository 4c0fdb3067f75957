#!/usr/bin/env python3
"""Measures the GPU's device-to-device copy bandwidth: the bar a bandwidth-bound kernel (decode) is held to.

Copies a buffer of --gib GiB (far past the L2, so every byte comes from and goes to DRAM) into another with
Tensor.copy_, --reps times, each between its own pair of CUDA events, after --warmup untimed copies, and
prints the median (p20, p80) time and the bandwidth counting each byte once read and once written:
2 * bytes / time. A decode kernel's figure to compare is the K/V bytes it reads over its time (its space's
Work.Bytes, the GB/s `evotune best` shows); docs/kernels/decode.md says how to take both on one GPU.
Example: scripts/copy_bandwidth.py --gib 4 --json copy.json
"""
import argparse
import json
import statistics

import torch


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gib", type=float, default=4.0, help="bytes copied, GiB (default 4)")
    ap.add_argument("--reps", type=int, default=50, help="timed copies (median reported)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    args = ap.parse_args()

    torch.cuda.set_device(args.device)
    count = int(args.gib * (1 << 30))
    src = torch.empty(count, dtype=torch.uint8, device="cuda").fill_(1)
    dst = torch.empty_like(src)
    for _ in range(args.warmup):
        dst.copy_(src)
    times_ms = []
    for _ in range(args.reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        dst.copy_(src)
        end.record()
        end.synchronize()
        times_ms.append(start.elapsed_time(end))
    median = statistics.median(times_ms)
    result = {
        "device": torch.cuda.get_device_name(args.device),
        "bytes": count,
        "median_ms": median,
        "p20_ms": quantile(times_ms, 0.2),
        "p80_ms": quantile(times_ms, 0.8),
        "copy_gbps": 2 * count / (median * 1e-3) / 1e9,
    }
    print("%s: copy of %.2f GiB: %.3f ms (p20 %.3f, p80 %.3f), %.0f GB/s read + written" %
          (result["device"], args.gib, median, result["p20_ms"], result["p80_ms"], result["copy_gbps"]))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=2)


if __name__ == "__main__":
    main()
