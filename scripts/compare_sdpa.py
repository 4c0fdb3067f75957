#!/usr/bin/env python3
"""Times evotune's stored attention winners beside PyTorch SDPA's backends, in one process, the same way.

For each shape: every given space's fastest stored variant is exported (`evotune export`), built with nvcc
into a shared library, loaded with ctypes and checked against SDPA's math backend in fp32; then it and
every SDPA backend that accepts the shape (cuDNN, flash, efficient) are timed alike: REPLAYS_PER_GRAPH
back-to-back calls captured in a CUDA graph, the graph replayed --reps times back to back, each replay
between its own CUDA events, the median time per call reported (no L2 flush). One table (shape, each backend's and ours' time and TFLOP/s, ours /
best backend, the time the database holds for our winner with how it was taken, and ours / stored: near 1
when the tune timed it the same way, `--timing graph --flush-l2 off`) and, with --json, the same numbers.

Example: scripts/compare_sdpa.py --space search_spaces/flash_attn_fwd_mma.json --json results/compare.json
Shapes are B,H,S,D or B,H,S,D,causal; the default list is DEFAULT_SHAPES.
"""
import argparse
import ctypes
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

DEFAULT_SHAPES = ["1,8,512,64", "1,8,4096,64", "8,16,4096,64", "4,16,4096,128", "1,8,512,128",
                  "2,16,2048,128,causal", "4,32,1024,64", "2,8,1000,64"]
DEFAULT_SPACES = ["search_spaces/flash_attn_fwd.json", "search_spaces/flash_attn_fwd_mma.json",
                  "search_spaces/flash_attn_fwd_mma_bf16.json", "search_spaces/flash_attn_fwd_wgmma.json"]
SPACE_TYPES = {"half": "fp16", "bfloat16": "bf16"}  # a space's Q element type -> --dtype
BACKENDS = ["cudnn", "flash", "efficient"]
REPLAYS_PER_GRAPH = 10
# Largest error against the fp32 reference accepted before timing, where a space names none.
DEFAULT_MAX_ABS_ERROR = 0.02


def parse_shape(text):
    """'B,H,S,D' or 'B,H,S,D,causal' -> dict(B, H, S, D, causal)."""
    parts = text.split(",")
    if len(parts) not in (4, 5) or (len(parts) == 5 and parts[4] != "causal"):
        raise ValueError(f"shape '{text}': expected B,H,S,D or B,H,S,D,causal")
    b, h, s, d = (int(x) for x in parts[:4])
    if min(b, h, s, d) < 1:
        raise ValueError(f"shape '{text}': sizes must be positive")
    return {"B": b, "H": h, "S": s, "D": d, "causal": len(parts) == 5}


def problem_text(shape):
    return f"B={shape['B']},H={shape['H']},S={shape['S']},D={shape['D']},CAUSAL={int(shape['causal'])}"


def flops(shape):
    return 4 * shape["B"] * shape["H"] * shape["S"] * shape["S"] * shape["D"] / (2 if shape["causal"] else 1)


def space_dtype(space):
    """'fp16' or 'bf16': the element type of the space's Q (None for another type)."""
    for argument in space["KernelSpecification"]["Arguments"]:
        if argument["Name"] == "Q":
            return SPACE_TYPES.get(argument["Type"])
    return None


SCALAR_TYPES = {"float": ctypes.c_float, "double": ctypes.c_double, "int32": ctypes.c_int32, "int64": ctypes.c_int64}


def takes_workspace(space):
    """Whether the exported launcher takes a workspace (a space of several launches or with scratch buffers)."""
    kernel = space["KernelSpecification"]
    return "Launches" in kernel or any(a["MemoryType"] == "Scratch" for a in kernel["Arguments"])


def launcher_signature(space):
    """The exported launcher's name and ctypes argument types, from the space's kernel arguments (scratch ones
    left out, a "workspace" pointer after them where the space has any, the stream last)."""
    kernel = space["KernelSpecification"]
    argtypes, names = [], []
    for argument in kernel["Arguments"]:
        if argument["MemoryType"] in ("Scratch", "TensorMap"):  # the launcher makes these itself
            continue
        names.append(argument["Name"])
        argtypes.append(ctypes.c_void_p if argument["MemoryType"] == "Vector" else SCALAR_TYPES[argument["Type"]])
    if takes_workspace(space):
        names.append("workspace")
        argtypes.append(ctypes.c_void_p)
    return kernel["KernelName"] + "_launch", names, argtypes + [ctypes.c_void_p]


def workspace_signature(space):
    """The exported `<KernelName>_workspace_bytes`: its name, and the names and ctypes types of its integer
    arguments."""
    kernel = space["KernelSpecification"]
    integers = [a for a in kernel["Arguments"] if a["MemoryType"] == "Scalar" and a["Type"] in ("int32", "int64")]
    return kernel["KernelName"] + "_workspace_bytes", [a["Name"] for a in integers], [SCALAR_TYPES[a["Type"]] for a in integers]


def argument_values(names, tensors, shape):
    """Values for the attention launchers' arguments: buffers by name, sizes, the softmax scale."""
    known = {"Q": tensors["q"].data_ptr(), "K": tensors["k"].data_ptr(), "V": tensors["v"].data_ptr(),
             "O": tensors["o"].data_ptr(), "B": shape["B"], "H": shape["H"], "S": shape["S"],
             "scale": 1.0 / math.sqrt(shape["D"])}
    if "workspace" in tensors:
        known["workspace"] = tensors["workspace"].data_ptr()
    missing = [name for name in names if name not in known]
    if missing:
        raise ValueError(f"the launcher takes arguments this script does not know: {missing}")
    return [known[name] for name in names]


def format_table(rows):
    header = (["shape", "causal"] + [f"{b} us (TFLOP/s)" for b in BACKENDS] +
              ["ours us (TFLOP/s)", "ours/best", "stored us", "ours/stored", "ours from"])
    lines = [header]
    for row in rows:
        line = [f"{row['B']},{row['H']},{row['S']},{row['D']}", "yes" if row["causal"] else "no"]
        for backend in BACKENDS + ["ours"]:
            r = row.get(backend)
            line.append(f"{r['us']:.1f} ({r['tflops']:.0f})" if r and "us" in r else "-")
        line.append(f"{row['ratio']:.2f}x" if row.get("ratio") else "-")
        ours = row.get("ours") or {}
        stored = ours.get("stored")
        line.append(f"{stored['us']:.1f} ({stored['mode']})" if stored else "-")
        line.append(f"{ours['vs_stored']:.3f}" if ours.get("vs_stored") else "-")
        line.append(f"{os.path.basename(ours['space'])} #{ours['config_id']}" if "config_id" in ours else ours.get("error", "-"))
        lines.append(line)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines)


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {(result.stderr or result.stdout).strip().splitlines()[-1]}")
    return result.stdout


def stored_best(evotune, space_file, shape, db):
    out = run([evotune, "best", space_file, "--problem", problem_text(shape), "--db", db, "--json", "--top", "1"])
    best = json.loads(out)
    return best[0] if best and best[0].get("status") == "ok" else None


def stored_time(best):
    """The time the database holds for the winner and how it was taken: the rerank's median where the tune
    re-measured it, else the search's; None without a time."""
    remeasured = best.get("remeasured")
    us = remeasured["median_us"] if remeasured else best.get("time_us")
    if us is None:
        return None
    mode = best.get("timing_mode") or "single"
    if mode == "graph":
        mode += f" x{best.get('graph_executions')}"
    mode += ", L2 flushed" if best.get("flush_l2") else ", no L2 flush"
    return {"us": us, "mode": mode, "reranked": remeasured is not None}


def space_arch(space, arch):
    """The target for a space: the GPU's arch plus the space's ArchSuffix ("a": sm_90a for wgmma)."""
    suffix = space.get("KernelSpecification", {}).get("ArchSuffix", "")
    return arch if arch.endswith(suffix) else arch + suffix


def build_winner(evotune, nvcc, space_file, shape, db, arch, work):
    """Exports and builds a space's stored winner; returns (library path, its `best --json` entry)."""
    with open(space_file) as f:
        arch = space_arch(json.load(f), arch)
    best = stored_best(evotune, space_file, shape, db)
    if best is None:
        raise RuntimeError(f"no working variant of {os.path.basename(space_file)} stored for {problem_text(shape)}")
    # The launcher bakes in its problem, and dlopen hands back an already-loaded library for the same path:
    # one file per space, config and shape.
    shape_tag = "_".join(str(shape[k]) for k in ("B", "H", "S", "D")) + ("_causal" if shape["causal"] else "")
    stem = os.path.join(work, f"{os.path.splitext(os.path.basename(space_file))[0]}_{best['config_id']}_{shape_tag}")
    run([evotune, "export", space_file, "--problem", problem_text(shape), "--db", db,
         "--config", str(best["config_id"]), "--arch", arch, "-o", stem + ".cu"])
    run([nvcc, f"-arch={arch}", "-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared",
         "-o", stem + ".so", stem + ".cu"])
    return stem + ".so", best


def time_callable(torch, call, reps, warmup, sync_each_replay=False):
    """Median and quantiles (us per call) of REPLAYS_PER_GRAPH calls captured in a CUDA graph.

    The replays are queued back to back, each between its own pair of events, and read after one
    synchronisation: the GPU never waits for the host, as in evotune's graph timing. With sync_each_replay the
    host waits for each replay before queueing the next, so each sample also holds the graph's launch latency
    (a few us, spread over REPLAYS_PER_GRAPH calls)."""
    for _ in range(3):  # outside the graph: a call that fails raises here
        call()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream), torch.cuda.graph(graph, stream=stream, capture_error_mode="relaxed"):
        for _ in range(REPLAYS_PER_GRAPH):
            call()
    torch.cuda.synchronize()
    for _ in range(warmup):
        graph.replay()
    events = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        if sync_each_replay:
            end.synchronize()
        events.append((start, end))
    torch.cuda.synchronize()
    samples = sorted(start.elapsed_time(end) * 1000.0 / REPLAYS_PER_GRAPH for start, end in events)
    return {"us": statistics.median(samples), "p20_us": samples[int(0.2 * (len(samples) - 1))],
            "p80_us": samples[int(0.8 * (len(samples) - 1))]}


def check_against_math(torch, functional, tensors, shape):
    """Max |ours - SDPA math in fp32| over the first batch entry's first heads (the whole problem at once
    would need B*H*S*S floats)."""
    heads = min(shape["H"], 4)
    q, k, v = (tensors[name][:1, :heads].float() for name in "qkv")
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel([SDPBackend.MATH]):
        expected = functional.scaled_dot_product_attention(q, k, v, is_causal=shape["causal"])
    return (tensors["o"][:1, :heads].float() - expected).abs().max().item()


def compare_shape(torch, functional, shape, spaces, args, work):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION}
    b, h, s, d = shape["B"], shape["H"], shape["S"], shape["D"]
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    tensors = {name: torch.rand(b, h, s, d, device="cuda", dtype=dtype) * 2 - 1 for name in "qkv"}
    tensors["o"] = torch.empty_like(tensors["q"])
    row = dict(shape)
    work_flops = flops(shape)
    for name in BACKENDS:
        def sdpa(backend=backends[name]):
            with sdpa_kernel([backend]):
                functional.scaled_dot_product_attention(tensors["q"], tensors["k"], tensors["v"], is_causal=shape["causal"])
        try:
            timing = time_callable(torch, sdpa, args.reps, args.warmup, args.sync_each_replay)
            row[name] = dict(timing, tflops=work_flops / timing["us"] / 1e6)
        except RuntimeError as e:  # the backend does not take this shape or build
            row[name] = {"error": str(e).splitlines()[0]}
    candidates = []
    for space_file in spaces:
        try:
            library_path, best = build_winner(args.evotune, args.nvcc, space_file, shape, args.db, args.arch, work)
            config_id = best["config_id"]
        except RuntimeError as e:
            candidates.append({"space": space_file, "error": str(e)})
            continue
        with open(space_file) as f:
            space = json.load(f)
        symbol, names, argtypes = launcher_signature(space)
        library = ctypes.CDLL(library_path)
        launcher = getattr(library, symbol)
        launcher.argtypes = argtypes
        launcher.restype = ctypes.c_int
        tensors.pop("workspace", None)
        if takes_workspace(space):
            size_symbol, size_names, size_types = workspace_signature(space)
            workspace_bytes = getattr(library, size_symbol)
            workspace_bytes.argtypes = size_types
            workspace_bytes.restype = ctypes.c_size_t
            size = workspace_bytes(*argument_values(size_names, tensors, shape))
            tensors["workspace"] = torch.empty(max(size, 1), device="cuda", dtype=torch.uint8)
        values = argument_values(names, tensors, shape)

        def ours():
            status = launcher(*values, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
            if status != 0:
                raise RuntimeError(f"{symbol} returned CUDA error {status}")
        tensors["o"].fill_(float("nan"))
        ours()
        torch.cuda.synchronize()
        error = check_against_math(torch, functional, tensors, shape)
        tolerance = space.get("Validation", {}).get("AbsoluteTolerance", DEFAULT_MAX_ABS_ERROR)
        if not error <= tolerance:  # NaN fails too (the space's own tolerance: bf16 spaces allow more)
            candidates.append({"space": space_file, "config_id": config_id, "error": f"max |error| {error:.3g}"})
            continue
        timing = time_callable(torch, ours, args.reps, args.warmup, args.sync_each_replay)
        stored = stored_time(best)
        candidates.append(dict(timing, space=space_file, config_id=config_id, max_abs_error=error,
                               tflops=work_flops / timing["us"] / 1e6, stored=stored,
                               vs_stored=timing["us"] / stored["us"] if stored else None))
    timed = [c for c in candidates if "us" in c]
    row["candidates"] = candidates
    row["ours"] = min(timed, key=lambda c: c["us"]) if timed else (candidates[0] if candidates else None)
    best_backend = min((row[n]["us"] for n in BACKENDS if "us" in row[n]), default=None)
    if timed and best_backend:
        row["ratio"] = best_backend / row["ours"]["us"]  # > 1: ours is faster than every backend
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", action="append", help="B,H,S,D[,causal] (repeatable); default: the list in DEFAULT_SHAPES")
    ap.add_argument("--space", action="append", help="search space (repeatable); default: every attention space")
    ap.add_argument("--db", default="results/evotune.db")
    ap.add_argument("--evotune", default="build/evotune")
    ap.add_argument("--nvcc", default=os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"))
    ap.add_argument("--arch", help="default: the GPU's (sm_XY)")
    ap.add_argument("--dtype", choices=["fp16", "bf16"], default="fp16",
                    help="element type of Q, K, V, O; spaces of the other type are left out")
    ap.add_argument("--reps", type=int, default=100, help="timed graph replays (median reported)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--sync-each-replay", action="store_true",
                    help="wait for each replay before queueing the next (each sample then holds a graph launch latency)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args()
    shapes = [parse_shape(text) for text in (args.shape or DEFAULT_SHAPES)]
    spaces = []
    for space_file in args.space or DEFAULT_SPACES:
        with open(space_file) as f:
            if space_dtype(json.load(f)) == args.dtype:
                spaces.append(space_file)
            else:
                print(f"{space_file}: not {args.dtype}, left out", file=sys.stderr)
    if not spaces:
        ap.error(f"no {args.dtype} space among " + ", ".join(args.space or DEFAULT_SPACES))

    import torch
    import torch.nn.functional as functional
    torch.manual_seed(0)
    major, minor = torch.cuda.get_device_capability()
    args.arch = args.arch or f"sm_{major}{minor}"
    rows = []
    with tempfile.TemporaryDirectory(prefix="evotune-compare-") as work:
        for shape in shapes:
            row = compare_shape(torch, functional, shape, spaces, args, work)
            row["device"] = torch.cuda.get_device_name()
            rows.append(row)
            print(format_table([row]).splitlines()[-1], flush=True)
    print()
    print(f"{torch.cuda.get_device_name()}, PyTorch {torch.__version__}, {args.dtype}: median of {args.reps} replays of a "
          f"CUDA graph of {REPLAYS_PER_GRAPH} calls, "
          f"{'each replay waited for' if args.sync_each_replay else 'replays queued back to back'}, no L2 flush; ours/best = best backend's time / ours")
    print(format_table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
