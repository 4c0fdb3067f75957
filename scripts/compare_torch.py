#!/usr/bin/env python3
"""Times evotune's stored winners beside PyTorch's own kernels, in one process, the same way.

`gemm`: for each shape M,N,K[,nt] every given GEMM space's fastest stored variant is exported (`evotune
export`), built with nvcc into a shared library, loaded with ctypes and checked against an fp32 product of the
same inputs; then it and torch.matmul (B [K, N]) or F.linear (nt: B given as [N, K], nn.Linear's weight),
both cuBLAS, are timed alike: REPLAYS_PER_GRAPH back-to-back calls captured in a CUDA graph, the graph
replayed --reps times back to back, each replay between its own CUDA events, the median per call reported (no
L2 flush). `attention`: scripts/compare_sdpa.py's comparison against SDPA's backends (its arguments follow).

Example: scripts/compare_torch.py gemm --shape 8192,8192,8192 --shape 16,4096,4096,nt --json results/gemm.json
"""
import argparse
import ctypes
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_sdpa  # noqa: E402  (the shared graph timing, launcher signatures and build steps)

DEFAULT_GEMM_SHAPES = ["8192,8192,8192", "4096,4096,4096", "16,4096,4096,nt", "4096,14336,4096,nt",
                       "4095,4097,4093", "1000,3000,2000", "77,5000,4096"]
DEFAULT_GEMM_SPACES = ["search_spaces/gemm_wgmma.json", "search_spaces/gemm_wgmma_bf16.json"]
SPACE_TYPES = {"half": "fp16", "bfloat16": "bf16"}


def parse_gemm_shape(text):
    """'M,N,K' or 'M,N,K,nt' -> dict(M, N, K, nt)."""
    parts = text.split(",")
    if len(parts) not in (3, 4) or (len(parts) == 4 and parts[3] != "nt"):
        raise ValueError(f"shape '{text}': expected M,N,K or M,N,K,nt")
    m, n, k = (int(x) for x in parts[:3])
    if min(m, n, k) < 1:
        raise ValueError(f"shape '{text}': sizes must be positive")
    return {"M": m, "N": n, "K": k, "nt": len(parts) == 4}


def gemm_problem_text(shape):
    return f"M={shape['M']},N={shape['N']},K={shape['K']},B_KMAJOR={int(shape['nt'])}"


def gemm_space_dtype(space):
    for argument in space["KernelSpecification"]["Arguments"]:
        if argument["Name"] == "A":
            return SPACE_TYPES.get(argument["Type"])
    return None


def gemm_argument_values(names, tensors, shape):
    known = {"A": tensors["a"].data_ptr(), "B": tensors["b"].data_ptr(), "bias": tensors["bias"].data_ptr(),
             "D": tensors["d"].data_ptr(), "M": shape["M"], "N": shape["N"], "K": shape["K"]}
    if "workspace" in tensors:
        known["workspace"] = tensors["workspace"].data_ptr()
    missing = [name for name in names if name not in known]
    if missing:
        raise ValueError(f"the launcher takes arguments this script does not know: {missing}")
    return [known[name] for name in names]


def build_gemm_winner(args, space_file, shape, work):
    with open(space_file) as f:
        arch = compare_sdpa.space_arch(json.load(f), args.arch)
    problem = gemm_problem_text(shape)
    out = compare_sdpa.run([args.evotune, "best", space_file, "--problem", problem, "--db", args.db, "--json",
                            "--top", "1"])
    best = json.loads(out)
    best = best[0] if best and best[0].get("status") == "ok" else None
    if best is None:
        raise RuntimeError(f"no working variant of {os.path.basename(space_file)} stored for {problem}")
    tag = f"{shape['M']}_{shape['N']}_{shape['K']}" + ("_nt" if shape["nt"] else "")
    stem = os.path.join(work, f"{os.path.splitext(os.path.basename(space_file))[0]}_{best['config_id']}_{tag}")
    compare_sdpa.run([args.evotune, "export", space_file, "--problem", problem, "--db", args.db, "--config",
                      str(best["config_id"]), "--arch", arch, "-o", stem + ".cu"])
    compare_sdpa.run([args.nvcc, f"-arch={arch}", "-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC", "-cudart",
                      "shared", "-o", stem + ".so", stem + ".cu"])
    return stem + ".so", best


def compare_gemm_shape(torch, functional, shape, spaces, args, work):
    m, n, k = shape["M"], shape["N"], shape["K"]
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    tensors = {"a": torch.rand(m, k, device="cuda", dtype=dtype) * 2 - 1,
               "b": torch.rand(n, k, device="cuda", dtype=dtype) * 2 - 1 if shape["nt"]
               else torch.rand(k, n, device="cuda", dtype=dtype) * 2 - 1,
               "bias": torch.zeros(n, device="cuda", dtype=dtype),
               "d": torch.empty(m, n, device="cuda", dtype=dtype)}
    row = dict(shape)
    work_flops = 2.0 * m * n * k

    def cublas():
        if shape["nt"]:
            functional.linear(tensors["a"], tensors["b"])
        else:
            torch.matmul(tensors["a"], tensors["b"])
    timing = compare_sdpa.time_callable(torch, cublas, args.reps, args.warmup)
    row["cublas"] = dict(timing, tflops=work_flops / timing["us"] / 1e6)
    expected = tensors["a"].float() @ (tensors["b"].float().t() if shape["nt"] else tensors["b"].float())
    candidates = []
    for space_file in spaces:
        try:
            library_path, best = build_gemm_winner(args, space_file, shape, work)
        except RuntimeError as e:
            candidates.append({"space": space_file, "error": str(e)})
            continue
        with open(space_file) as f:
            space = json.load(f)
        symbol, names, argtypes = compare_sdpa.launcher_signature(space)
        library = ctypes.CDLL(library_path)
        launcher = getattr(library, symbol)
        launcher.argtypes = argtypes
        launcher.restype = ctypes.c_int
        tensors.pop("workspace", None)
        if compare_sdpa.takes_workspace(space):
            size_symbol, size_names, size_types = compare_sdpa.workspace_signature(space)
            workspace_bytes = getattr(library, size_symbol)
            workspace_bytes.argtypes = size_types
            workspace_bytes.restype = ctypes.c_size_t
            size = workspace_bytes(*gemm_argument_values(size_names, tensors, shape))
            tensors["workspace"] = torch.empty(max(size, 1), device="cuda", dtype=torch.uint8)
        values = gemm_argument_values(names, tensors, shape)

        def ours():
            status = launcher(*values, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
            if status != 0:
                raise RuntimeError(f"{symbol} returned CUDA error {status}")
        tensors["d"].fill_(float("nan"))
        ours()
        torch.cuda.synchronize()
        error = (tensors["d"].float() - expected).abs().max().item()
        relative = ((tensors["d"].float() - expected).norm() / expected.norm()).item()
        tolerance = space.get("Validation", {}).get("AbsoluteTolerance", 1.0)
        if not error <= tolerance:  # NaN fails too
            candidates.append({"space": space_file, "config_id": best["config_id"], "error": f"max |error| {error:.3g}"})
            continue
        timing = compare_sdpa.time_callable(torch, ours, args.reps, args.warmup)
        stored = compare_sdpa.stored_time(best)
        candidates.append(dict(timing, space=space_file, config_id=best["config_id"], max_abs_error=error,
                               relative_l2_error=relative, tflops=work_flops / timing["us"] / 1e6, stored=stored,
                               vs_stored=timing["us"] / stored["us"] if stored else None))
    timed = [c for c in candidates if "us" in c]
    row["candidates"] = candidates
    row["ours"] = min(timed, key=lambda c: c["us"]) if timed else (candidates[0] if candidates else None)
    if timed:
        row["ratio"] = row["cublas"]["us"] / row["ours"]["us"]  # > 1: ours is faster than cuBLAS
    return row


def format_gemm_table(rows):
    header = ["M,N,K", "B", "cuBLAS us (TFLOP/s)", "ours us (TFLOP/s)", "ours/cuBLAS", "stored us", "ours/stored",
              "ours from"]
    lines = [header]
    for row in rows:
        line = [f"{row['M']},{row['N']},{row['K']}", "[N,K]" if row["nt"] else "[K,N]"]
        for key in ("cublas", "ours"):
            r = row.get(key)
            line.append(f"{r['us']:.1f} ({r['tflops']:.0f})" if r and "us" in r else "-")
        line.append(f"{row['ratio']:.2f}x" if row.get("ratio") else "-")
        ours = row.get("ours") or {}
        stored = ours.get("stored")
        line.append(f"{stored['us']:.1f} ({stored['mode']})" if stored else "-")
        line.append(f"{ours['vs_stored']:.3f}" if ours.get("vs_stored") else "-")
        line.append(f"{os.path.basename(ours['space'])} #{ours['config_id']}" if "config_id" in ours
                    else ours.get("error", "-"))
        lines.append(line)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines)


def gemm_main(argv):
    ap = argparse.ArgumentParser(prog="compare_torch.py gemm", description="GEMM winners against cuBLAS")
    ap.add_argument("--shape", action="append", help="M,N,K[,nt] (repeatable); default: DEFAULT_GEMM_SHAPES")
    ap.add_argument("--space", action="append", help="search space (repeatable); default: the GEMM spaces")
    ap.add_argument("--db", default="results/evotune.db")
    ap.add_argument("--evotune", default="build/evotune")
    ap.add_argument("--nvcc", default=os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"))
    ap.add_argument("--arch", help="default: the GPU's (sm_XY)")
    ap.add_argument("--dtype", choices=["fp16", "bf16"], default="fp16")
    ap.add_argument("--reps", type=int, default=100, help="timed graph replays (median reported)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args(argv)
    shapes = [parse_gemm_shape(text) for text in (args.shape or DEFAULT_GEMM_SHAPES)]
    spaces = []
    for space_file in args.space or DEFAULT_GEMM_SPACES:
        with open(space_file) as f:
            if gemm_space_dtype(json.load(f)) == args.dtype:
                spaces.append(space_file)
    if not spaces:
        ap.error(f"no {args.dtype} space among " + ", ".join(args.space or DEFAULT_GEMM_SPACES))
    import torch
    import torch.nn.functional as functional
    torch.manual_seed(0)
    major, minor = torch.cuda.get_device_capability()
    args.arch = args.arch or f"sm_{major}{minor}"
    rows = []
    with tempfile.TemporaryDirectory(prefix="evotune-compare-") as work:
        for shape in shapes:
            row = compare_gemm_shape(torch, functional, shape, spaces, args, work)
            row["device"] = torch.cuda.get_device_name()
            rows.append(row)
            print(format_gemm_table([row]).splitlines()[-1], flush=True)
    print()
    print(f"{torch.cuda.get_device_name()}, PyTorch {torch.__version__}, {args.dtype}: median of {args.reps} replays of "
          f"a CUDA graph of {compare_sdpa.REPLAYS_PER_GRAPH} calls, replays queued back to back, no L2 flush; "
          "ours/cuBLAS = cuBLAS's time / ours")
    print(format_gemm_table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
            f.write("\n")
    return 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("gemm", "attention"):
        print("usage: compare_torch.py {gemm|attention} [options]  (--help after either for its options)",
              file=sys.stderr)
        return 2
    if sys.argv[1] == "gemm":
        return gemm_main(sys.argv[2:])
    sys.argv = [sys.argv[0] + " attention"] + sys.argv[2:]
    return compare_sdpa.main()


if __name__ == "__main__":
    sys.exit(main())
