#!/usr/bin/env python3
"""The differentiable attention op of `evotune export FWD_FP16 FWD_BF16 BWD_FP16 BWD_BF16 --torch DIR` on a GPU.

The wgmma forward spaces and their backward twins (fp16 and bf16) are tuned briefly on this GPU (evolve, 2
configs a problem: the spaces' first Seeds; no backward sweeps are recorded) at B=2, H=8, S=512, D=64, with
and without the causal mask, exported as one op, built with torch.utils.cpp_extension and through build_so.sh
(ctypes), and both ways checked:

- o and the gradients dq, dk, dv of o.backward(grad_o) against SDPA's math backend in fp32 from the same
  16-bit inputs (enable_gqa=True for grouped heads; the causal mask aligned to the bottom right as an explicit
  mask, the rows that see no key zeros): at the tuned shape, untuned ones, causal, grouped heads g = 1, 4, 8,
  S < SKV and S > SKV causal, S and SKV not multiples of the tiles; fp16 and bf16. dq, dk and dv have the
  shapes of q, k and v (dk, dv summed over each group of heads);
- under torch.compile(fullgraph=True), forward and backward; in a CUDA graph (forward and backward captured,
  replayed on new inputs); torch.library.opcheck's schema, fake-tensor and autograd-registration tests;
- the (o, lse) op's lse against torch.logsumexp of the fp32 scores with grouped heads and S != SKV;
- the empty problems (S = 0, B = 0: empty outputs, zero dk and dv; SKV = 0: o zeros, lse -inf, dq zeros);
- the shape errors of grouped heads (k and v of different shapes, H not a multiple of HKV, another batch or
  head_dim).

The metric is the gradient-checking one of FlashAttention's tests, as one number a tensor: the largest
absolute difference from the fp32 reference over the largest magnitude of that reference. The kernels
round P and dS to the 16-bit type before the tensor-core products (as FlashAttention does), an elementwise
relative error of at most 2^-11 (fp16) or 2^-8 (bf16) whose sums over hundreds of keys of random sign stay
near that size: about 1e-3 (fp16) and 8e-3 (bf16) of the largest gradient. The tolerances, 1e-2 (fp16) and
4e-2 (bf16), leave a margin of 5 to 10 over that, while a wrong mask, group or scale moves whole rows by their
own magnitude (an error near 1). torch.autograd.gradcheck's finite differences need float64, which the
kernels do not take.

Usage: tests/gpu/torch_op_autograd_test.py EVOTUNE [--work DIR]   (from the repository root; DIR keeps the
database and the op folder DIR/op, e.g. for scripts/train_compare.py). Exit 77: no GPU or no PyTorch."""
import math
import os
import subprocess
import sys
import tempfile
import time

from torch_op_test import SKIP, check, expect_error, failures, torch_on_hopper

FORWARD = ["search_spaces/flash_attn_fwd_wgmma.json", "search_spaces/flash_attn_fwd_wgmma_bf16.json"]
BACKWARD = ["search_spaces/flash_attn_bwd_wgmma.json", "search_spaces/flash_attn_bwd_wgmma_bf16.json"]
PROBLEMS = [f"B=2,H=8,HKV=8,S=512,SKV=512,D=64,CAUSAL={causal}" for causal in (0, 1)]
NAME = "attention_autograd"

# (B, H, HKV, S, SKV, causal, what)
CASES = [
    (2, 8, 8, 512, 512, False, "tuned"),
    (2, 8, 8, 512, 512, True, "tuned, causal"),
    (1, 4, 4, 300, 300, False, "untuned, S not a multiple of the tiles"),
    (2, 8, 8, 333, 333, True, "untuned, causal, S not a multiple of the tiles"),
    (2, 8, 2, 512, 512, True, "grouped heads g = 4, causal"),
    (1, 16, 2, 256, 256, False, "grouped heads g = 8"),
    (1, 8, 2, 200, 700, True, "g = 4, S < SKV, causal (bottom right)"),
    (1, 8, 8, 384, 200, True, "S > SKV, causal: the first 184 rows see no key"),
    (2, 4, 1, 77, 1000, False, "g = 4, S != SKV"),
]
BF16_CASES = [0, 1, 4, 6]  # the cases run in bf16 too


def main():
    args = sys.argv[1:]
    if len(args) not in (1, 3) or (len(args) == 3 and args[1] != "--work"):
        print(__doc__)
        return 2
    evotune = os.path.abspath(args[0])
    found = torch_on_hopper("torch_op_autograd_test")
    if found is None:
        return SKIP
    torch, F = found
    from torch.nn.attention import SDPBackend, sdpa_kernel

    tolerance = {torch.float16: 1e-2, torch.bfloat16: 4e-2}
    work = os.path.abspath(args[2]) if len(args) == 3 else tempfile.mkdtemp(prefix="evotune_torch_autograd_")
    os.makedirs(work, exist_ok=True)
    db = os.path.join(work, "results.db")
    started = time.time()
    for space in FORWARD + BACKWARD:
        for problem in PROBLEMS:
            subprocess.run([evotune, "tune", space, "--problem", problem, "--strategy", "evolve", "--budget", "2",
                            "--seed", "1", "--rerank", "0", "--db", db], check=True, stdout=subprocess.DEVNULL)
    print(f"tuned 4 spaces at 2 problems in {time.time() - started:.0f} s", flush=True)
    folder = os.path.join(work, "op")
    subprocess.run([evotune, "export"] + FORWARD + BACKWARD + ["--torch", folder, "--name", NAME, "--db", db],
                   check=True)
    prebuilt = subprocess.Popen(["bash", os.path.join(folder, "build_so.sh")], stdout=subprocess.DEVNULL)
    sys.path.insert(0, folder)
    import load

    started = time.time()
    load.build(build_directory=folder)
    print(f"built the extension in {time.time() - started:.0f} s", flush=True)
    torch.manual_seed(0)

    def inputs(b, h, hkv, s, skv, dtype=torch.float16, d=64):
        q = torch.randn(b, h, s, d, device="cuda", dtype=dtype)
        k, v = (torch.randn(b, hkv, skv, d, device="cuda", dtype=dtype) for _ in range(2))
        return q, k, v, torch.randn_like(q)

    def reference(q, k, v, causal, grad_o):
        """(o, dq, dk, dv) in fp32 by SDPA's math backend from the same 16-bit inputs, the causal mask aligned
        to the bottom right; rows that see no key are zeros and pass no gradient."""
        s, skv = q.shape[2], k.shape[2]
        q32, k32, v32 = (x.detach().float().requires_grad_() for x in (q, k, v))
        first = max(s - skv, 0) if causal else 0  # rows before it see no key
        rows = q32[:, :, first:]
        mask = None
        if causal:
            mask = torch.ones(s - first, skv, dtype=torch.bool, device=q.device).tril(skv - (s - first))
        with sdpa_kernel(SDPBackend.MATH):
            o = F.scaled_dot_product_attention(rows, k32, v32, attn_mask=mask, enable_gqa=q.shape[1] != k.shape[1])
        o = torch.cat([o.new_zeros(o.shape[0], o.shape[1], first, o.shape[3]), o], dim=2)
        o.backward(grad_o.float())
        return o.detach(), q32.grad, k32.grad, v32.grad

    def error(out, expected):
        """The largest absolute difference over the largest magnitude of the fp32 reference."""
        return ((out.float() - expected).abs().max() / expected.abs().max().clamp(min=1e-6)).item()

    def run(attention, q, k, v, causal, grad_o):
        """(o, dq, dk, dv) of the op through autograd."""
        q, k, v = (x.detach().requires_grad_() for x in (q, k, v))
        o = attention(q, k, v, causal)
        o.backward(grad_o)
        return o.detach(), q.grad, k.grad, v.grad

    def compare(label, got, expected, dtype, shapes):
        for name, x, ref, shape in zip(("o", "dq", "dk", "dv"), got, expected, shapes):
            check(x is not None and tuple(x.shape) == tuple(shape) and x.dtype == dtype,
                  f"{label}: {name} is {None if x is None else (tuple(x.shape), x.dtype)}")
            if x is not None:
                worst = error(x, ref)
                check(worst <= tolerance[dtype], f"{label}: {name} error {worst:.1e} (max abs / max |ref|)")

    def gradients(attention, label):
        for i, (b, h, hkv, s, skv, causal, what) in enumerate(CASES):
            for dtype in (torch.float16, torch.bfloat16) if i in BF16_CASES else (torch.float16,):
                q, k, v, grad_o = inputs(b, h, hkv, s, skv, dtype)
                tag = f"{label} {str(dtype)[6:]} B={b},H={h},HKV={hkv},S={s},SKV={skv},causal={int(causal)} ({what})"
                compare(tag, run(attention, q, k, v, causal, grad_o), reference(q, k, v, causal, grad_o), dtype,
                        [q.shape, q.shape, k.shape, v.shape])

    def lse_grouped(with_lse, label):
        for b, h, hkv, s, skv, causal in [(1, 8, 2, 200, 700, True), (2, 4, 1, 77, 1000, False)]:
            q, k, v, _ = inputs(b, h, hkv, s, skv)
            _, lse = with_lse(q, k, v, causal)
            scores = q.float() @ k.float().repeat_interleave(h // hkv, dim=1).transpose(-1, -2) / math.sqrt(64)
            if causal:
                mask = torch.ones(s, skv, dtype=torch.bool, device="cuda").tril(skv - s)
                scores = scores.masked_fill(~mask, float("-inf"))
            worst = (lse - torch.logsumexp(scores, dim=-1)).abs().max().item()
            check(worst <= 0.02, f"{label}: lse, B={b},H={h},HKV={hkv},S={s},SKV={skv}: max abs error {worst:.1e}")

    def compiled(attention, with_lse, label):
        q, k, v, grad_o = inputs(2, 8, 2, 333, 333, torch.bfloat16)
        expected = reference(q, k, v, True, grad_o * 2)
        step = torch.compile(lambda q, k, v, causal: attention(q, k, v, causal) * 2.0, fullgraph=True)
        compare(f"{label} under torch.compile(fullgraph=True), bf16, g = 4, causal",
                run(step, q, k, v, True, grad_o), (expected[0] * 2,) + expected[1:], torch.bfloat16,
                [q.shape, q.shape, k.shape, v.shape])
        q, k, v, grad_o = inputs(1, 8, 2, 200, 700)
        expected = reference(q, k, v, True, grad_o)
        step = torch.compile(lambda q, k, v, causal: with_lse(q, k, v, causal)[0], fullgraph=True)
        compare(f"{label} _with_lse under torch.compile(fullgraph=True), fp16, S < SKV", run(step, q, k, v, True, grad_o),
                expected, torch.float16, [q.shape, q.shape, k.shape, v.shape])

    def graphed(attention, label):
        static = [x.detach().requires_grad_() for x in inputs(2, 8, 2, 512, 512)[:3]]
        grad_o = torch.randn_like(static[0])
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up outside the capture (shared-memory attributes are set once)
            attention(*static, True).backward(grad_o)
        torch.cuda.current_stream().wait_stream(side)
        for x in static:
            x.grad = None
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            o = attention(*static, True)
            o.backward(grad_o)
        q, k, v, g = inputs(2, 8, 2, 512, 512)
        with torch.no_grad():
            for x, y in zip(static + [grad_o], [q, k, v, g]):
                x.copy_(y)
        graph.replay()
        torch.cuda.synchronize()
        compare(f"{label} in a CUDA graph replayed on new inputs, g = 4, causal",
                (o.detach(), static[0].grad, static[1].grad, static[2].grad), reference(q, k, v, True, g),
                torch.float16, [q.shape, q.shape, k.shape, v.shape])

    def opcheck(with_lse, backward, label):
        q, k, v, grad_o = inputs(1, 8, 2, 200, 700)
        for op, args, tests in [
                (with_lse, (q.requires_grad_(), k.requires_grad_(), v.requires_grad_(), True),
                 ("test_schema", "test_autograd_registration", "test_faketensor")),
                (backward, (q.detach(), k.detach(), v.detach()) + tuple(with_lse(q.detach(), k.detach(), v.detach(), True)) + (grad_o, True),
                 ("test_schema", "test_faketensor"))]:
            try:
                torch.library.opcheck(op, args, test_utils=tests)
                check(True, f"{label}: torch.library.opcheck {op} ({', '.join(tests)})")
            except Exception as failure:  # opcheck raises OpCheckError and others
                check(False, f"{label}: torch.library.opcheck {op}: {str(failure).splitlines()[0]}")

    def empty(attention, with_lse, label):
        for b, h, hkv, s, skv, what in [(1, 8, 2, 0, 5, "S = 0"), (0, 8, 2, 7, 5, "B = 0"),
                                        (1, 8, 2, 7, 0, "SKV = 0")]:
            q, k, v, grad_o = inputs(b, h, hkv, s, skv)
            o, lse = with_lse(q, k, v, True)
            check(tuple(o.shape) == (b, h, s, 64) and tuple(lse.shape) == (b, h, s),
                  f"{label}: {what}: o {tuple(o.shape)}, lse {tuple(lse.shape)}")
            check(o.abs().sum().item() == 0 and bool((lse == float("-inf")).all()),
                  f"{label}: {what}: o zeros, lse -inf")
            _, dq, dk, dv = run(attention, q, k, v, True, grad_o)
            check(tuple(dq.shape) == tuple(q.shape) and tuple(dk.shape) == tuple(k.shape) and
                  tuple(dv.shape) == tuple(v.shape), f"{label}: {what}: gradients of q's, k's and v's shapes")
            check(all(x.abs().sum().item() == 0 for x in (dq, dk, dv)), f"{label}: {what}: gradients are zeros")

    def refusals(attention, label):
        q = torch.randn(2, 8, 64, 64, device="cuda", dtype=torch.float16)

        def kv(*shape):
            return torch.randn(*shape, device="cuda", dtype=torch.float16)

        expect_error(lambda: attention(q, kv(2, 2, 64, 64), kv(2, 2, 65, 64)), "v must have k's shape",
                     f"{label}: k and v of different shapes")
        expect_error(lambda: attention(q, kv(2, 3, 64, 64), kv(2, 3, 64, 64)), "not a multiple of k's 3",
                     f"{label}: H = 8 with HKV = 3")
        expect_error(lambda: attention(q, kv(1, 2, 64, 64), kv(1, 2, 64, 64)), "one batch",
                     f"{label}: another batch")
        expect_error(lambda: attention(q, kv(2, 2, 64, 128), kv(2, 2, 64, 128)), "one head_dim",
                     f"{label}: another head_dim")

    def suite(attention, with_lse, backward, label):
        started = time.time()
        gradients(attention, label)
        lse_grouped(with_lse, label)
        compiled(attention, with_lse, label)
        graphed(attention, label)
        opcheck(with_lse, backward, label)
        empty(attention, with_lse, label)
        refusals(attention, label)
        print(f"{label}: {time.time() - started:.0f} s", flush=True)

    ops = torch.ops.evotune
    suite(getattr(ops, NAME), getattr(ops, NAME + "_with_lse"), getattr(ops, NAME + "_backward"),
          "torch.ops.evotune")
    check(prebuilt.wait() == 0, "build_so.sh built the ctypes library")
    if prebuilt.returncode == 0:
        load.load_prebuilt()
        ops = torch.ops.evotune_prebuilt
        suite(getattr(ops, NAME), getattr(ops, NAME + "_with_lse"), getattr(ops, NAME + "_backward"), "ctypes")

    print(f"torch_op_autograd_test: {'FAILED: ' + '; '.join(failures) if failures else 'all passed'} "
          f"(op folder {folder})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
