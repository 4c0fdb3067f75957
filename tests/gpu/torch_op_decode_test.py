#!/usr/bin/env python3
"""`evotune export --torch` for the decode family on a GPU: one op over decode_attn.json and its bf16 twin.

Each space is tuned briefly on this GPU (evolve, 2 configs a problem: the space's first Seeds) at a contiguous
and a paged problem, exported as one op, built with torch.utils.cpp_extension and through build_so.sh (ctypes),
and checked against a float32 computation (each sequence's first cache_seqlens keys, grouped heads, the
bottom-right causal mask, rows that see no key 0) at the tuned and untuned cache capacities, with lengths that
are not multiples of a page (0 and full included), on a shuffled pool of pages, in a CUDA graph and under
torch.compile(fullgraph=True), for its errors (fp32, int64 lengths, heads that do not group, an untuned SQ, a
block table of the wrong batch) and for its empty cases (SQ = 0: an empty output; a cache of no keys: zeros).

Usage: tests/gpu/torch_op_decode_test.py EVOTUNE   (from the repository root). Exit 77: no GPU or no PyTorch."""
import math
import os
import sys
import tempfile

from torch_op_dtypes_test import export, tune
from torch_op_test import SKIP, check, expect_error, failures, torch_on_hopper

SPACES = ["search_spaces/decode_attn.json", "search_spaces/decode_attn_bf16.json"]
B, HKV, G, D, PAGE = 3, 2, 4, 128, 64
PROBLEMS = [f"B={B},HKV={HKV},G={G},SQ={sq},SKV=1000,D={D},CAUSAL=1,PAGED={paged}" + (f",PAGE={PAGE}" if paged else "")
            for sq, paged in ((1, 0), (4, 0), (4, 1))]
TOLERANCE = {"float16": 0.02, "bfloat16": 0.04}  # the spaces' AbsoluteTolerance


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    evotune = os.path.abspath(sys.argv[1])
    found = torch_on_hopper("torch_op_decode_test")
    if found is None:
        return SKIP
    torch, _ = found
    work = tempfile.mkdtemp(prefix="evotune_torch_op_decode_")
    torch.manual_seed(0)
    db = os.path.join(work, "decode.db")
    for space in SPACES:
        tune(evotune, space, PROBLEMS, db)
    load, op, prebuilt = export(evotune, SPACES, "decode_dtypes", db, os.path.join(work, "decode_op"))

    def rand(*shape, dtype):
        return torch.empty(*shape, device="cuda", dtype=dtype).uniform_(-1, 1)

    def inputs(sq, capacity, lengths, dtype, paged):
        """q [B, HQ, SQ, D]; the cache contiguous [B, capacity, HKV, D] or a shuffled pool of pages with its
        block table; the lengths as int32."""
        q = rand(B, HKV * G, sq, D, dtype=dtype)
        seqlens = torch.tensor(lengths, device="cuda", dtype=torch.int32)
        if not paged:
            return q, rand(B, capacity, HKV, D, dtype=dtype), rand(B, capacity, HKV, D, dtype=dtype), seqlens, None
        pages = -(-capacity // PAGE)
        pool = B * pages + 5  # more pages than the sequences use
        table = torch.randperm(pool, device="cuda")[:B * pages].to(torch.int32).view(B, pages)
        return q, rand(pool, PAGE, HKV, D, dtype=dtype), rand(pool, PAGE, HKV, D, dtype=dtype), seqlens, table

    def expected(q, k_cache, v_cache, seqlens, table, causal):
        """float32: each sequence's first len keys, query i seeing keys j <= len - SQ + i when causal."""
        sq = q.shape[2]
        out = torch.zeros(q.shape, device="cuda", dtype=torch.float32)
        for b in range(B):
            length = int(seqlens[b])
            if table is None:
                k, v = k_cache[b], v_cache[b]
            else:
                k, v = (cache[table[b].long()].reshape(-1, HKV, D) for cache in (k_cache, v_cache))
            k = k[:length].float().transpose(0, 1).repeat_interleave(G, dim=0)  # [HQ, len, D]
            v = v[:length].float().transpose(0, 1).repeat_interleave(G, dim=0)
            scores = q[b].float() @ k.transpose(1, 2) / math.sqrt(D)  # [HQ, SQ, len]
            keys = torch.arange(length, device="cuda")
            rows = torch.arange(sq, device="cuda")
            seen = (keys[None, :] <= length - sq + rows[:, None]) if causal else torch.ones(sq, length, dtype=torch.bool, device="cuda")
            scores = scores.masked_fill(~seen, float("-inf"))
            weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)  # rows that see no key: 0
            out[b] = weights @ v
        return out

    def error(out, *args):
        return (out.float() - expected(*args)).abs().max().item()

    def correct(decode, label):
        for dtype in (torch.float16, torch.bfloat16):
            name = str(dtype).replace("torch.", "")
            for sq, capacity, lengths, paged in [(1, 1000, [1000, 517, 1], 0), (4, 1000, [1000, 3, 0], 0),
                                                 (4, 1500, [1500, 1001, 64], 0), (4, 1000, [1000, 999, 130], 1),
                                                 (4, 4096, [4096, 2049, 17], 1)]:
                args = inputs(sq, capacity, lengths, dtype, paged)
                out = decode(*args, is_causal=True)
                worst = error(out, *args, True)
                check(out.dtype == dtype and tuple(out.shape) == tuple(args[0].shape) and worst <= TOLERANCE[name],
                      f"{label} {name}: SQ={sq}, capacity {capacity}, lengths {lengths}, "
                      f"{'paged' if paged else 'contiguous'}: max abs error {worst:.2e}")

    def empty(decode, label):
        q, k, v, seqlens, _ = inputs(1, 1000, [5, 6, 7], torch.float16, False)
        out = decode(q[:, :, :0], k, v, seqlens)
        check(tuple(out.shape) == (B, HKV * G, 0, D), f"{label}: SQ = 0 gives an empty output")
        out = decode(q, k[:, :0], v[:, :0], torch.zeros(B, device="cuda", dtype=torch.int32))
        check(tuple(out.shape) == tuple(q.shape) and out.abs().max().item() == 0, f"{label}: no keys give zeros")

    def refusals(decode, label):
        q, k, v, seqlens, table = inputs(4, 1000, [1000, 10, 20], torch.float16, True)
        expect_error(lambda: decode(q.float(), k.float(), v.float(), seqlens, table), "must be float16 or bfloat16",
                     f"{label}: fp32 inputs")
        expect_error(lambda: decode(q, k, v, seqlens.long(), table), "cache_seqlens must be int32",
                     f"{label}: int64 lengths")
        expect_error(lambda: decode(q[:, :7].contiguous(), k, v, seqlens, table), "must be a multiple of k_cache's",
                     f"{label}: heads that do not group")
        expect_error(lambda: decode(q, k, v, seqlens, table[:2]), "block_table must have shape",
                     f"{label}: a block table of the wrong batch")
        expect_error(lambda: decode(q[:, :, :3].contiguous(), k, v, seqlens, table),
                     "no variant was tuned for these compile-time sizes", f"{label}: SQ = 3 (untuned)")
        expect_error(lambda: decode(q.cpu(), k.cpu(), v.cpu(), seqlens.cpu(), table.cpu()), "must be a CUDA tensor",
                     f"{label}: CPU tensors")

    correct(op, "torch.ops.evotune")
    empty(op, "torch.ops.evotune")
    refusals(op, "torch.ops.evotune")
    for dtype in (torch.float16, torch.bfloat16):
        name = str(dtype).replace("torch.", "")
        static = inputs(4, 1000, [1000, 700, 5], dtype, True)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            op(*static, is_causal=True)  # warm-up outside the capture (shared-memory attributes are set once)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            captured = op(*static, is_causal=True)
        for x in static[:3]:
            x.uniform_(-1, 1)
        static[3].copy_(torch.tensor([999, 64, 0], device="cuda", dtype=torch.int32))  # a decode step's new lengths
        graph.replay()
        torch.cuda.synchronize()
        worst = error(captured, *static, True)
        check(worst <= TOLERANCE[name], f"{name}: a CUDA graph replays the op on new inputs and lengths ({worst:.2e})")
        compiled = torch.compile(lambda q, k, v, lengths, table: op(q, k, v, lengths, table, is_causal=True) * 2.0,
                                 fullgraph=True)
        args = inputs(4, 1000, [1000, 300, 64], dtype, True)
        worst = error(compiled(*args) / 2.0, *args, True)
        check(worst <= TOLERANCE[name], f"{name}: torch.compile(fullgraph=True): max abs error {worst:.2e}")
    check(prebuilt.wait() == 0, "decode: build_so.sh built the ctypes library")
    if prebuilt.returncode == 0:
        ctypes_op = load.load_prebuilt()
        correct(ctypes_op, "ctypes")
        empty(ctypes_op, "ctypes")
        refusals(ctypes_op, "ctypes")
    print(f"torch_op_decode_test: {'FAILED: ' + '; '.join(failures) if failures else 'all passed'} ({work})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
