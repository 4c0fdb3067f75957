#!/usr/bin/env python3
"""`evotune export --torch` for both families and both dtypes on a GPU: one op over an fp16 space and its bf16
twin, dispatching on the inputs' dtype.

GEMM: gemm_wgmma.json and gemm_wgmma_bf16.json, each tuned briefly on this GPU (evolve, 2 configs a problem)
at M=256,N=256,K=512 with B [K, N] and with B [N, K] plus bias, and at 77 x 137 x 75 with B [K, N] (so that a
variant valid where N is no multiple of 8 is exported: the TMA epilogue is refused there), exported as one op,
built with torch.utils.cpp_extension and through build_so.sh (ctypes), and checked against torch.matmul and
F.linear in fp32 at the tuned and untuned sizes (odd M, a batched a), inside a CUDA graph and under
torch.compile(fullgraph=True), at K and N that are no multiple of 8 (rows TMA cannot address: the op stages
them), for its errors (fp32, mixed dtypes, a CPU tensor, a non-contiguous b, mismatched K, an untuned
compile-time size) and for its empty products (M, N or K = 0). The fp32-D twins (gemm_wgmma_out_f32.json and
its bf16 twin), tuned the same way, as an op of their own whose output is fp32 from either input dtype.

Attention: flash_attn_fwd_wgmma.json from two recorded H100 sweeps (replayed) and its bf16 twin tuned
briefly on this GPU, exported as one op and checked against F.scaled_dot_product_attention in fp32 in both
dtypes, in a CUDA graph and under torch.compile, and for mixed and untuned dtypes; its twin <op>_with_lse's
rows' log-sum-exps (fp32 in both dtypes) against torch.logsumexp of the fp32 scores.

Usage: tests/gpu/torch_op_dtypes_test.py EVOTUNE   (from the repository root). Exit 77: no GPU or no PyTorch."""
import os
import subprocess
import sys
import tempfile

from torch_op_test import SKIP, check, expect_error, failures, torch_on_hopper

GEMM_SPACES = ["search_spaces/gemm_wgmma.json", "search_spaces/gemm_wgmma_bf16.json"]
GEMM_FP32_SPACES = ["search_spaces/gemm_wgmma_out_f32.json", "search_spaces/gemm_wgmma_bf16_out_f32.json"]
# The third: rows that TMA cannot address (staged by the op) and N not a multiple of 8, where the TMA epilogue is
# refused; tuned, so that a variant valid at such sizes is exported whichever two configs the brief tune times.
GEMM_PROBLEMS = ["M=256,N=256,K=512,B_KMAJOR=0,BIAS=0,ACT=0", "M=256,N=256,K=512,B_KMAJOR=1,BIAS=1,ACT=0",
                 "M=77,N=137,K=75,B_KMAJOR=0,BIAS=0,ACT=0"]
ATTENTION_SPACES = ["search_spaces/flash_attn_fwd_wgmma.json", "search_spaces/flash_attn_fwd_wgmma_bf16.json"]
ATTENTION_TUNED = [(1, 8, 512), (2, 8, 1000)]
ATTENTION_TOLERANCE = {"float16": 0.02, "bfloat16": 0.04}  # the spaces' AbsoluteTolerance


def tune(evotune, space, problems, db, replays=()):
    """`space` at `problems`: from recorded sweeps when `replays` are given, else 2 configs a problem on this GPU."""
    for i, problem in enumerate(problems):
        extra = ["--strategy", "exhaustive", "--replay", replays[i]] if replays else [
            "--strategy", "evolve", "--budget", "2", "--seed", "1"]
        subprocess.run([evotune, "tune", space, "--problem", problem, "--rerank", "0", "--db", db] + extra,
                       check=True, stdout=subprocess.DEVNULL)


def export(evotune, spaces, name, db, folder):
    subprocess.run([evotune, "export"] + spaces + ["--torch", folder, "--name", name, "--db", db], check=True)
    prebuilt = subprocess.Popen(["bash", os.path.join(folder, "build_so.sh")], stdout=subprocess.DEVNULL)
    sys.path.insert(0, folder)
    import importlib
    load = importlib.import_module("load")
    sys.path.pop(0)
    sys.modules.pop("load")  # the other op's folder has a load.py too
    return load, load.build(build_directory=folder), prebuilt


def tuned_gemm_op(evotune, work, spaces, name):
    """`spaces` tuned briefly at GEMM_PROBLEMS into one database and exported as the op `name`: export's
    (load, op, prebuilt)."""
    db = os.path.join(work, name + ".db")
    for space in spaces:
        tune(evotune, space, GEMM_PROBLEMS, db)
    return export(evotune, spaces, name, db, os.path.join(work, name + "_op"))


def replayed(torch, op, static, **kwargs):
    """op(*static, **kwargs) captured in a CUDA graph (after a warm-up outside it, where shared-memory
    attributes are set once) and replayed after `static` was redrawn: the captured output."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        op(*static, **kwargs)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = op(*static, **kwargs)
    for x in static:
        x.uniform_(-1, 1)
    graph.replay()
    torch.cuda.synchronize()
    return captured


def gemm_tests(evotune, work, torch, F):
    load, op, prebuilt = tuned_gemm_op(evotune, work, GEMM_SPACES, "gemm_dtypes")

    def rand(*shape, dtype):
        return torch.empty(*shape, device="cuda", dtype=dtype).uniform_(-1, 1)

    def error(out, expected):
        """Max abs error against the fp32 result, over the result's largest magnitude."""
        return ((out.float() - expected).abs().max() / expected.abs().max().clamp(min=1)).item()

    tolerance = {torch.float16: 2e-3, torch.bfloat16: 1e-2}

    def correct(gemm, label):
        for dtype in (torch.float16, torch.bfloat16):
            name = str(dtype).replace("torch.", "")
            for m, n, k in [(256, 256, 512), (77, 136, 72), (1000, 256, 512), (1, 512, 256), (64, 100, 100),
                            (77, 137, 75)]:  # the last two: rows TMA cannot address, staged by the op
                a, b = rand(m, k, dtype=dtype), rand(k, n, dtype=dtype)
                worst = error(gemm(a, b), torch.matmul(a.float(), b.float()))
                check(worst <= tolerance[dtype], f"{label} {name}: matmul {m}x{n}x{k}: relative error {worst:.1e}")
            for shape in [(256, 512), (4, 33, 512)]:  # F.linear's x, batched too
                x, w, bias = rand(*shape, dtype=dtype), rand(256, 512, dtype=dtype), rand(256, dtype=dtype)
                worst = error(gemm(x, w, bias, b_kmajor=True), F.linear(x.float(), w.float(), bias.float()))
                check(worst <= tolerance[dtype], f"{label} {name}: F.linear x {list(shape)}: relative error {worst:.1e}")
                out = gemm(x, w, bias, b_kmajor=True)
                check(out.dtype == dtype and tuple(out.shape) == shape[:-1] + (256,),
                      f"{label} {name}: F.linear gives {tuple(out.shape)} {out.dtype}")

    def empty(gemm, label):
        a, b, bias = rand(0, 512, dtype=torch.float16), rand(256, 512, dtype=torch.float16), rand(256, dtype=torch.float16)
        check(tuple(gemm(a, b, bias, b_kmajor=True).shape) == (0, 256), f"{label}: M = 0 gives an empty output")
        a, b = rand(64, 0, dtype=torch.bfloat16), rand(0, 128, dtype=torch.bfloat16)
        out = gemm(a, b)
        check(tuple(out.shape) == (64, 128) and out.abs().max().item() == 0, f"{label}: K = 0 gives zeros")
        out = gemm(rand(64, 512, dtype=torch.float16), rand(0, 512, dtype=torch.float16), b_kmajor=True)
        check(tuple(out.shape) == (64, 0), f"{label}: N = 0 gives an empty output")

    def refusals(gemm, label):
        a, b = rand(256, 512, dtype=torch.float16), rand(512, 256, dtype=torch.float16)
        expect_error(lambda: gemm(a.float(), b.float()), "must be float16 or bfloat16", f"{label}: fp32 inputs")
        expect_error(lambda: gemm(a, b.bfloat16()), "b is bfloat16 but a is float16", f"{label}: mixed dtypes")
        expect_error(lambda: gemm(a.cpu(), b.cpu()), "must be a CUDA tensor", f"{label}: CPU tensors")
        expect_error(lambda: gemm(a, rand(256, 512, dtype=torch.float16).t()), "must be contiguous",
                     f"{label}: a non-contiguous b")
        expect_error(lambda: gemm(a, rand(256, 256, dtype=torch.float16)), "has shape [256, 256]",
                     f"{label}: mismatched K")
        expect_error(lambda: gemm(a, b, rand(256, dtype=torch.float16)),
                     "no variant was tuned for these compile-time sizes", f"{label}: bias with b [K, N] (untuned)")

    correct(op, "torch.ops.evotune")
    empty(op, "torch.ops.evotune")
    refusals(op, "torch.ops.evotune")

    for dtype in (torch.float16, torch.bfloat16):
        static = [rand(300, 512, dtype=dtype), rand(256, 512, dtype=dtype), rand(256, dtype=dtype)]
        captured = replayed(torch, op, static, b_kmajor=True)
        worst = error(captured, F.linear(*[x.float() for x in static]))
        check(worst <= tolerance[dtype], f"{dtype}: a CUDA graph replays the op on new inputs ({worst:.1e})")
        compiled = torch.compile(lambda x, w, bias: op(x, w, bias, b_kmajor=True) * 2.0, fullgraph=True)
        x, w, bias = rand(2, 50, 512, dtype=dtype), rand(256, 512, dtype=dtype), rand(256, dtype=dtype)
        worst = error(compiled(x, w, bias) / 2.0, F.linear(x.float(), w.float(), bias.float()))
        check(worst <= tolerance[dtype], f"{dtype}: torch.compile(fullgraph=True): relative error {worst:.1e}")

    check(prebuilt.wait() == 0, "gemm: build_so.sh built the ctypes library")
    if prebuilt.returncode == 0:
        ctypes_op = load.load_prebuilt()
        correct(ctypes_op, "ctypes")
        empty(ctypes_op, "ctypes")
        refusals(ctypes_op, "ctypes")


def gemm_fp32_tests(evotune, work, torch, F):
    """The fp32-D twins (gemm_wgmma_out_f32.json, gemm_wgmma_bf16_out_f32.json) as one op of their own: D in
    fp32 from fp16 or bf16 inputs, against torch.matmul and F.linear in fp32, in a CUDA graph and under
    torch.compile (whose fake tensor must be fp32 too), K = 0, and through the ctypes library."""
    load, op, prebuilt = tuned_gemm_op(evotune, work, GEMM_FP32_SPACES, "gemm_out_f32")

    def rand(*shape, dtype):
        return torch.empty(*shape, device="cuda", dtype=dtype).uniform_(-1, 1)

    def error(out, expected):
        return ((out - expected).abs().max() / expected.abs().max().clamp(min=1)).item()

    previous_tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False  # the fp32 products compared with are fp32's own
    tolerance = 1e-4  # fp32 sums in another order; a D rounded through fp16 would be off by up to 2.4e-4

    def correct(gemm, label):
        for dtype in (torch.float16, torch.bfloat16):
            name = str(dtype).replace("torch.", "")
            for m, n, k in [(256, 256, 512), (77, 137, 75), (1, 512, 256)]:
                a, b = rand(m, k, dtype=dtype), rand(k, n, dtype=dtype)
                out = gemm(a, b)
                worst = error(out, torch.matmul(a.float(), b.float()))
                check(out.dtype == torch.float32 and worst <= tolerance,
                      f"{label} {name} -> fp32: matmul {m}x{n}x{k}: {out.dtype}, relative error {worst:.1e}")
            x, w, bias = rand(4, 33, 512, dtype=dtype), rand(256, 512, dtype=dtype), rand(256, dtype=dtype)
            out = gemm(x, w, bias, b_kmajor=True)
            worst = error(out, F.linear(x.float(), w.float(), bias.float()))
            check(out.dtype == torch.float32 and tuple(out.shape) == (4, 33, 256) and worst <= tolerance,
                  f"{label} {name} -> fp32: F.linear: {tuple(out.shape)} {out.dtype}, relative error {worst:.1e}")
        out = gemm(rand(64, 0, dtype=torch.float16), rand(0, 128, dtype=torch.float16))
        check(out.dtype == torch.float32 and out.abs().max().item() == 0, f"{label}: K = 0 gives fp32 zeros")

    correct(op, "torch.ops.evotune")
    static = [rand(300, 512, dtype=torch.bfloat16), rand(256, 512, dtype=torch.bfloat16),
              rand(256, dtype=torch.bfloat16)]
    captured = replayed(torch, op, static, b_kmajor=True)
    worst = error(captured, F.linear(*[x.float() for x in static]))
    check(worst <= tolerance, f"bf16 -> fp32: a CUDA graph replays the op on new inputs ({worst:.1e})")
    compiled = torch.compile(lambda x, w, bias: op(x, w, bias, b_kmajor=True) + 1.0, fullgraph=True)
    x, w, bias = (rand(2, 50, 512, dtype=torch.float16), rand(256, 512, dtype=torch.float16),
                  rand(256, dtype=torch.float16))
    out = compiled(x, w, bias)
    worst = error(out - 1.0, F.linear(x.float(), w.float(), bias.float()))
    check(out.dtype == torch.float32 and worst <= tolerance,
          f"fp16 -> fp32: torch.compile(fullgraph=True): {out.dtype}, relative error {worst:.1e}")
    check(prebuilt.wait() == 0, "gemm fp32: build_so.sh built the ctypes library")
    if prebuilt.returncode == 0:
        correct(load.load_prebuilt(), "ctypes")
    torch.backends.cuda.matmul.allow_tf32 = previous_tf32


def attention_tests(evotune, work, torch, F):
    db = os.path.join(work, "attention.db")
    problems = [f"B={b},H={h},S={s},D=64" for b, h, s in ATTENTION_TUNED]
    tune(evotune, ATTENTION_SPACES[0], problems, db,
         [f"tests/data/sweeps/wgmma_h100_B_{b}_H_{h}_S_{s}_D_64.json" for b, h, s in ATTENTION_TUNED])
    tune(evotune, ATTENTION_SPACES[1], problems, db)
    load, op, prebuilt = export(evotune, ATTENTION_SPACES, "attention_dtypes", db, os.path.join(work, "attention_op"))

    def inputs(b, h, s, dtype):
        return [torch.randn(b, h, s, 64, device="cuda", dtype=dtype) for _ in range(3)]

    def error(out, q, k, v):
        return (out.float() - F.scaled_dot_product_attention(q.float(), k.float(), v.float())).abs().max().item()

    def correct(attention, label):
        for dtype in (torch.float16, torch.bfloat16):
            name = str(dtype).replace("torch.", "")
            for b, h, s in ATTENTION_TUNED + [(2, 4, 300)]:
                q, k, v = inputs(b, h, s, dtype)
                out = attention(q, k, v)
                worst = error(out, q, k, v)
                check(out.dtype == dtype and worst <= ATTENTION_TOLERANCE[name],
                      f"{label} {name}: B={b},H={h},S={s},D=64: max abs error {worst:.2e}")

    correct(op, "torch.ops.evotune")

    def correct_lse(attention_with_lse, label):
        for dtype in (torch.float16, torch.bfloat16):
            name = str(dtype).replace("torch.", "")
            for b, h, s in ATTENTION_TUNED + [(2, 4, 300)]:
                q, k, v = inputs(b, h, s, dtype)
                o, lse = attention_with_lse(q, k, v)
                scores = q.float() @ k.float().transpose(-1, -2) / 8.0  # 1 / sqrt(64)
                worst = (lse - torch.logsumexp(scores, dim=-1)).abs().max().item()
                check(o.dtype == dtype and lse.dtype == torch.float32 and error(o, q, k, v) <= ATTENTION_TOLERANCE[name]
                      and worst <= ATTENTION_TOLERANCE[name],
                      f"{label} {name}: B={b},H={h},S={s},D=64: lse max abs error {worst:.2e}")

    correct_lse(torch.ops.evotune.attention_dtypes_with_lse, "torch.ops.evotune (with lse)")
    q, k, v = inputs(1, 8, 512, torch.float16)
    expect_error(lambda: op(q.float(), k.float(), v.float()), "must be float16 or bfloat16", "attention: fp32")
    expect_error(lambda: op(q, k.bfloat16(), v), "k is bfloat16 but q is float16", "attention: mixed dtypes")
    for dtype in (torch.float16, torch.bfloat16):
        static = inputs(2, 8, 1000, dtype)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            op(*static)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            captured = op(*static)
        for x, y in zip(static, inputs(2, 8, 1000, dtype)):
            x.copy_(y)
        graph.replay()
        torch.cuda.synchronize()
        name = str(dtype).replace("torch.", "")
        check(error(captured, *static) <= ATTENTION_TOLERANCE[name], f"attention {name}: a CUDA graph replays the op")
        compiled = torch.compile(lambda q, k, v: op(q, k, v) * 2.0, fullgraph=True)
        q, k, v = inputs(1, 8, 768, dtype)
        worst = error(compiled(q, k, v) / 2.0, q, k, v)
        check(worst <= ATTENTION_TOLERANCE[name], f"attention {name}: torch.compile(fullgraph=True): {worst:.2e}")
    check(prebuilt.wait() == 0, "attention: build_so.sh built the ctypes library")
    if prebuilt.returncode == 0:
        correct(load.load_prebuilt(), "ctypes")
        correct_lse(torch.ops.evotune_prebuilt.attention_dtypes_with_lse, "ctypes (with lse)")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    evotune = os.path.abspath(sys.argv[1])
    found = torch_on_hopper("torch_op_dtypes_test")
    if found is None:
        return SKIP
    torch, F = found
    work = tempfile.mkdtemp(prefix="evotune_torch_op_dtypes_")
    torch.manual_seed(0)
    gemm_tests(evotune, work, torch, F)
    gemm_fp32_tests(evotune, work, torch, F)
    attention_tests(evotune, work, torch, F)
    print(f"torch_op_dtypes_test: {'FAILED: ' + '; '.join(failures) if failures else 'all passed'} ({work})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
