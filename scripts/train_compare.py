#!/usr/bin/env python3
"""Trains a small causal transformer twice, once with an exported attention op and once with SDPA, and
compares the losses step by step.

The model: a token embedding, two pre-norm blocks (LayerNorm, causal attention with --heads query heads and
--kv-heads key/value heads, LayerNorm, a 4x GELU MLP) and a linear head. Both runs start from one
initialisation (the same seed), read the same batches (a fixed pool of random token sequences, cycled, so that
the loss falls as the model memorises them) and take the same AdamW steps, in bf16 autocast or in fp16
autocast with a gradient scaler. The op must have been exported with its backward spaces
(`evotune export FWD_FP16 FWD_BF16 BWD_FP16 BWD_BF16 --torch DIR`) and tuned at head_dim
--d-model / --heads, causal.

A third run, the control, trains with SDPA's memory-efficient backend instead of its default one: two correct
implementations that round differently. Its difference from the default is the floor that rounding alone
gives this training (it grows as the loss falls toward 0 and the optimiser amplifies small differences, which
is why the default pool is large enough that 200 steps do not memorise it).

Usage: scripts/train_compare.py OP_DIR [--prebuilt] [--steps 200] [--dtype bf16] [--tolerance 0.01] ...
Prints every --every steps' losses and their relative differences from SDPA's (the op's and the control's),
then the largest; exits 1 when a step's losses differ by more than --tolerance (the op's, relative to SDPA's),
2 on bad arguments."""
import argparse
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


class Block(nn.Module):
    """x + attention(norm(x)), then x + mlp(norm(x)); `attention(q, k, v)` is causal, [B, heads, S, head_dim]."""

    def __init__(self, d_model, heads, kv_heads, attention):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, d_model // heads
        self.attention = attention
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.q = nn.Linear(d_model, d_model, bias=False)
        self.kv = nn.Linear(d_model, 2 * kv_heads * self.head_dim, bias=False)
        self.out = nn.Linear(d_model, d_model, bias=False)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        b, s, d = x.shape
        h = self.norm1(x)
        q = self.q(h).view(b, s, self.heads, self.head_dim).transpose(1, 2).contiguous()
        k, v = self.kv(h).view(b, s, 2, self.kv_heads, self.head_dim).permute(2, 0, 3, 1, 4).contiguous()
        o = self.attention(q, k, v)
        x = x + self.out(o.transpose(1, 2).reshape(b, s, d))
        return x + self.mlp(self.norm2(x))


class Model(nn.Module):
    def __init__(self, vocab, d_model, heads, kv_heads, attention):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.blocks = nn.ModuleList([Block(d_model, heads, kv_heads, attention) for _ in range(2)])
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def train(attention, args, batches):
    """The loss of each step, the model built from args.seed."""
    torch.manual_seed(args.seed)
    model = Model(args.vocab, args.d_model, args.heads, args.kv_heads, attention).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    scaler = torch.amp.GradScaler("cuda", enabled=dtype == torch.float16)
    losses = []
    for step in range(args.steps):
        tokens = batches[step % len(batches)]
        with torch.autocast("cuda", dtype=dtype):
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.float().reshape(-1, args.vocab), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    return losses


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("op_dir", help="the folder `evotune export ... --torch` wrote")
    parser.add_argument("--prebuilt", action="store_true", help="load.load_prebuilt() (after build_so.sh)")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=256, help="tokens a sequence")
    parser.add_argument("--d-model", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--kv-heads", type=int, default=8, help="grouped heads when fewer than --heads")
    parser.add_argument("--vocab", type=int, default=1024)
    parser.add_argument("--pool", type=int, default=64, help="batches in the pool of random sequences (cycled)")
    parser.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tolerance", type=float, default=0.01, help="largest relative loss difference")
    parser.add_argument("--every", type=int, default=10, help="print every this many steps")
    args = parser.parse_args()
    if args.d_model % args.heads or args.heads % args.kv_heads:
        parser.error("--d-model must be a multiple of --heads, and --heads of --kv-heads")
    if not torch.cuda.is_available():
        print("train_compare: no CUDA GPU visible to PyTorch", file=sys.stderr)
        return 2

    sys.path.insert(0, os.path.abspath(args.op_dir))
    import load
    op = load.load_prebuilt() if args.prebuilt else load.build(build_directory=os.path.abspath(args.op_dir))
    if not load.BACKWARD:
        print(f"train_compare: {args.op_dir} was exported without backward spaces", file=sys.stderr)
        return 2
    grouped = args.heads != args.kv_heads

    generator = torch.Generator().manual_seed(args.seed)
    batches = [torch.randint(args.vocab, (args.batch, args.seq + 1), generator=generator).cuda()
               for _ in range(args.pool)]
    exported = train(lambda q, k, v: op(q, k, v, True), args, batches)
    sdpa = train(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=grouped),
                 args, batches)

    def efficient(q, k, v):
        if grouped:  # the memory-efficient backend takes K and V of Q's heads
            k, v = (t.repeat_interleave(args.heads // args.kv_heads, dim=1) for t in (k, v))
        with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    control = train(efficient, args, batches)

    differences = [abs(a - b) / abs(b) for a, b in zip(exported, sdpa)]
    floor = [abs(c - b) / abs(b) for c, b in zip(control, sdpa)]
    print(f"{'step':>5} {'exported op':>12} {'SDPA':>12} {'SDPA (eff.)':>12} {'op diff':>10} {'eff. diff':>10}")
    for step in range(args.steps):
        if step % args.every == 0 or step == args.steps - 1:
            print(f"{step:>5} {exported[step]:>12.5f} {sdpa[step]:>12.5f} {control[step]:>12.5f} "
                  f"{differences[step]:>10.2e} {floor[step]:>10.2e}")
    worst = max(range(len(differences)), key=differences.__getitem__)
    worst_floor = max(range(len(floor)), key=floor.__getitem__)
    verdict = "within" if differences[worst] <= args.tolerance else "beyond"
    print(f"largest relative difference {differences[worst]:.2e} at step {worst} ({verdict} {args.tolerance}); "
          f"the control's (SDPA's memory-efficient backend against its default) {floor[worst_floor]:.2e} at "
          f"step {worst_floor}; {args.dtype}, B={args.batch}, S={args.seq}, heads {args.heads}/{args.kv_heads} "
          f"of {args.d_model // args.heads}, pool of {args.pool} batches, final losses {exported[-1]:.4f} / "
          f"{sdpa[-1]:.4f}")
    return 0 if differences[worst] <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
