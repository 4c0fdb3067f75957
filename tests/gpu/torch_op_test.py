#!/usr/bin/env python3
"""The PyTorch op of `evotune export --torch` on a GPU: the wgmma space's eight recorded H100 problems are
replayed into a database (no tuning), exported, built with torch.utils.cpp_extension and through
build_so.sh (ctypes), and checked against F.scaled_dot_product_attention in fp32 at every tuned shape and two
untuned ones, inside a CUDA graph and under torch.compile(fullgraph=True), and for its errors: fp32 input, a
CPU tensor, a non-contiguous tensor, an untuned head dimension and is_causal; and that an empty sequence
(S = 0) gives an empty output. Grouped heads (k and v of HKV heads) and a key length of their own (SKV != S)
against SDPA with enable_gqa=True. Its twin <op>_with_lse, both ways: (o, lse) with o the op's own and lse,
the rows' log-sum-exps [B, H, S] fp32, against torch.logsumexp of the fp32 scores, under torch.compile too.
Exported without backward spaces, a backward pass through either op raises, saying what to export.

Usage: tests/gpu/torch_op_test.py EVOTUNE   (from the repository root). Exit 77: no GPU or no PyTorch."""
import math
import os
import subprocess
import sys
import tempfile

SKIP = 77
SPACE = "search_spaces/flash_attn_fwd_wgmma.json"
TUNED = [(1, 8, 512), (1, 8, 1024), (1, 8, 2048), (1, 8, 4096), (2, 8, 1000), (4, 8, 1024), (8, 8, 512),
         (2, 16, 2048)]
UNTUNED = [(2, 4, 300), (1, 8, 768)]
GROUPED = [(2, 8, 2, 512, 512), (1, 8, 1, 300, 700), (2, 16, 2, 1000, 77)]  # B, H, HKV, S, SKV
TOLERANCE = 0.02  # the space's AbsoluteTolerance

failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message, flush=True)
    if not condition:
        failures.append(message)


def expect_error(call, words, what):
    try:
        call()
    except RuntimeError as error:
        check(words in str(error), f"{what}: {str(error).splitlines()[0]}")
        return
    check(False, f"{what}: no error raised")


def torch_on_hopper(test):
    """(torch, torch.nn.functional), or None after saying why `test` skips: no PyTorch, no GPU, not sm_90."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print(f"{test}: SKIP: PyTorch is not installed")
        return None
    if not torch.cuda.is_available():
        print(f"{test}: SKIP: no CUDA GPU visible to PyTorch")
        return None
    if torch.cuda.get_device_capability() != (9, 0):
        print(f"{test}: SKIP: the wgmma spaces need compute capability 9.0, this GPU has "
              f"{torch.cuda.get_device_capability()}")
        return None
    return torch, F


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    evotune = os.path.abspath(sys.argv[1])
    found = torch_on_hopper("torch_op_test")
    if found is None:
        return SKIP
    torch, F = found

    work = tempfile.mkdtemp(prefix="evotune_torch_op_")
    db = os.path.join(work, "results.db")
    problems = os.path.join(work, "problems.txt")
    with open(problems, "w") as out:
        out.writelines(f"B={b},H={h},S={s},D=64\n" for b, h, s in TUNED)
    replays = []
    for b, h, s in TUNED:
        replays += ["--replay", f"tests/data/sweeps/wgmma_h100_B_{b}_H_{h}_S_{s}_D_64.json"]
    subprocess.run([evotune, "tune", SPACE, "--problems", problems, "--strategy", "exhaustive", "--rerank", "0",
                    "--db", db] + replays, check=True, stdout=subprocess.DEVNULL)
    folder = os.path.join(work, "op")
    subprocess.run([evotune, "export", SPACE, "--torch", folder, "--db", db], check=True)
    prebuilt = subprocess.Popen(["bash", os.path.join(folder, "build_so.sh")])  # builds beside the extension

    sys.path.insert(0, folder)
    import load

    op = load.build(build_directory=folder)
    torch.manual_seed(0)

    def inputs(b, h, s, d=64, dtype=torch.float16):
        return [torch.randn(b, h, s, d, device="cuda", dtype=dtype) for _ in range(3)]

    def error_of(out, q, k, v):
        expected = F.scaled_dot_product_attention(q.float(), k.float(), v.float())
        return (out.float() - expected).abs().max().item()

    def correct(attention, label):
        for b, h, s in TUNED + UNTUNED:
            q, k, v = inputs(b, h, s)
            worst = error_of(attention(q, k, v), q, k, v)
            kind = "tuned" if (b, h, s) in TUNED else "untuned"
            check(worst <= TOLERANCE, f"{label}: B={b},H={h},S={s},D=64 ({kind}): max abs error {worst:.2e}")

    correct(op, "torch.ops.evotune")

    def grouped(attention, label):
        for b, h, hkv, s, skv in GROUPED:
            q = torch.randn(b, h, s, 64, device="cuda", dtype=torch.float16)
            k, v = (torch.randn(b, hkv, skv, 64, device="cuda", dtype=torch.float16) for _ in range(2))
            expected = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), enable_gqa=True)
            worst = (attention(q, k, v).float() - expected).abs().max().item()
            check(worst <= TOLERANCE, f"{label}: B={b},H={h},HKV={hkv},S={s},SKV={skv} against SDPA(enable_gqa="
                  f"True): max abs error {worst:.2e}")

    grouped(op, "torch.ops.evotune")

    def lse_error(lse, q, k):
        scores = q.float() @ k.float().transpose(-1, -2) / math.sqrt(q.shape[-1])
        return (lse - torch.logsumexp(scores, dim=-1)).abs().max().item()

    def with_lse(attention_with_lse, attention, label):
        """(o, lse): o the op's own, lse the rows' log-sum-exps [B, H, S] fp32 (natural log)."""
        for b, h, s in TUNED + UNTUNED:
            q, k, v = inputs(b, h, s)
            o, lse = attention_with_lse(q, k, v)
            check(lse.dtype == torch.float32 and tuple(lse.shape) == (b, h, s),
                  f"{label}: lse is {lse.dtype} of shape {tuple(lse.shape)}")
            check(torch.equal(o, attention(q, k, v)), f"{label}: B={b},H={h},S={s}: o is the op's")
            worst = lse_error(lse, q, k)
            check(worst <= TOLERANCE, f"{label}: B={b},H={h},S={s},D=64: lse max abs error {worst:.2e}")
        o, lse = attention_with_lse(*inputs(1, 8, 0))
        check(tuple(o.shape) == (1, 8, 0, 64) and tuple(lse.shape) == (1, 8, 0),
              f"{label}: S = 0 gives shapes {tuple(o.shape)}, {tuple(lse.shape)}")
        compiled = torch.compile(lambda q, k, v: attention_with_lse(q, k, v)[1] * 2.0, fullgraph=True)
        q, k, v = inputs(2, 4, 300)
        worst = lse_error(compiled(q, k, v) / 2.0, q, k)
        check(worst <= TOLERANCE, f"{label}: lse under torch.compile(fullgraph=True): max abs error {worst:.2e}")

    with_lse(getattr(torch.ops.evotune, load.NAME + "_with_lse"), op, "torch.ops.evotune (with lse)")

    def empty_sequence(attention, label):
        q, k, v = inputs(1, 8, 0)
        try:
            out = attention(q, k, v)
            check(tuple(out.shape) == (1, 8, 0, 64), f"{label}: S = 0 gives shape {tuple(out.shape)}")
        except RuntimeError as error:
            check(False, f"{label}: S = 0 refused: {error}")

    empty_sequence(op, "torch.ops.evotune")

    q, k, v = inputs(2, 8, 1000)
    static = [x.clone() for x in (q, k, v)]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        op(*static)  # warm-up outside the capture (shared-memory attributes are set once)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = op(*static)
    for x, y in zip(static, inputs(2, 8, 1000)):
        x.copy_(y)
    graph.replay()
    torch.cuda.synchronize()
    check(error_of(captured, *static) <= TOLERANCE, "a CUDA graph replays the op on new inputs")

    compiled = torch.compile(lambda q, k, v: op(q, k, v) * 2.0, fullgraph=True)
    q, k, v = inputs(1, 8, 768)
    worst = error_of(compiled(q, k, v) / 2.0, q, k, v)
    check(worst <= TOLERANCE, f"torch.compile(fullgraph=True): max abs error {worst:.2e}")

    def refusals(attention, label):
        q, k, v = inputs(1, 8, 512)
        expect_error(lambda: attention(q.float(), k.float(), v.float()), "must be float16", f"{label}: fp32 input")
        expect_error(lambda: attention(q.cpu(), k.cpu(), v.cpu()), "must be a CUDA tensor", f"{label}: CPU tensors")
        t = torch.randn(1, 512, 8, 64, device="cuda", dtype=torch.float16).transpose(1, 2)
        expect_error(lambda: attention(t, k, v), "must be contiguous", f"{label}: a non-contiguous q")
        q128, k128, v128 = inputs(1, 8, 512, 128)
        expect_error(lambda: attention(q128, k128, v128), "no variant was tuned for these compile-time sizes",
                     f"{label}: D=128 (untuned)")
        expect_error(lambda: attention(q, k, v, True), "no variant was tuned for these compile-time sizes",
                     f"{label}: is_causal=True (untuned)")

    refusals(op, "torch.ops.evotune")

    def no_backward(attention, attention_with_lse, label):
        q, k, v = (x.requires_grad_() for x in inputs(1, 8, 512))
        for what, call in [("op", lambda: attention(q, k, v).sum().backward()),
                           ("(o, lse) op", lambda: attention_with_lse(q, k, v)[0].sum().backward())]:
            expect_error(call, "has no backward: export the backward spaces beside the forward ones (evotune export "
                         "FWD_FP16 FWD_BF16 BWD_FP16 BWD_BF16 --torch DIR)",
                         f"{label}: a backward pass through the {what} exported without backward spaces")

    no_backward(op, getattr(torch.ops.evotune, load.NAME + "_with_lse"), "torch.ops.evotune")

    check(prebuilt.wait() == 0, "build_so.sh built the ctypes library")
    if prebuilt.returncode == 0:
        ctypes_op = load.load_prebuilt()
        correct(ctypes_op, "ctypes")
        with_lse(getattr(torch.ops.evotune_prebuilt, load.NAME + "_with_lse"), ctypes_op, "ctypes (with lse)")
        empty_sequence(ctypes_op, "ctypes")
        refusals(ctypes_op, "ctypes")
        grouped(ctypes_op, "ctypes")
        no_backward(ctypes_op, getattr(torch.ops.evotune_prebuilt, load.NAME + "_with_lse"), "ctypes")
        compiled = torch.compile(lambda q, k, v: ctypes_op(q, k, v), fullgraph=True)
        q, k, v = inputs(2, 4, 300)
        check(error_of(compiled(q, k, v), q, k, v) <= TOLERANCE, "ctypes op under torch.compile(fullgraph=True)")

    print(f"torch_op_test: {'FAILED: ' + '; '.join(failures) if failures else 'all passed'} ({work})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
