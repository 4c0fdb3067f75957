#!/usr/bin/env python3
"""The GEMM table of issue 24: its shapes, their split across GPUs, and the markdown table of the results.

`shapes [--shard I/N]`: the shapes, one a line, as `compare_torch.py gemm --shape` takes them: the 36 LLM layers
(M in 1, 16, 128, 1024, 4096, 16384 x (N, K) of the Llama-style projections, B as nn.Linear's weight [N, K]),
then the three sizes that are no multiple of any tile, with B in both layouts. With --shard I/N only the I-th
(0-based) of N shares: the shapes in order of their work, dealt round the shards forth and back, so that each holds a like mix
of large and small ones.

`table FILES... [--tune-times TSV] [-o OUT]`: a markdown table from `compare_torch.py gemm --json` files (one a
shard): shape, layout, ours and cuBLAS's time and TFLOP/s, cuBLAS / ours, the tune's wall time where the TSV
(lines `M,N,K[,nt] <TAB> seconds <TAB> exit status`) gives it; then, for the LLM layers and for all, the
geometric mean of cuBLAS / ours and how many shapes reach 1.1x. A shape with no working variant is listed with
its reason and left out of the means (the summary says how many).
"""
import argparse
import json
import math
import sys

import space_doc

LLM_M = [1, 16, 128, 1024, 4096, 16384]
LLM_NK = [(4096, 4096), (14336, 4096), (4096, 14336), (8192, 8192), (28672, 8192), (8192, 28672)]
ODD_MNK = [(4095, 4097, 4093), (1000, 3000, 2000), (77, 5000, 4096)]
TARGET = 1.1


def llm_shapes():
    return [f"{m},{n},{k},nt" for m in LLM_M for n, k in LLM_NK]


def odd_shapes():
    return [f"{m},{n},{k}{layout}" for m, n, k in ODD_MNK for layout in ("", ",nt")]


def all_shapes():
    return llm_shapes() + odd_shapes()


def work(shape):
    m, n, k = (int(x) for x in shape.split(",")[:3])
    return m * n * k


def parse_shard(text):
    """'I/N' -> (I, N) with 0 <= I < N."""
    try:
        index, count = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard '{text}': expected I/N, e.g. 0/4") from None
    if count < 1 or not 0 <= index < count:
        raise ValueError(f"--shard '{text}': I must be in 0..N-1 and N at least 1")
    return index, count


def shard(shapes, index, count, staged=True):
    """The index-th of count shares: the shapes by decreasing work (ties keep their order; those not tuned, see
    tma_unsupported, last), dealt round the shards forth and back (0..N-1, N-1..0, ...), so that no shard
    always takes the larger of each round."""
    ordered = sorted(shapes, key=lambda shape: (tma_unsupported(shape, staged) is not None, -work(shape)))

    def owner(i):
        turn, seat = divmod(i, count)
        return seat if turn % 2 == 0 else count - 1 - seat
    return [shape for i, shape in enumerate(ordered) if owner(i) == index]


def stages_rows(space_path):
    """Whether the space copies operands whose rows TMA cannot address into padded scratch first: every tensor
    map of A and B has a BufferIf (docs/kernels/gemm_wgmma.md), so that any K and N run."""
    arguments = space_doc.load(space_path)["KernelSpecification"]["Arguments"]
    return all("BufferIf" in argument for argument in arguments
               if argument.get("MemoryType") == "TensorMap" and argument.get("Buffer") in ("A", "B"))


def tma_unsupported(shape, staged=False):
    """Why a template that maps A and B directly (not `staged`) cannot run a shape (TMA needs 16-byte row
    strides), or None."""
    if staged:
        return None
    parts = shape.split(",")
    n, k, nt = int(parts[1]), int(parts[2]), len(parts) == 4
    if k % 8:
        return "K is not a multiple of 8 (TMA needs 16-byte rows)"
    if not nt and n % 8:
        return "N is not a multiple of 8 with B [K, N] (TMA needs 16-byte rows)"
    return None


# --- the table -------------------------------------------------------------------------------------------------
def shape_key(row):
    return f"{row['M']},{row['N']},{row['K']}" + (",nt" if row["nt"] else "")


def read_tune_times(path):
    times = {}
    if not path:
        return times
    with open(path) as f:
        for number, line in enumerate(f, 1):
            fields = line.rstrip("\n").split("\t")
            if not line.strip():
                continue
            if len(fields) != 3:
                raise ValueError(f"{path}:{number}: expected 'shape<TAB>seconds<TAB>exit status'")
            times[fields[0]] = (float(fields[1]), fields[2])
    return times


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summary_line(name, rows):
    ratios = [row["ratio"] for row in rows if row.get("ratio")]
    failed = len(rows) - len(ratios)
    if not ratios:
        return f"{name}: no shape with a working variant ({len(rows)} shapes)"
    line = (f"{name}: geometric mean of cuBLAS / ours {geometric_mean(ratios):.3f}x over {len(ratios)} shapes; "
            f"{sum(r >= TARGET for r in ratios)} of {len(ratios)} at {TARGET}x or more")
    if failed:
        line += f"; {failed} without a working variant (left out)"
    return line


def cell(timing):
    return f"{timing['us']:.1f}" if timing and "us" in timing else "-"


def tflops(timing):
    return f"{timing['tflops']:.0f}" if timing and "us" in timing else "-"


def table(rows, tune_times):
    lines = ["| M,N,K | B | tune s | ours us | cuBLAS us | cuBLAS / ours | ours TFLOP/s | cuBLAS TFLOP/s | ours from |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        key = shape_key(row)
        tune = tune_times.get(key)
        tune_cell = "-" if not tune else f"{tune[0]:.0f}" + ("" if tune[1] in ("0", "130") else f" (exit {tune[1]})")
        ours = row.get("ours") or {}
        source = (f"#{ours['config_id']}" if "us" in ours else ours.get("error", "no variant"))
        lines.append("| " + " | ".join([
            f"{row['M']},{row['N']},{row['K']}", "[N,K]" if row["nt"] else "[K,N]", tune_cell, cell(ours),
            cell(row.get("cublas")), f"{row['ratio']:.2f}x" if row.get("ratio") else "-", tflops(ours),
            tflops(row.get("cublas")), source.replace("|", "/")]) + " |")
    llm = set(llm_shapes())
    lines.append("")
    lines.append(summary_line("LLM layers", [row for row in rows if shape_key(row) in llm]))
    lines.append("")
    lines.append(summary_line("all shapes", rows))
    return "\n".join(lines) + "\n"


def read_rows_from(rows):
    """The rows in the order of all_shapes() (others after them), each shape once (the last row of it)."""
    unique = {shape_key(row): row for row in rows}
    order = {shape: i for i, shape in enumerate(all_shapes())}
    return sorted(unique.values(), key=lambda row: (order.get(shape_key(row), len(order)), shape_key(row)))


def read_rows(files):
    rows = []
    for path in files:
        with open(path) as f:
            rows.extend(json.load(f))
    return read_rows_from(rows)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    shapes_ap = sub.add_parser("shapes", help="print the shapes (of one shard)")
    shapes_ap.add_argument("--shard", default="0/1", help="I/N: the I-th (0-based) of N shares")
    shapes_ap.add_argument("--unsupported", action="store_true",
                           help="print only the shapes the template cannot run, with the reason after a tab")
    shapes_ap.add_argument("--space", default="search_spaces/gemm_wgmma.json",
                           help="the space to tune (one that stages misaligned rows runs every shape)")
    table_ap = sub.add_parser("table", help="the markdown table of compare_torch.py gemm --json files")
    table_ap.add_argument("files", nargs="+")
    table_ap.add_argument("--tune-times", help="TSV of shape, tune seconds, tune exit status")
    table_ap.add_argument("-o", "--output", help="write the table here (default: stdout)")
    args = ap.parse_args(argv)
    if args.command == "shapes":
        try:
            index, count = parse_shard(args.shard)
        except ValueError as e:
            ap.error(str(e))
        try:
            staged = stages_rows(args.space)
        except (OSError, ValueError, KeyError) as e:
            ap.error(f"--space {args.space}: {e}")
        for shape in shard(all_shapes(), index, count, staged):
            why = tma_unsupported(shape, staged)
            if args.unsupported and why:
                print(f"{shape}\t{why}")
            elif not args.unsupported:
                print(shape)
        return 0
    try:
        text = table(read_rows(args.files), read_tune_times(args.tune_times))
    except (OSError, ValueError, KeyError) as e:
        print(f"gemm_llm_table.py: {e}", file=sys.stderr)
        return 1
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
