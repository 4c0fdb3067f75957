#!/usr/bin/env python3
"""Times evotune's stored winners beside PyTorch's own kernels, in one process, the same way.

For each shape every given space's fastest stored variant is exported (`evotune export`), built with nvcc
into a shared library, loaded with ctypes and checked against an fp32 computation; then it and PyTorch's
implementations are timed alike (Contenders): each captured once, REPLAYS_PER_GRAPH back-to-back calls in a
CUDA graph, then in each of --rounds interleaved rounds every contender's graph replayed --warmup times then
--reps times back to back, each replay between its own CUDA events (no L2 flush), the order of the contenders
rotated from round to round. A contender's time per call is the median over the rounds of each round's median
(`rounds_us`, with p20/p80 over every sample): the GPU's clocks drift under its power cap (the same kernel's
time by several percent over tens of seconds), and the rounds keep that drift from favouring whichever is timed
first or last. One table per operation (each implementation's time and TFLOP/s, PyTorch's best / ours from
those times and, by round, the median of that ratio within each round, the time the database holds for our
winner with how it was taken, and ours / stored: near 1 when the tune timed it the same way, `--timing graph
--flush-l2 off`) and, with --json, the same numbers.

`attention`: shapes B,H,S,D[,causal], against every SDPA backend that takes the shape (cuDNN, flash,
efficient), checked against SDPA's math backend. `gemm`: shapes M,N,K[,nt], against torch.matmul (B [K, N])
or F.linear (nt: B given as [N, K], nn.Linear's weight), both cuBLAS. `decode`: shapes
B,HQ/HKV,SQ,SKV,D[,nocausal][,paged=PAGE] (every cache full), against SDPA's backends with enable_gqa on the
same K/V in [B, HKV, SKV, D] (causal with SQ > 1 as a bottom-right mask), with ours' K/V read bandwidth beside a
device-to-device copy's timed the same way (bytes read plus written; caches that fit the L2 stay in it).
`backward`: attention's shapes, the backward alone (dQ, dK, dV from Q, K, V, O, dO and the row log-sum-exps,
computed in fp32 as the forward saves them) against each SDPA backend's backward (torch.autograd.grad of its
forward's output, the forward kept), checked against SDPA's math backend in fp32; 2.5x the forward's flops.
`training`: the same shapes, the forward then the backward as an autograd step runs them (each backend's forward
and torch.autograd.grad of its output in one captured call, against our forward winner then our backward winner,
of the backward space's dtype among --forward-space), checked (O, dQ, dK, dV) against the math backend; 3.5x the
forward's flops.

Examples: scripts/compare_torch.py attention --space search_spaces/flash_attn_fwd_mma.json --json out.json
          scripts/compare_torch.py gemm --shape 8192,8192,8192 --shape 16,4096,4096,nt
"""
import argparse
import contextlib
import ctypes
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

import gpu_power
import kernel_trace
import space_doc

REPLAYS_PER_GRAPH = 10
SPACE_TYPES = {"half": "fp16", "bfloat16": "bf16"}  # a space's input element type -> --dtype
SCALAR_TYPES = {"float": ctypes.c_float, "double": ctypes.c_double, "int32": ctypes.c_int32, "int64": ctypes.c_int64}

# --- attention -----------------------------------------------------------------------------------------------
ATTENTION_SHAPES = ["1,8,512,64", "1,8,4096,64", "8,16,4096,64", "4,16,4096,128", "1,8,512,128",
                    "2,16,2048,128,causal", "4,32,1024,64", "2,8,1000,64"]
ATTENTION_SPACES = ["search_spaces/flash_attn_fwd.json", "search_spaces/flash_attn_fwd_mma.json",
                    "search_spaces/flash_attn_fwd_mma_bf16.json", "search_spaces/flash_attn_fwd_wgmma.json"]
SDPA_BACKENDS = ["cudnn", "flash", "efficient"]
# Largest error against the fp32 reference accepted before timing, where a space names none.
ATTENTION_MAX_ABS_ERROR = 0.02


def parse_attention_shape(text):
    """'B,H,S,D' followed by flags ('causal') -> dict(B, H, HKV, S, SKV, D, causal). H may be 'H/HKV' (grouped
    K/V heads: SDPA with enable_gqa) and S may be 'S/SKV' (a key length of its own; causal is then aligned to the
    bottom right, as SDPA's causal_lower_right). New sizes and flags go here."""
    parts = text.split(",")
    sizes, flags = parts[:4], parts[4:]
    usage = f"shape '{text}': expected B,H[/HKV],S[/SKV],D or the same followed by ,causal"
    if len(sizes) != 4 or any(flag not in ("causal",) for flag in flags) or len(set(flags)) != len(flags):
        raise ValueError(usage)
    try:
        heads, lengths = ([int(x) for x in sizes[i].split("/")] for i in (1, 2))
        shape = dict(B=int(sizes[0]), H=heads[0], HKV=heads[-1], S=lengths[0], SKV=lengths[-1], D=int(sizes[3]),
                     causal="causal" in flags)
    except ValueError:
        raise ValueError(usage) from None
    if len(heads) > 2 or len(lengths) > 2:
        raise ValueError(usage)
    if min(shape[k] for k in ("B", "H", "HKV", "S", "SKV", "D")) < 1 or shape["H"] % shape["HKV"]:
        raise ValueError(f"shape '{text}': sizes must be positive and H a multiple of HKV")
    return shape


def attention_problem(shape):
    """The problem text; HKV and SKV only where they differ from H and S (spaces without them still parse it)."""
    extra = (f",HKV={shape['HKV']}" if shape["HKV"] != shape["H"] else "") + \
        (f",SKV={shape['SKV']}" if shape["SKV"] != shape["S"] else "")
    return f"B={shape['B']},H={shape['H']},S={shape['S']},D={shape['D']},CAUSAL={int(shape['causal'])}" + extra


def attention_tag(shape):
    heads = f"{shape['H']}" + (f"-{shape['HKV']}" if shape["HKV"] != shape["H"] else "")
    lengths = f"{shape['S']}" + (f"-{shape['SKV']}" if shape["SKV"] != shape["S"] else "")
    return f"{shape['B']}_{heads}_{lengths}_{shape['D']}" + ("_causal" if shape["causal"] else "")


def attention_flops(shape):
    """4 B H D times the (query, key) pairs computed: S SKV, or under the bottom-right causal mask the pairs below
    it (as the spaces' Work formula counts them)."""
    s, skv = shape["S"], shape["SKV"]
    pairs = (s * skv - s * s / 2 if skv >= s else skv * skv / 2) if shape["causal"] else s * skv
    return 4 * shape["B"] * shape["H"] * shape["D"] * pairs


def attention_values(names, tensors, shape):
    """Values for the attention launchers' arguments: buffers by name (LSE, the rows' log-sum-exps [B, H, S]
    fp32, where the space writes them), sizes, the softmax scale."""
    return argument_values(names, tensors, {"Q": "q", "K": "k", "V": "v", "O": "o", "LSE": "lse"},
                           {"B": shape["B"], "H": shape["H"], "HKV": shape["HKV"], "S": shape["S"],
                            "SKV": shape["SKV"], "scale": 1.0 / math.sqrt(shape["D"])})


# --- attention backward --------------------------------------------------------------------------------------
BACKWARD_SHAPES = ["8,16,4096,64", "4,16,4096,128", "2,16,8192,128,causal", "4,32,1024,64"]
BACKWARD_SPACES = ["search_spaces/flash_attn_bwd_wgmma.json", "search_spaces/flash_attn_bwd_wgmma_bf16.json"]
BACKWARD_MAX_ABS_ERROR = 0.05


def backward_flops(shape):
    """The backward's five products (S and dP recomputed, dV, dK, dQ) against the forward's two: 2.5x."""
    return 2.5 * attention_flops(shape)


def backward_values(names, tensors, shape):
    """Values for the backward launchers' arguments: buffers by name, sizes, the softmax scale."""
    buffers = {"Q": "q", "K": "k", "V": "v", "O": "o", "dO": "do", "LSE": "lse", "dQ": "dq", "dK": "dk", "dV": "dv"}
    return argument_values(names, tensors, buffers,
                           {"B": shape["B"], "H": shape["H"], "HKV": shape["HKV"], "S": shape["S"],
                            "SKV": shape["SKV"], "scale": 1.0 / math.sqrt(shape["D"])})


def attention_forward_fp32(torch, q, k, v, shape):
    """O (of q's dtype) and the row log-sum-exps (fp32 [B, H, S]) as the forward saves them, in fp32 one batch
    entry at a time: grouped heads, the bottom-right causal mask, a row that sees no key 0 with lse 0."""
    b, h, hkv, s, skv, d = (shape[x] for x in ("B", "H", "HKV", "S", "SKV", "D"))
    o = torch.empty_like(q)
    lse = torch.empty(b, h, s, device=q.device, dtype=torch.float32)
    keys = torch.arange(skv, device=q.device)
    seen = keys[None, :] <= torch.arange(s, device=q.device)[:, None] + skv - s
    for i in range(b):
        kk = k[i].float().repeat_interleave(h // hkv, dim=0)
        vv = v[i].float().repeat_interleave(h // hkv, dim=0)
        scores = q[i].float() @ kk.transpose(1, 2) / math.sqrt(d)
        if shape["causal"]:
            scores = scores.masked_fill(~seen, float("-inf"))
        rows = torch.logsumexp(scores, dim=-1)
        empty = torch.isinf(rows)
        weights = torch.exp(scores - rows.masked_fill(empty, 0)[..., None])
        o[i] = (weights @ vv).to(q.dtype)
        lse[i] = rows.masked_fill(empty, 0)
    return o, lse


def sdpa_backends():
    """SDPA's backends by the names the tables use (SDPA_BACKENDS)."""
    from torch.nn.attention import SDPBackend
    return {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def gradient_errors(torch, tensors, shape, sdpa_options):
    """Largest |error| of tensors' dq, dk, dv against SDPA's math backend in fp32 over the first batch entry's
    first heads (and the K/V heads they read: with grouped heads dK and dV sum over the whole group, so the
    group is taken whole), from tensors' q, k, v and do."""
    import torch.nn.functional as functional
    from torch.nn.attention import SDPBackend, sdpa_kernel
    h, hkv = shape["H"], shape["HKV"]
    group = h // hkv
    kv_heads = max(1, min(h, 4) // group)
    heads = kv_heads * group
    q, k, v = (tensors[x][:1, :n].float().requires_grad_() for x, n in (("q", heads), ("k", kv_heads),
                                                                      ("v", kv_heads)))
    options = dict(sdpa_options, enable_gqa=group > 1)
    with sdpa_kernel([SDPBackend.MATH]):
        out = functional.scaled_dot_product_attention(q, k, v, **options)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), tensors["do"][:1, :heads].float())
    errors = {f"{name}_max_abs_error": (tensors[name][:1, :n].float() - expected).abs().max().item()
              for name, n, expected in (("dq", heads, dq), ("dk", kv_heads, dk), ("dv", kv_heads, dv))}
    return dict(errors, max_abs_error=max(errors.values()))


def output_error(torch, tensors, shape, sdpa_options):
    """Largest |error| of tensors' o against SDPA's math backend in fp32 over the first batch entry's first heads
    (the whole problem at once would need B*H*S*S floats; with grouped heads, the K/V heads those query heads
    read), from tensors' q, k and v."""
    import torch.nn.functional as functional
    from torch.nn.attention import SDPBackend, sdpa_kernel
    h, hkv = shape["H"], shape["HKV"]
    heads = min(h, 4)
    kv_heads = max(1, heads * hkv // h)
    q = tensors["q"][:1, :heads].float()
    k, v = (tensors[name][:1, :kv_heads].float() for name in "kv")
    if kv_heads * (h // hkv) != heads:  # fewer query heads than a group: their one K/V head
        k, v = k.repeat_interleave(heads, dim=1)[:, :heads], v.repeat_interleave(heads, dim=1)[:, :heads]
    options = dict(sdpa_options, enable_gqa=k.shape[1] != heads)
    with sdpa_kernel([SDPBackend.MATH]):
        expected = functional.scaled_dot_product_attention(q, k, v, **options)
    return (tensors["o"][:1, :heads].float() - expected).abs().max().item()


def sdpa_attention_options(shape):
    """SDPA's keyword arguments for the shape: grouped heads, and causal aligned to the bottom right (SDPA's
    is_causal aligns to the top left: with S != SKV the mask is explicit)."""
    bottom_right = shape["causal"] and shape["S"] != shape["SKV"]
    mask = None
    if bottom_right:
        from torch.nn.attention.bias import causal_lower_right
        mask = causal_lower_right(shape["S"], shape["SKV"])
    return dict(enable_gqa=shape["HKV"] != shape["H"], is_causal=shape["causal"] and not bottom_right,
                attn_mask=mask)


def gradient_inputs(torch, shape, args):
    """Q, K, V and dO of the shape in --dtype (uniform in [-1, 1)), and dQ, dK, dV to write."""
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    b, h, hkv, s, skv, d = (shape[x] for x in ("B", "H", "HKV", "S", "SKV", "D"))
    tensors = {name: torch.rand(*sizes, device="cuda", dtype=dtype) * 2 - 1
               for name, sizes in (("q", (b, h, s, d)), ("k", (b, hkv, skv, d)), ("v", (b, hkv, skv, d)),
                                   ("do", (b, h, s, d)))}
    for name in ("q", "k", "v"):
        tensors["d" + name] = torch.empty_like(tensors[name])
    return tensors


def compare_backward(torch, shape, args, work):
    import torch.nn.functional as functional
    from torch.nn.attention import sdpa_kernel
    backends = sdpa_backends()
    tensors = gradient_inputs(torch, shape, args)
    tensors["o"], tensors["lse"] = attention_forward_fp32(torch, tensors["q"], tensors["k"], tensors["v"], shape)
    sdpa_options = sdpa_attention_options(shape)
    leaves = [tensors[name].detach().clone().requires_grad_() for name in "qkv"]
    contenders = Contenders(torch, args)
    row = dict(shape, **backends_not_asked_for(args))
    for name in args.backends:
        try:
            # The forward on the stream the backward is captured on (autograd runs each backward op on its
            # forward op's stream).
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream), sdpa_kernel([backends[name]]):
                out = functional.scaled_dot_product_attention(*leaves, **sdpa_options)
            torch.cuda.current_stream().wait_stream(stream)

            def backward(out=out):  # the backward alone: the forward's graph is kept for every replay
                torch.autograd.grad(out, leaves, tensors["do"], retain_graph=True)
            row[name] = contenders.add(backward, backward_flops(shape), stream)
            del out
        except RuntimeError as e:  # the backend does not take this shape (or its backward)
            row[name] = {"error": str(e).splitlines()[0]}

    def error_of():
        return gradient_errors(torch, tensors, shape, sdpa_options)
    candidates = winner_candidates(torch, contenders, BACKWARD, shape, tensors,
                                   [tensors["dq"], tensors["dk"], tensors["dv"]], error_of, args, work)
    contenders.run()
    row.update(settled_candidates(candidates))
    set_ratio_to_best_backend(row)
    return row


# --- attention forward and backward (a training step's attention) --------------------------------------------
TRAINING_FORWARD_SPACES = ["search_spaces/flash_attn_fwd_wgmma.json", "search_spaces/flash_attn_fwd_wgmma_bf16.json"]


def training_flops(shape):
    """The forward's two products and the backward's five: 3.5x the forward's flops."""
    return 3.5 * attention_flops(shape)


def compare_training(torch, shape, args, work):
    """The forward (O and the row log-sum-exps) then the backward (dQ, dK, dV from dO), as an autograd step
    runs them: each SDPA backend's forward and torch.autograd.grad of its output in one captured call, against
    our forward space's winner then our backward space's winner (the forward of the same dtype among
    --forward-space), checked against SDPA's math backend in fp32 (O and the gradients)."""
    import torch.nn.functional as functional
    from torch.nn.attention import sdpa_kernel
    backends = sdpa_backends()
    tensors = gradient_inputs(torch, shape, args)
    tensors["o"] = torch.empty_like(tensors["q"])
    tensors["lse"] = torch.empty(shape["B"], shape["H"], shape["S"], device="cuda", dtype=torch.float32)
    sdpa_options = sdpa_attention_options(shape)
    leaves = [tensors[name].detach().clone().requires_grad_() for name in "qkv"]
    contenders = Contenders(torch, args)
    row = dict(shape, **backends_not_asked_for(args))
    for name in args.backends:  # a backend may not take the shape (or its backward)
        def step(backend=backends[name]):
            with sdpa_kernel([backend]):
                out = functional.scaled_dot_product_attention(*leaves, **sdpa_options)
            torch.autograd.grad(out, leaves, tensors["do"])
        row[name] = torch_contender(contenders, step, training_flops(shape))

    def error_of():
        errors = gradient_errors(torch, tensors, shape, sdpa_options)
        errors["o_max_abs_error"] = output_error(torch, tensors, shape, sdpa_options)
        errors["max_abs_error"] = max(errors["max_abs_error"], errors["o_max_abs_error"])
        return errors
    candidates = training_candidates(torch, contenders, shape, tensors, error_of, args, work)
    contenders.run()
    row.update(settled_candidates(candidates))
    set_ratio_to_best_backend(row)
    return row


def training_candidates(torch, contenders, shape, tensors, error_of, args, work):
    """For each backward space, our forward winner (of its dtype, among --forward-space) then its backward winner
    as one call, checked (O and the gradients) and added to `contenders`: one entry per backward space."""
    candidates = []
    for space_file in args.spaces:
        dtype_of_space = space_dtype(space_doc.load(space_file), BACKWARD["input"])
        forward_file = next((f for f in args.forward_spaces if f["dtype"] == dtype_of_space), None)
        if forward_file is None:
            candidates.append({"space": space_file, "error": f"no {dtype_of_space} forward space"})
            continue
        try:  # each call keeps its own workspace; the tensors are shared
            forward, forward_best, _ = load_winner(torch, ATTENTION, shape, forward_file["file"], tensors, args, work)
            backward, backward_best, backward_space = load_winner(torch, BACKWARD, shape, space_file, tensors, args,
                                                                  work)
        except RuntimeError as e:
            candidates.append({"space": space_file, "error": str(e)})
            continue

        def ours(forward=forward, backward=backward):
            forward()
            backward()
        tolerance = backward_space.get("Validation", {}).get("AbsoluteTolerance", BACKWARD_MAX_ABS_ERROR)
        config = (f"{backward_best['config_id']} after {os.path.basename(forward_file['file'])} "
                  f"#{forward_best['config_id']}")
        stored_forward, stored_backward = stored_time(forward_best), stored_time(backward_best)
        stored = None
        if stored_forward and stored_backward:
            stored = {"us": stored_forward["us"] + stored_backward["us"],
                      "mode": "sum of " + stored_backward["mode"]}
        candidates.append(checked_candidate(
            torch, contenders, ours, [tensors[name] for name in ("o", "lse", "dq", "dk", "dv")], error_of,
            tolerance, {"space": space_file, "config_id": config}, stored, training_flops(shape)))
    return candidates


# --- decode --------------------------------------------------------------------------------------------------
DECODE_SHAPES = ["1,32/8,1,4096,128", "8,32/8,1,32768,128", "64,64/8,1,32768,128", "8,32/8,1,32768,128,paged=64"]
DECODE_SPACES = ["search_spaces/decode_attn.json", "search_spaces/decode_attn_bf16.json"]
DECODE_MAX_ABS_ERROR = 0.02


def parse_decode_shape(text):
    """'B,HQ/HKV,SQ,SKV,D' followed by flags ('nocausal', 'paged=PAGE') -> dict(B, HQ, HKV, SQ, SKV, D, causal,
    page: 0 for a contiguous cache)."""
    parts = text.split(",")
    usage = f"shape '{text}': expected B,HQ/HKV,SQ,SKV,D[,nocausal][,paged=16|64|256]"
    if len(parts) < 5 or parts[1].count("/") != 1:
        raise ValueError(usage)
    hq, hkv = parts[1].split("/")
    try:
        shape = dict(B=int(parts[0]), HQ=int(hq), HKV=int(hkv), SQ=int(parts[2]), SKV=int(parts[3]), D=int(parts[4]),
                     causal=True, page=0)
    except ValueError:
        raise ValueError(usage) from None
    for flag in parts[5:]:
        if flag == "nocausal":
            shape["causal"] = False
        elif flag.startswith("paged=") and flag[6:] in ("16", "64", "256"):
            shape["page"] = int(flag[6:])
        else:
            raise ValueError(usage)
    if min(shape[k] for k in ("B", "HQ", "HKV", "SQ", "SKV", "D")) < 1 or shape["HQ"] % shape["HKV"]:
        raise ValueError(f"shape '{text}': sizes must be positive and HQ a multiple of HKV")
    return shape


def decode_problem(shape):
    return (f"B={shape['B']},HKV={shape['HKV']},G={shape['HQ'] // shape['HKV']},SQ={shape['SQ']},SKV={shape['SKV']},"
            f"D={shape['D']},CAUSAL={int(shape['causal'])},PAGED={int(shape['page'] > 0)}"
            + (f",PAGE={shape['page']}" if shape["page"] else ""))


def decode_tag(shape):
    return (f"{shape['B']}_{shape['HQ']}_{shape['HKV']}_{shape['SQ']}_{shape['SKV']}_{shape['D']}"
            + ("" if shape["causal"] else "_nocausal") + (f"_paged{shape['page']}" if shape["page"] else ""))


def decode_flops(shape):
    return 4.0 * shape["B"] * shape["HQ"] * shape["SQ"] * shape["SKV"] * shape["D"]


def decode_bytes(shape, element_bytes=2):
    """The K and V bytes a decode step must read: every cache row of every KV head once."""
    return 2.0 * shape["B"] * shape["SKV"] * shape["HKV"] * shape["D"] * element_bytes


def decode_values(names, tensors, shape):
    """Values for the decode launchers' arguments: buffers by name, then the sizes and the softmax scale."""
    buffers = {name: name for name in ("q", "k_cache", "v_cache", "cache_seqlens", "block_table", "o")}
    return argument_values(names, tensors, buffers,
                           {"batch": shape["B"], "hkv": shape["HKV"], "skv": shape["SKV"],
                            "total_rows": shape["B"] * shape["HQ"] * shape["SQ"], "scale": 1.0 / math.sqrt(shape["D"])})


# --- GEMM ----------------------------------------------------------------------------------------------------
GEMM_SHAPES = ["8192,8192,8192", "4096,4096,4096", "16,4096,4096,nt", "4096,14336,4096,nt",
               "4095,4097,4093", "1000,3000,2000", "77,5000,4096"]
GEMM_SPACES = ["search_spaces/gemm_wgmma.json", "search_spaces/gemm_wgmma_bf16.json"]
GEMM_MAX_ABS_ERROR = 1.0


def parse_gemm_shape(text):
    """'M,N,K' or 'M,N,K,nt' -> dict(M, N, K, nt)."""
    parts = text.split(",")
    if len(parts) not in (3, 4) or (len(parts) == 4 and parts[3] != "nt"):
        raise ValueError(f"shape '{text}': expected M,N,K or M,N,K,nt")
    shape = dict(zip("MNK", (int(x) for x in parts[:3])), nt=len(parts) == 4)
    if min(shape[k] for k in "MNK") < 1:
        raise ValueError(f"shape '{text}': sizes must be positive")
    return shape


def gemm_problem(shape):
    return f"M={shape['M']},N={shape['N']},K={shape['K']},B_KMAJOR={int(shape['nt'])}"


def gemm_tag(shape):
    return f"{shape['M']}_{shape['N']}_{shape['K']}" + ("_nt" if shape["nt"] else "")


def gemm_values(names, tensors, shape):
    return argument_values(names, tensors, {"A": "a", "B": "b", "bias": "bias", "D": "d"},
                           {"M": shape["M"], "N": shape["N"], "K": shape["K"]})


# --- the exported launcher -----------------------------------------------------------------------------------
def argument_type(space, argument_name):
    """The Type of the space's argument of that name (None where it has none)."""
    return next((argument["Type"] for argument in space["KernelSpecification"]["Arguments"]
                 if argument["Name"] == argument_name), None)


def space_dtype(space, argument_name):
    """'fp16' or 'bf16': the element type of the space's argument (None for another type)."""
    return SPACE_TYPES.get(argument_type(space, argument_name))


def space_output_dtype(space, argument_name):
    """'fp16', 'bf16' or 'fp32': the element type of the space's output argument (None for another type)."""
    return {**SPACE_TYPES, "float": "fp32"}.get(argument_type(space, argument_name))


def space_arch(space, arch):
    """The target for a space: the GPU's arch plus the space's ArchSuffix ("a": sm_90a for wgmma)."""
    suffix = space.get("KernelSpecification", {}).get("ArchSuffix", "")
    return arch if arch.endswith(suffix) else arch + suffix


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


def argument_values(names, tensors, buffers, scalars):
    """A launcher's argument values: `buffers` maps an argument to its tensor's key (needed only where the
    launcher takes it), `scalars` gives the rest; the workspace, where the launcher takes one, is
    tensors["workspace"]."""
    known = dict(scalars)
    known.update({name: tensors[key].data_ptr() for name, key in buffers.items() if name in names})
    if "workspace" in tensors:
        known["workspace"] = tensors["workspace"].data_ptr()
    missing = [name for name in names if name not in known]
    if missing:
        raise ValueError(f"the launcher takes arguments this script does not know: {missing}")
    return [known[name] for name in names]


def load_launcher(torch, library, space, tensors, values_for):
    """The exported launcher of `library` (a ctypes.CDLL) as a call on the current stream that raises on a CUDA
    error; its workspace, where it takes one, allocated into tensors["workspace"] and kept by the call (the next
    load replaces it in `tensors`)."""
    symbol, names, argtypes = launcher_signature(space)
    launcher = getattr(library, symbol)
    launcher.argtypes = argtypes
    launcher.restype = ctypes.c_int
    tensors.pop("workspace", None)
    if takes_workspace(space):
        size_symbol, size_names, size_types = workspace_signature(space)
        workspace_bytes = getattr(library, size_symbol)
        workspace_bytes.argtypes = size_types
        workspace_bytes.restype = ctypes.c_size_t
        size = workspace_bytes(*values_for(size_names, tensors))
        tensors["workspace"] = torch.empty(max(size, 1), device="cuda", dtype=torch.uint8)
    values = values_for(names, tensors)

    def call(workspace=tensors.get("workspace")):  # held: a graph of the call writes it after the next load
        status = launcher(*values, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        if status != 0:
            raise RuntimeError(f"{symbol} returned CUDA error {status}")
    return call


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {(result.stderr or result.stdout).strip().splitlines()[-1]}")
    return result.stdout


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


def build_winner(args, space_file, space, problem, tag, work):
    """Exports and builds a space's stored winner; returns (library path, its `best --json` entry)."""
    arch = space_arch(space, args.arch)
    best = json.loads(run([args.evotune, "best", space_file, "--problem", problem, "--db", args.db, "--json",
                           "--top", "1"]))
    if not best or best[0].get("status") != "ok":
        raise RuntimeError(f"no working variant of {os.path.basename(space_file)} stored for {problem}")
    best = best[0]
    # The launcher bakes in its problem, and dlopen hands back an already-loaded library for the same path:
    # one file per space, config and shape.
    stem = os.path.join(work, f"{os.path.splitext(os.path.basename(space_file))[0]}_{best['config_id']}_{tag}")
    run([args.evotune, "export", space_file, "--problem", problem, "--db", args.db, "--config",
         str(best["config_id"]), "--arch", arch, "-o", stem + ".cu"])
    run([args.nvcc, f"-arch={arch}", "-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared",
         "-o", stem + ".so", stem + ".cu"])
    return stem + ".so", best


# --- timing --------------------------------------------------------------------------------------------------
def captured_graph(torch, call, stream=None):
    """REPLAYS_PER_GRAPH calls of `call` captured in a CUDA graph, after 3 calls outside it (a call that fails
    raises there, before any capture). `stream`: the side stream to capture on (an autograd backward runs on its
    forward's stream, so a backward is captured on the stream its forward ran on)."""
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    stream = stream or torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream), torch.cuda.graph(graph, stream=stream, capture_error_mode="relaxed"):
        for _ in range(REPLAYS_PER_GRAPH):
            call()
    torch.cuda.synchronize()
    return graph


def replay_samples(torch, graph, reps, warmup, sync_each_replay=False):
    """Us per call of `reps` replays of `graph` after `warmup` untimed ones, sorted.

    The replays are queued back to back, each between its own pair of events, and read after one
    synchronisation: the GPU never waits for the host, as in evotune's graph timing. With sync_each_replay the
    host waits for each replay before queueing the next, so each sample also holds the graph's launch latency
    (a few us, spread over REPLAYS_PER_GRAPH calls)."""
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
    return sorted(start.elapsed_time(end) * 1000.0 / REPLAYS_PER_GRAPH for start, end in events)


def quantile(sorted_samples, fraction):
    return sorted_samples[int(fraction * (len(sorted_samples) - 1))]


def time_callable(torch, call, reps, warmup, sync_each_replay=False, stream=None):
    """Median and p20/p80 (us per call) of `call` timed alone: captured (captured_graph), then `warmup` replays
    and `reps` timed ones (replay_samples)."""
    samples = replay_samples(torch, captured_graph(torch, call, stream), reps, warmup, sync_each_replay)
    return {"us": statistics.median(samples), "p20_us": quantile(samples, 0.2), "p80_us": quantile(samples, 0.8)}


def rotated(count, round_number):
    """The order of `count` contenders in a round: round r starts at contender r mod count."""
    return [(round_number + i) % count for i in range(count)]


def rounds_summary(rounds, work_flops):
    """A contender's numbers from its rounds' samples: `us` the median of the rounds' medians (`rounds_us`),
    p20/p80 over every sample, TFLOP/s at `us`."""
    medians = [statistics.median(samples) for samples in rounds]
    pooled = sorted(sample for samples in rounds for sample in samples)
    us = statistics.median(medians)
    return {"us": us, "p20_us": quantile(pooled, 0.2), "p80_us": quantile(pooled, 0.8),
            "tflops": work_flops / us / 1e6, "rounds_us": medians}


class Contenders:
    """One shape's contenders (PyTorch's implementations, our candidates, decode's copy), timed in interleaved
    rounds so that the GPU's clock drift under its power cap (the same kernel's time wanders by several percent
    over tens of seconds) favours none by the order they are timed in. Each is captured once (add); run() then
    gives each, in every one of --rounds rounds, --warmup replays then --reps timed ones, round r in the order
    rotated to start at contender r mod n. --rounds 1 times each once, in the order added."""

    def __init__(self, torch, args):
        self.torch, self.args = torch, args
        self.nvml = getattr(args, "nvml", None)  # with --power: the device's counters, read around each replay set
        self.entries = []  # (graph, call, work_flops, result), in the order added

    def add(self, call, work_flops, stream=None, result=None):
        """Captures `call` (captured_graph: a call that fails raises, and is not added) and returns the dict that
        run() fills: `result` where given (a candidate's entry), else a new one. The call is kept with its graph:
        what it holds (the buffers and workspace the graph reads and writes) lives as long as the graph."""
        graph = captured_graph(self.torch, call, stream)
        result = {} if result is None else result
        self.entries.append((graph, call, work_flops, result))
        return result

    def run(self):
        """Times every contender in the rounds, fills each one's dict (rounds_summary), then releases the graphs
        (and their memory pools)."""
        rounds = [[] for _ in self.entries]
        windows = [[] for _ in self.entries]
        for round_number in range(self.args.rounds):
            for i in rotated(len(self.entries), round_number):
                with gpu_power.Window(self.nvml) if self.nvml else contextlib.nullcontext() as window:
                    rounds[i].append(replay_samples(self.torch, self.entries[i][0], self.args.reps,
                                                    self.args.warmup, self.args.sync_each_replay))
                if window:
                    windows[i].append(window)
        calls = self.args.rounds * (self.args.warmup + self.args.reps) * REPLAYS_PER_GRAPH
        for (graph, call, work_flops, result), samples, power in zip(self.entries, rounds, windows):
            result.update(rounds_summary(samples, work_flops))
            if power:
                result["power"] = gpu_power.summary(power, calls)
            if getattr(self.args, "kernels", False):  # after the rounds: the trace's overhead times nothing
                result["kernels"] = kernel_trace.graph_kernels(self.torch, graph, call, REPLAYS_PER_GRAPH)
        self.entries = []


def backends_not_asked_for(args):
    """The SDPA backends left out with --backend, each as an entry that says so (never timed)."""
    return {name: {"error": "not timed (--backend)"} for name in SDPA_BACKENDS if name not in args.backends}


def torch_contender(contenders, call, work_flops, stream=None):
    """One of PyTorch's implementations added to `contenders`, or {"error": first line} where it does not take
    the shape (or its build lacks it): it raises then, before the capture, and is never timed."""
    try:
        return contenders.add(call, work_flops, stream)
    except RuntimeError as e:
        return {"error": str(e).splitlines()[0]}


def set_ratio_to_best_backend(row, backends=SDPA_BACKENDS):
    """After the rounds, where ours and one of PyTorch's `backends` were timed: row["ratio"], the fastest
    backend's time over ours (> 1: ours is faster than every one), and row["ratio_rounds"], the median over the
    rounds of the same ratio within each round (that round's fastest backend over ours in that round)."""
    timed = [row[name] for name in backends if "us" in row[name]]
    ours = row["ours"]
    if not timed or not ours or "us" not in ours:
        return
    row["ratio"] = min(backend["us"] for backend in timed) / ours["us"]
    row["ratio_rounds"] = statistics.median(min(backend["rounds_us"][i] for backend in timed) / us
                                            for i, us in enumerate(ours["rounds_us"]))


def load_winner(torch, op, shape, space_file, tensors, args, work):
    """(call, `best --json` entry, space) of a space's exported winner for `shape`, its arguments from `tensors`
    (a workspace, where the launcher takes one, is put in tensors["workspace"] and kept by the call). Raises
    RuntimeError where the space stores no working variant for the shape."""
    space = space_doc.load(space_file)
    library_path, best = build_winner(args, space_file, space, op["problem"](shape), op["tag"](shape), work)
    call = load_launcher(torch, ctypes.CDLL(library_path), space, tensors,
                         lambda names, tensors: op["values"](names, tensors, shape))
    return call, best, space


def checked_candidate(torch, contenders, call, outputs, error_of, tolerance, entry, stored, work_flops):
    """One space's candidate: `call` run once on NaN-filled `outputs`, checked (error_of()'s max_abs_error
    against `tolerance`) and, where it passes, added to `contenders`. `entry` names it (space, config_id): with
    the errors and `stored` (stored_time's, or None), its times to come from the rounds; or with the error
    alone, never timed."""
    for each in outputs:
        each.fill_(float("nan"))
    call()
    torch.cuda.synchronize()
    error = error_of()
    if not error["max_abs_error"] <= tolerance:  # NaN fails too (the space's own: bf16 spaces allow more)
        return dict(entry, error=f"max |error| {error['max_abs_error']:.3g}")
    return contenders.add(call, work_flops, result=dict(entry, **error, stored=stored))


def fastest_candidate(candidates):
    """The fastest timed candidate, else the first (its error), else None."""
    fastest = [c for c in candidates if "us" in c]
    return min(fastest, key=lambda c: c["us"]) if fastest else (candidates[0] if candidates else None)


def settled_candidates(candidates):
    """After the rounds: each timed candidate's time over the stored one (vs_stored, None without one), and the
    fastest as "ours"."""
    for candidate in candidates:
        if "us" in candidate:
            stored = candidate["stored"]
            candidate["vs_stored"] = candidate["us"] / stored["us"] if stored else None
    return {"candidates": candidates, "ours": fastest_candidate(candidates)}


def winner_candidates(torch, contenders, op, shape, tensors, output, error_of, args, work):
    """Every space's exported winner for `shape`, loaded, run once on a NaN-filled `output` (or list of
    outputs), checked (error_of() against the space's AbsoluteTolerance) and added to `contenders`: one entry
    per space (settled_candidates picks "ours" after the rounds)."""
    candidates = []
    for space_file in args.spaces:
        try:
            ours, best, space = load_winner(torch, op, shape, space_file, tensors, args, work)
        except RuntimeError as e:
            candidates.append({"space": space_file, "error": str(e)})
            continue
        tolerance = space.get("Validation", {}).get("AbsoluteTolerance", op["max_abs_error"])
        candidates.append(checked_candidate(
            torch, contenders, ours, output if isinstance(output, (list, tuple)) else [output], error_of,
            tolerance, {"space": space_file, "config_id": best["config_id"]}, stored_time(best), op["flops"](shape)))
    return candidates


def compare_attention(torch, shape, args, work):
    import torch.nn.functional as functional
    from torch.nn.attention import sdpa_kernel
    backends = sdpa_backends()
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    b, h, hkv, s, skv, d = (shape[k] for k in ("B", "H", "HKV", "S", "SKV", "D"))
    tensors = {name: torch.rand(*sizes, device="cuda", dtype=dtype) * 2 - 1
               for name, sizes in (("q", (b, h, s, d)), ("k", (b, hkv, skv, d)), ("v", (b, hkv, skv, d)))}
    tensors["o"] = torch.empty_like(tensors["q"])
    tensors["lse"] = torch.empty(b, h, s, device="cuda", dtype=torch.float32)  # for the spaces that write it
    sdpa_options = sdpa_attention_options(shape)
    contenders = Contenders(torch, args)
    row = dict(shape, **backends_not_asked_for(args))
    for name in args.backends:
        def sdpa(backend=backends[name]):
            with sdpa_kernel([backend]):
                functional.scaled_dot_product_attention(tensors["q"], tensors["k"], tensors["v"], **sdpa_options)
        row[name] = torch_contender(contenders, sdpa, attention_flops(shape))

    def error_of():
        return {"max_abs_error": output_error(torch, tensors, shape, sdpa_options)}
    candidates = winner_candidates(torch, contenders, ATTENTION, shape, tensors, tensors["o"], error_of, args, work)
    contenders.run()
    row.update(settled_candidates(candidates))
    set_ratio_to_best_backend(row)
    return row


def compare_gemm(torch, shape, args, work):
    import torch.nn.functional as functional
    types = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
    dtype, out_dtype = types[args.dtype], types[args.out_dtype]
    m, n, k = shape["M"], shape["N"], shape["K"]
    tensors = {"a": torch.rand(m, k, device="cuda", dtype=dtype) * 2 - 1,
               "b": torch.rand(*((n, k) if shape["nt"] else (k, n)), device="cuda", dtype=dtype) * 2 - 1,
               "bias": torch.zeros(n, device="cuda", dtype=dtype),
               "d": torch.empty(m, n, device="cuda", dtype=out_dtype)}

    def cublas():
        if out_dtype != dtype:  # D in fp32 from 16-bit inputs: cuBLAS's fp32 output through torch.mm's out_dtype
            b = tensors["b"].t() if shape["nt"] else tensors["b"]
            try:
                torch.mm(tensors["a"], b, out_dtype=out_dtype)
            except TypeError as e:
                raise RuntimeError(f"torch.mm takes no out_dtype in PyTorch {torch.__version__}: {e}") from None
        elif shape["nt"]:
            functional.linear(tensors["a"], tensors["b"])
        else:
            torch.matmul(tensors["a"], tensors["b"])
    contenders = Contenders(torch, args)
    row = dict(shape, cublas=torch_contender(contenders, cublas, 2.0 * m * n * k))
    expected = tensors["a"].float() @ (tensors["b"].float().t() if shape["nt"] else tensors["b"].float())

    def error_of():
        difference = tensors["d"].float() - expected
        return {"max_abs_error": difference.abs().max().item(),
                "relative_l2_error": (difference.norm() / expected.norm()).item()}
    candidates = winner_candidates(torch, contenders, GEMM, shape, tensors, tensors["d"], error_of, args, work)
    contenders.run()
    row.update(settled_candidates(candidates))
    set_ratio_to_best_backend(row, ["cublas"])  # > 1: ours is faster than cuBLAS
    return row


def copy_contender(torch, contenders, gib=1.0):
    """A device-to-device copy of `gib` GiB added to `contenders`, timed like every kernel here: (its result,
    the bytes it moves, read plus written)."""
    source = torch.empty(int(gib * 2**30), device="cuda", dtype=torch.uint8)
    target = torch.empty_like(source)
    return contenders.add(lambda: target.copy_(source), 0.0), 2 * source.numel()


def compare_decode(torch, shape, args, work):
    import torch.nn.functional as functional
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = sdpa_backends()
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    b, hq, hkv, sq, skv, d, page = (shape[k] for k in ("B", "HQ", "HKV", "SQ", "SKV", "D", "page"))

    def uniform(*sizes):
        return torch.rand(*sizes, device="cuda", dtype=dtype) * 2 - 1
    tensors = {"q": uniform(b, hq, sq, d), "cache_seqlens": torch.full((b,), skv, device="cuda", dtype=torch.int32)}
    if page:  # a pool of pages, each sequence's in a shuffled order
        pages = -(-skv // page)
        tensors["k_cache"], tensors["v_cache"] = uniform(b * pages, page, hkv, d), uniform(b * pages, page, hkv, d)
        tensors["block_table"] = torch.randperm(b * pages, device="cuda").to(torch.int32).view(b, pages)
    else:
        tensors["k_cache"], tensors["v_cache"] = uniform(b, skv, hkv, d), uniform(b, skv, hkv, d)
        tensors["block_table"] = torch.zeros(1, device="cuda", dtype=torch.int32)
    tensors["o"] = torch.empty_like(tensors["q"])

    def heads_major(cache):  # SDPA's [B, HKV, SKV, D], gathered through the block table when paged
        rows = cache[tensors["block_table"].long()].reshape(b, -1, hkv, d)[:, :skv] if page else cache
        return rows.transpose(1, 2).contiguous()
    k, v = heads_major(tensors["k_cache"]), heads_major(tensors["v_cache"])
    # Causal decode is bottom-right aligned (query i sees keys up to SKV - SQ + i): SDPA's is_causal aligns to
    # the top left, so the mask is explicit; one query sees every key.
    mask = None
    if shape["causal"] and sq > 1:
        from torch.nn.attention.bias import causal_lower_right
        mask = causal_lower_right(sq, skv)
    contenders = Contenders(torch, args)
    row = dict(shape, **backends_not_asked_for(args))
    for name in args.backends:  # a backend may not take the shape (or grouped heads, or the mask)
        def sdpa(backend=backends[name]):
            with sdpa_kernel([backend]):
                functional.scaled_dot_product_attention(tensors["q"], k, v, attn_mask=mask, enable_gqa=True)
        row[name] = torch_contender(contenders, sdpa, decode_flops(shape))

    def error_of():
        q, kk, vv = tensors["q"][:1].float(), k[:1].float(), v[:1].float()
        with sdpa_kernel([SDPBackend.MATH]):
            expected = functional.scaled_dot_product_attention(q, kk, vv, attn_mask=mask, enable_gqa=True)
        return {"max_abs_error": (tensors["o"][:1].float() - expected).abs().max().item()}
    candidates = winner_candidates(torch, contenders, DECODE, shape, tensors, tensors["o"], error_of, args, work)
    copy, copy_bytes = copy_contender(torch, contenders)
    contenders.run()
    row.update(settled_candidates(candidates))
    set_ratio_to_best_backend(row)
    row["copy_gbps"] = copy_bytes / copy["us"] / 1e3
    if row["ours"] and "us" in row["ours"]:
        row["ours_gbps"] = decode_bytes(shape) / row["ours"]["us"] / 1e3
    return row


def decode_extra_cells(row):
    ours, copy = row.get("ours_gbps"), row.get("copy_gbps")
    return [f"{ours:.0f}" if ours else "-", f"{copy:.0f}" if copy else "-",
            f"{ours / copy:.2f}" if ours and copy else "-"]


# --- the table -----------------------------------------------------------------------------------------------
def aligned(lines):
    """Rows of cells as text, each column as wide as its widest cell."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines)


def format_power_table(rows, op):
    """One line per shape: op's shape cells, then each timed contender's clock, power and energy a call, and its
    SM cycles a call in millions (median time x median clock): under a power cap, two kernels of the same time
    can differ in clock, and the cycles show which one does more work a cycle."""
    unit = "MHz / W / mJ / Mcycles"
    header = op["header"] + [f"{name} {unit}" for name in op["torch"].values()] + [f"ours {unit}"]
    lines = [header]
    for row in rows:
        line = op["cells"](row)
        for key in list(op["torch"]) + ["ours"]:
            timed = row.get(key) or {}
            power = timed.get("power")
            cycles = f"{timed['us'] * power['sm_mhz'] / 1e6:.3g}" if power and "us" in timed else "-"
            line.append(f"{power['sm_mhz']:.0f} / {power['watts']:.0f} / {power['mj_per_call']:.3g} / {cycles}"
                        if power else "-")
        lines.append(line)
    return aligned(lines)


def format_table(rows, op):
    """One line per shape: op's shape cells, each of op's PyTorch implementations, then ours, the ratio of the
    medians and the median of the rounds' ratios."""
    header = op["header"] + [f"{name} us (TFLOP/s)" for name in op["torch"].values()] + [
        "ours us (TFLOP/s)", op["ratio"], op["ratio"] + " by round", "stored us", "ours/stored", "ours from"] + \
        op.get("extra_header", [])
    lines = [header]
    for row in rows:
        line = op["cells"](row)
        for key in list(op["torch"]) + ["ours"]:
            r = row.get(key)
            line.append(f"{r['us']:.1f} ({r['tflops']:.0f})" if r and "us" in r else "-")
        line.append(f"{row['ratio']:.2f}x" if row.get("ratio") else "-")
        line.append(f"{row['ratio_rounds']:.2f}x" if row.get("ratio_rounds") else "-")
        ours = row.get("ours") or {}
        stored = ours.get("stored")
        line.append(f"{stored['us']:.1f} ({stored['mode']})" if stored else "-")
        line.append(f"{ours['vs_stored']:.3f}" if ours.get("vs_stored") else "-")
        line.append(f"{os.path.basename(ours['space'])} #{ours['config_id']}" if "config_id" in ours
                    else ours.get("error", "-"))
        if "extra_cells" in op:
            line.extend(op["extra_cells"](row))
        lines.append(line)
    return aligned(lines)


def format_kernel_lines(rows, op):
    """--kernels: each row's timed contenders (op's PyTorch implementations, then every candidate of ours),
    each as kernel_trace.format_kernels' lines under the row's shape cells and the contender's name."""
    lines = []
    for row in rows:
        shape = " ".join(op["cells"](row))
        named = [(op["torch"][key], row[key]) for key in op["torch"] if "kernels" in (row.get(key) or {})]
        named += [(f"ours ({os.path.basename(c['space'])} #{c['config_id']})", c)
                  for c in row.get("candidates", []) if "kernels" in c]
        for name, timed in named:
            lines.extend(kernel_trace.format_kernels(f"{shape} {name}", timed["kernels"]))
    return lines


ATTENTION = {"parse": parse_attention_shape, "problem": attention_problem, "tag": attention_tag,
             "flops": attention_flops, "values": attention_values, "compare": compare_attention,
             "shapes": ATTENTION_SHAPES, "spaces": ATTENTION_SPACES, "input": "Q",
             "max_abs_error": ATTENTION_MAX_ABS_ERROR, "shape_help": "B,H[/HKV],S[/SKV],D[,causal]",
             "torch": {name: name for name in SDPA_BACKENDS}, "ratio": "ours/best", "against": "best backend's",
             "header": ["shape", "causal"],
             "cells": lambda row: [attention_tag(row).replace("_causal", "").replace("_", ",").replace("-", "/"),
                                  "yes" if row["causal"] else "no"]}
GEMM = {"parse": parse_gemm_shape, "problem": gemm_problem, "tag": gemm_tag,
        "flops": lambda shape: 2.0 * shape["M"] * shape["N"] * shape["K"], "values": gemm_values,
        "compare": compare_gemm, "shapes": GEMM_SHAPES, "spaces": GEMM_SPACES, "input": "A", "output": "D",
        "max_abs_error": GEMM_MAX_ABS_ERROR, "shape_help": "M,N,K[,nt]", "torch": {"cublas": "cuBLAS"},
        "ratio": "ours/cuBLAS", "against": "cuBLAS's", "header": ["M,N,K", "B"],
        "cells": lambda row: [f"{row['M']},{row['N']},{row['K']}", "[N,K]" if row["nt"] else "[K,N]"]}
DECODE = {"parse": parse_decode_shape, "problem": decode_problem, "tag": decode_tag, "flops": decode_flops,
          "values": decode_values, "compare": compare_decode, "shapes": DECODE_SHAPES, "spaces": DECODE_SPACES,
          "input": "q", "max_abs_error": DECODE_MAX_ABS_ERROR,
          "shape_help": "B,HQ/HKV,SQ,SKV,D[,nocausal][,paged=PAGE]",
          "torch": {name: name for name in SDPA_BACKENDS}, "ratio": "ours/best", "against": "best backend's",
          "header": ["B,HQ/HKV,SQ,SKV,D", "cache"],
          "cells": lambda row: [f"{row['B']},{row['HQ']}/{row['HKV']},{row['SQ']},{row['SKV']},{row['D']}"
                                + ("" if row["causal"] else " nocausal"),
                                f"paged {row['page']}" if row["page"] else "contiguous"],
          "extra_header": ["ours K/V GB/s", "copy GB/s", "ours/copy"], "extra_cells": decode_extra_cells}
BACKWARD = dict(ATTENTION, flops=backward_flops, values=backward_values, compare=compare_backward,
                shapes=BACKWARD_SHAPES, spaces=BACKWARD_SPACES, max_abs_error=BACKWARD_MAX_ABS_ERROR)
TRAINING = dict(BACKWARD, flops=training_flops, compare=compare_training)
OPERATIONS = {"attention": ATTENTION, "gemm": GEMM, "decode": DECODE, "backward": BACKWARD, "training": TRAINING}


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: expected a positive integer")
    return value


def parse_arguments(argv):
    """(operation, args) from the command line: the operation's name, then its options."""
    if not argv or argv[0] not in OPERATIONS:
        print(f"usage: compare_torch.py {{{'|'.join(OPERATIONS)}}} [options]  (--help after either for its options)",
              file=sys.stderr)
        raise SystemExit(2)
    name, op = argv[0], OPERATIONS[argv[0]]
    ap = argparse.ArgumentParser(prog=f"compare_torch.py {name}", description=__doc__.splitlines()[0])
    ap.add_argument("--shape", action="append", help=f"{op['shape_help']} (repeatable); default: {' '.join(op['shapes'])}")
    ap.add_argument("--space", action="append", help=f"search space (repeatable); default: {' '.join(op['spaces'])}")
    ap.add_argument("--db", default="results/evotune.db")
    ap.add_argument("--evotune", default="build/evotune")
    ap.add_argument("--nvcc", default=os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"))
    ap.add_argument("--arch", help="default: the GPU's (sm_XY)")
    ap.add_argument("--dtype", choices=["fp16", "bf16"], default="fp16",
                    help="element type of the inputs and output; spaces of the other type are left out")
    ap.add_argument("--reps", type=int, default=100, help="timed graph replays of each contender in each round")
    ap.add_argument("--warmup", type=int, default=10, help="untimed graph replays before each contender's timed ones")
    if op["torch"] == {name: name for name in SDPA_BACKENDS}:
        ap.add_argument("--backend", action="append", choices=SDPA_BACKENDS, dest="backends",
                        help="SDPA backend to time (repeatable; default: all three); those left out are not timed, "
                             "and ours/best is against the fastest of those timed")
    ap.add_argument("--power", action="store_true",
                    help="read the SM clock and board power (every 5 ms) and the energy counter (NVML) around each "
                         "contender's replays; a second table gives each one's median clock and power and its energy "
                         "a call")
    ap.add_argument("--kernels", action="store_true",
                    help="after the rounds, trace a few replays of each contender's graph (torch.profiler, CUDA "
                         "activities) and print each one's kernels: their time a call, and the gaps between them")
    ap.add_argument("--rounds", type=positive_int, default=5,
                    help="interleaved rounds, each timing every contender in turn, the order rotated from round to "
                         "round; a time is the median of its rounds' medians (1: each contender timed once, one "
                         "after the other)")
    ap.add_argument("--sync-each-replay", action="store_true",
                    help="wait for each replay before queueing the next (each sample then holds a graph launch latency)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    if name == "training":
        ap.add_argument("--forward-space", action="append",
                        help="forward space (repeatable; the one of each backward space's dtype runs first); default: "
                             + " ".join(TRAINING_FORWARD_SPACES))
    args = ap.parse_args(argv[1:])
    args.backends = getattr(args, "backends", None) or list(SDPA_BACKENDS)
    try:
        args.shapes = [op["parse"](text) for text in (args.shape or op["shapes"])]
    except ValueError as e:
        ap.error(str(e))
    args.spaces, documents = [], {}
    for space_file in args.space or op["spaces"]:
        documents[space_file] = space_doc.load(space_file)
        if space_dtype(documents[space_file], op["input"]) == args.dtype:
            args.spaces.append(space_file)
        else:
            print(f"{space_file}: not {args.dtype}, left out", file=sys.stderr)
    if not args.spaces:
        ap.error(f"no {args.dtype} space among " + ", ".join(args.space or op["spaces"]))
    args.out_dtype = args.dtype
    if op.get("output"):  # one output type a run: cuBLAS is timed writing it
        out_types = {space_file: space_output_dtype(documents[space_file], op["output"])
                     for space_file in args.spaces}
        if len(set(out_types.values())) > 1:
            ap.error("the spaces write " + op["output"] + " in different types ("
                     + ", ".join(f"{f}: {t}" for f, t in out_types.items()) + "): compare one type a run")
        args.out_dtype = next(iter(out_types.values())) or args.dtype
    args.forward_spaces = []
    for space_file in getattr(args, "forward_space", None) or (TRAINING_FORWARD_SPACES if name == "training" else []):
        dtype_of_space = space_dtype(space_doc.load(space_file), ATTENTION["input"])
        args.forward_spaces.append({"file": space_file, "dtype": dtype_of_space})
    return op, args


def method_line(torch, op, args):
    """The line above the table: the GPU, PyTorch, the dtype and how every time was taken."""
    out_dtype = getattr(args, "out_dtype", args.dtype)  # the output's type where a space names it
    dtype = args.dtype if out_dtype == args.dtype else f"{args.dtype} in, {out_dtype} out"
    return (f"{torch.cuda.get_device_name()}, PyTorch {torch.__version__}, {dtype}: median over {args.rounds} "
            f"interleaved rounds (the contenders' order rotated each round) of the median of {args.reps} replays "
            f"(after {args.warmup} untimed) of a CUDA graph of {REPLAYS_PER_GRAPH} calls, "
            f"{'each replay waited for' if args.sync_each_replay else 'replays queued back to back'}, no L2 flush; "
            f"{op['ratio']} = {op['against']} time / ours; by round: the median of that ratio within each round"
            + ("" if op is GEMM or args.backends == SDPA_BACKENDS else
               f"; SDPA backends timed: {', '.join(args.backends)} (--backend)"))


def main(argv):
    op, args = parse_arguments(argv)
    import torch
    torch.manual_seed(0)
    major, minor = torch.cuda.get_device_capability()
    args.arch = args.arch or f"sm_{major}{minor}"
    args.nvml = gpu_power.for_torch_device(torch) if args.power else None
    rows = []
    with tempfile.TemporaryDirectory(prefix="evotune-compare-") as work:
        for shape in args.shapes:
            row = op["compare"](torch, shape, args, work)
            row["device"] = torch.cuda.get_device_name()
            rows.append(row)
            print(format_table([row], op).splitlines()[-1], flush=True)
    print()
    print(method_line(torch, op, args))
    print(format_table(rows, op))
    if args.power:
        print()
        print("While each ran (NVML, every 5 ms through its rounds' replays, warm-ups included): median SM clock MHz / "
              "median board power W / energy a call mJ / SM cycles a call, millions (median time x median clock)")
        print(format_power_table(rows, op))
    if args.kernels:
        print()
        print("Each contender's device work a call, from a trace of "
              f"{kernel_trace.TRACED_REPLAYS} replays of its graph after the rounds (torch.profiler):")
        print("\n".join(format_kernel_lines(rows, op)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
