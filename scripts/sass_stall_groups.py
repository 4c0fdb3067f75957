#!/usr/bin/env python3
"""Where a kernel's warps wait, by how often each SASS instruction ran. Nsight Compute's source page (warp-state
samples and executions per SASS instruction) says which instructions stall; grouped by their execution count it
says which part of the kernel they are in: in a tiled kernel the instructions run once a K/V tile (the
mainloop), once a work tile (prologue, peeled iterations, epilogue) and once a block share a count each. Two
kernels of one problem (ours against a vendor's) then compare by part: at 4,32,1024,64 the forward's
once-a-work-tile code held 19% of its stall samples against cuDNN's 13% (docs/results/attention-vs-sdpa.md).

    scripts/sass_stall_groups.py ours.ncu-rep cudnn.ncu-rep --top 12

A SOURCE is a report (`evotune profile`, `--set full`, or ncu with `--section SourceCounters`; this script runs
`ncu --import REPORT --page source --csv --print-source sass`, which needs ncu) or that CSV already exported.
Per kernel it prints the groups with the most samples (runs: how many times warps executed each of the
group's instructions; its instructions, their stall samples and share, their warp instructions executed and
share, the top stall reasons), then the instructions with the most samples. Exits 2 with one line on a source it cannot read.
"""
import argparse
import collections
import csv
import io
import os
import shutil
import subprocess
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"


def fail(message):
    print(f"sass_stall_groups: {message}", file=sys.stderr)
    sys.exit(2)


def number(text):
    """ncu's CSV number ('57,344', '0', '') as a float; 0 for anything else."""
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return 0.0


def ncu_program(given):
    if given:
        return given
    for directory in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if directory and os.access(os.path.join(directory, "bin", "ncu"), os.X_OK):
            return os.path.join(directory, "bin", "ncu")
    return shutil.which("ncu") or fail("no ncu (CUDA_HOME/bin, /usr/local/cuda/bin, PATH): give --ncu or a CSV")


def source_text(path, ncu):
    """The source page's CSV of a report, or the CSV file itself."""
    if not os.path.isfile(path):
        fail(f"{path}: no such file")
    if not path.endswith(".ncu-rep"):
        with open(path, newline="") as f:
            return f.read()
    run = subprocess.run([ncu_program(ncu), "--import", path, "--page", "source", "--csv", "--print-source", "sass"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"{path}: ncu --page source failed: {(run.stderr or run.stdout).strip().splitlines()[-1:]}")
    return run.stdout


def kernels(text, path):
    """[(kernel name, [row dicts])]: each `"Kernel Name",NAME` line opens a kernel, the next line its header."""
    found = []
    rows = list(csv.reader(io.StringIO(text)))
    i = 0
    while i < len(rows):
        row = rows[i]
        if row and row[0] == "Kernel Name":
            if i + 1 >= len(rows):
                fail(f"{path}: kernel {row[1] if len(row) > 1 else '?'} has no header line")
            header = rows[i + 1]
            if SAMPLES not in header or EXECUTED not in header or "Source" not in header:
                fail(f"{path}: no '{SAMPLES}' and '{EXECUTED}' columns: profile with the SourceCounters section")
            body = []
            i += 2
            while i < len(rows) and not (rows[i] and rows[i][0] == "Kernel Name"):
                if len(rows[i]) >= len(header) - 1:
                    body.append(dict(zip(header, rows[i])))
                i += 1
            found.append((row[1] if len(row) > 1 else "?", body))
        else:
            i += 1
    if not found:
        fail(f"{path}: not an Nsight Compute source page (no 'Kernel Name' line)")
    return found


def stall_reasons(row):
    """{reason: samples} from the stall_* columns (all samples, not the not-issued ones)."""
    return {name[len("stall_"):]: number(value) for name, value in row.items()
            if name and name.startswith("stall_") and "(Not" not in name and number(value) > 0}


def top_reasons(counter, total, count=3):
    return ", ".join(f"{reason} {100 * samples / total:.0f}%" for reason, samples in counter.most_common(count)
                     if total > 0)


def report(name, rows, top, out):
    total_samples = sum(number(r[SAMPLES]) for r in rows)
    total_executed = sum(number(r[EXECUTED]) for r in rows)
    groups = collections.defaultdict(lambda: {"instructions": 0, "samples": 0.0, "executed": 0.0,
                                              "reasons": collections.Counter()})
    for r in rows:
        runs = int(number(r[EXECUTED]))
        group = groups[runs]
        group["instructions"] += 1
        group["samples"] += number(r[SAMPLES])
        group["executed"] += number(r[EXECUTED])
        group["reasons"].update(stall_reasons(r))
    out.write(f"{name}: {total_samples:.0f} warp stall samples, {total_executed:.0f} warp instructions executed, "
              f"{len(rows)} SASS instructions\n")
    out.write(f"  {'runs':>9} {'instr':>6} {'samples':>8} {'share':>6} {'executed':>11} {'share':>6}  top stalls\n")
    ordered = sorted(groups.items(), key=lambda item: -item[1]["samples"])
    for runs, group in ordered[:top]:
        share = 100 * group["samples"] / total_samples if total_samples else 0.0
        executed_share = 100 * group["executed"] / total_executed if total_executed else 0.0
        out.write(f"  {runs:>9} {group['instructions']:>6} {group['samples']:>8.0f} {share:>5.1f}% "
                  f"{group['executed']:>11.0f} {executed_share:>5.1f}%  "
                  f"{top_reasons(group['reasons'], group['samples'])}\n")
    out.write(f"  the {min(top, len(rows))} instructions with the most samples:\n")
    for r in sorted(rows, key=lambda row: -number(row[SAMPLES]))[:top]:
        samples = number(r[SAMPLES])
        reasons = collections.Counter(stall_reasons(r))
        out.write(f"  {samples:>8.0f} runs {int(number(r[EXECUTED])):>9}  {r['Source'].strip()[:64]:<64}  "
                  f"{top_reasons(reasons, samples, 2)}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="+", help="Nsight Compute reports (.ncu-rep) or their source-page CSVs")
    parser.add_argument("--top", type=int, default=10, help="groups and instructions listed a kernel")
    parser.add_argument("--ncu", help="the ncu program (default: CUDA_HOME/bin, /usr/local/cuda/bin, PATH)")
    args = parser.parse_args()
    if args.top < 1:
        fail("--top must be at least 1")
    for path in args.sources:
        for name, rows in kernels(source_text(path, args.ncu), path):
            report(name, rows, args.top, sys.stdout)


if __name__ == "__main__":
    main()
