#!/usr/bin/env python3
"""The side-by-side table of scripts/bench_t1.sh: reads OUT/*.evolve.*.db (evotune's stores) and
OUT/*.kt_*.json (scripts/kt_t1_bench.py) and prints Markdown: per benchmark and tuner, evaluations, configs
per minute, the best time after 100 and 500 evaluations, the wall time to the best, failures by status.

evotune's time is the median of its timed samples; Kernel Tuner's is the mean of its iterations (its default
objective). Times in microseconds.

    bench_t1_table.py OUT_DIR
"""
import collections
import datetime
import glob
import json
import os
import sqlite3
import sys


def stamp(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def evotune_run(db):
    con = sqlite3.connect(db)
    run = con.execute("SELECT started_at, finished_at FROM runs ORDER BY id LIMIT 1").fetchone() \
        if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'runs'").fetchone() else None
    if run is None:  # the tune stopped before its run began (its log says why)
        return [], 0
    started, finished = run
    rows = con.execute("SELECT status, time_median_us, created_at FROM measurements ORDER BY id").fetchall()
    start = stamp(started)
    end = stamp(finished) if finished else (stamp(rows[-1][2]) if rows else start)
    return [(s, t, stamp(c) - start) for s, t, c in rows], end - start


def kt_run(path):
    with open(path) as f:
        data = json.load(f)
    evals = data["evaluations"]
    stamps = [stamp(e["timestamp"]) for e in evals if e.get("timestamp")]
    first = min(stamps) if stamps else 0
    rows = []
    for e in evals:
        elapsed = stamp(e["timestamp"]) - first if e.get("timestamp") else None
        rows.append((e["status"], e["time_ms"] * 1000 if e["time_ms"] is not None else None, elapsed))
    return rows, data["wall_s"], data.get("error")


def summary(rows, wall):
    ok = [(t, at) for s, t, at in rows if s == "ok" and t is not None]
    best = lambda n: min((t for s, t, _ in rows[:n] if s == "ok" and t is not None), default=None)  # noqa: E731
    top = min(ok, default=(None, None))
    failures = collections.Counter(s for s, _, _ in rows if s != "ok")
    return {"n": len(rows), "per_min": 60 * len(rows) / wall if wall > 0 else 0, "best100": best(100),
            "best500": best(500), "to_best": top[1], "failures": dict(failures)}


def fmt(value, digits=1):
    return "-" if value is None else ("%.*f" % (digits, value))


def main():
    out = sys.argv[1]
    lines = []
    gpu = open(os.path.join(out, "gpu.txt")).read().strip() if os.path.exists(os.path.join(out, "gpu.txt")) else "?"
    lines.append("Measured %s on %s (%s)." % (datetime.date.today().isoformat(), gpu, out))
    lines.append("")
    lines.append("| benchmark | tuner | budget | seed | evaluations | configs/min | best @100 (us) | best @500 (us) "
                 "| to best (s) | failures |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    entries = []
    for db in sorted(glob.glob(os.path.join(out, "*.evolve.*.db"))):
        name, _, budget, seed, _ = os.path.basename(db).split(".")
        rows, wall = evotune_run(db)
        entries.append((name, "evotune evolve", budget, seed, summary(rows, wall),
                        None if rows else "no run stored (see the tune's log)"))
    for path in sorted(glob.glob(os.path.join(out, "*.kt_*.json"))):
        parts = os.path.basename(path).split(".")
        name, tuner = parts[0], "Kernel Tuner " + ("GA" if parts[1] == "kt_ga" else "brute force (default)")
        budget, seed = (parts[2], parts[3]) if len(parts) > 3 else ("all", "-")
        rows, wall, error = kt_run(path)
        entries.append((name, tuner, budget, seed, summary(rows, wall), error))
    for name, tuner, budget, seed, s, error in sorted(entries, key=lambda e: (e[0], e[1], str(e[2]))):
        failures = ", ".join("%s %d" % kv for kv in sorted(s["failures"].items())) or "none"
        if error:
            failures += "; stopped: " + error[:80]
        lines.append("| %s | %s | %s | %s | %d | %.0f | %s | %s | %s | %s |" % (
            name, tuner, budget, seed, s["n"], s["per_min"], fmt(s["best100"]), fmt(s["best500"]),
            fmt(s["to_best"]), failures))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
