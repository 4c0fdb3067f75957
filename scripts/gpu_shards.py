#!/usr/bin/env python3
"""The GPU tests over several GPUs of one host: the gtest binary's tests in one shard a GPU (gtest's own
sharding, GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX, each shard's process and the evals it starts seeing only its
GPU through CUDA_VISIBLE_DEVICES), all shards at once, then the Python GPU tests (tests/gpu/*_test.py, one a
GPU at a time); a merged summary.

    scripts/gpu_shards.py --gpus 0,1,2,3 [--per-gpu 4] [--filter '*AttentionWgmma*'] [--timeout 1200] [--out DIR]

--per-gpu N runs N shards on each GPU at once: the correctness suites spend most of their time compiling each
case's variant on one CPU core (about 2.8 s a case, against milliseconds on the GPU), so N shards a GPU finish
them nearly N times sooner on a host with the cores; tests that time kernels share the GPU then (their checks
do not depend on the times), except the few that read the whole GPU's power (ALONE), which run after the
shards, alone on their GPUs (logged as the last shard_I.log files). Each shard runs under --timeout seconds,
in a process group of its own that is killed there (the binary and
the eval workers it started); a shard stopped so, or by a crash, leaves its remaining tests unrun, and they
are listed by name. Prints a line a shard (its GPU, counts and seconds), every failed and unrun test, the
Python tests' verdicts, and `gpu tests: P passed, F failed, S skipped, N not run`; exits 1 when a test failed
or did not run, 2 on bad arguments. The logs (shard_I.log, python_NAME.log) go to --out.
scripts/gpu_tests.sh --gpus LIST builds first, then runs this.
"""
import argparse
import fnmatch
import glob
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# A test's end: "[       OK ] Suite.Name (5 ms)"; a parameterised one's failure adds ", where GetParam() = ...".
RESULT = re.compile(r"^\[\s*(OK|FAILED|SKIPPED)\s*\] ([^\s,]+\.[^\s,]+)(?:, where .*?)?(?: \(\d+ ms\))?$")
RUN = re.compile(r"^\[ RUN\s*\] (\S+)$")
PYTHON_SKIP = 77  # the Python GPU tests' exit status where they cannot run (no GPU, no torch)
# Tests that read the whole GPU's state (NVML's power and energy against a loop's time): with other shards on
# the same GPU their figures take the others' work in, so with --per-gpu above 1 they run after the shards,
# one process a GPU, alone.
ALONE = ["EnergyOnTheGpu.*"]


def fail(message):
    """A bad argument: one line on stderr, exit 2."""
    print(f"gpu_shards: {message}", file=sys.stderr)
    sys.exit(2)


def parse_gpus(text):
    """'0,1,3' -> ['0', '1', '3']: distinct device indices."""
    gpus = [g.strip() for g in text.split(",") if g.strip()]
    if not gpus or any(not g.isdigit() for g in gpus):
        fail(f"--gpus {text}: a comma-separated list of GPU indices, e.g. 0,1,2,3")
    if len(set(gpus)) != len(gpus):
        fail(f"--gpus {text}: a GPU named twice")
    return gpus


def list_tests(binary, gtest_filter):
    """Every test the binary would run under the filter, as Suite.Name (gtest's --gtest_list_tests)."""
    done = subprocess.run([binary, f"--gtest_filter={gtest_filter}", "--gtest_list_tests"], capture_output=True,
                          text=True)
    if done.returncode != 0:
        fail(f"{binary} --gtest_list_tests: exit {done.returncode}: {(done.stderr or done.stdout).strip()[-200:]}")
    tests, suite = [], None
    for line in done.stdout.splitlines():
        if not line.strip() or line.startswith("Note:"):
            continue
        name = line.split("#")[0].rstrip()
        if not line.startswith(" "):
            suite = name.strip()
        elif suite:
            tests.append(suite + name.strip())
    return tests


def parse_log(text):
    """A shard's gtest output -> {"passed": [...], "failed": [...], "skipped": [...], "running": name or None}
    (running: started and never finished, the test the shard was in when it stopped)."""
    result = {"passed": [], "failed": [], "skipped": [], "running": None}
    kind = {"OK": "passed", "FAILED": "failed", "SKIPPED": "skipped"}
    for line in text.splitlines():
        run = RUN.match(line)
        if run:
            result["running"] = run.group(1)
            continue
        done = RESULT.match(line)
        if done and done.group(2) == result["running"]:
            result[kind[done.group(1)]].append(done.group(2))
            result["running"] = None
    return result


def run_all(target, argument_tuples):
    """target(*arguments) for each tuple, each on a thread of its own, all at once; returns when all have."""
    threads = [threading.Thread(target=target, args=arguments) for arguments in argument_tuples]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def run_group(command, log, env, timeout, cwd=None):
    """The command in a process group of its own, output to `log`: its exit status, or "timeout", where the
    whole group (the test binary and the eval workers it started) is killed at `timeout` seconds."""
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                               start_new_session=True)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return "timeout"


def without(gtest_filter, patterns):
    """The filter with the patterns added to its negative part: 'A*:B*-C*' + ['D.*'] -> 'A*:B*-C*:D.*'."""
    return gtest_filter + (":" if "-" in gtest_filter else "-") + ":".join(patterns)


def run_shard(index, count, gpu, args, out, shards, gtest_filter):
    """One gtest process on `gpu` under `gtest_filter`: shard `index` of `count` (count 1: the whole filter)."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=gpu)
    if count > 1:
        env.update(GTEST_TOTAL_SHARDS=str(count), GTEST_SHARD_INDEX=str(index))
    log_path = os.path.join(out, f"shard_{index}.log")
    start = time.monotonic()
    with open(log_path, "w") as log:
        status = run_group([args.binary, f"--gtest_filter={gtest_filter}"], log, env, args.timeout)
    with open(log_path, errors="replace") as log:
        shards[index] = dict(parse_log(log.read()), gpu=gpu, status=status, seconds=time.monotonic() - start)


def run_python_tests(gpus, args, out):
    """Each tests/gpu/*_test.py (with evotune's path) on the next free GPU: {name: (verdict, seconds, gpu)}."""
    tests = sorted(glob.glob(os.path.join(ROOT, "tests", "gpu", "*_test.py")))
    results, lock, queue = {}, threading.Lock(), list(tests)

    def worker(gpu):
        while True:
            with lock:
                if not queue:
                    return
                path = queue.pop(0)
            name = os.path.basename(path)[:-3]
            start = time.monotonic()
            with open(os.path.join(out, f"python_{name}.log"), "w") as log:
                status = run_group([sys.executable, path, args.evotune], log,
                                   dict(os.environ, CUDA_VISIBLE_DEVICES=gpu), args.timeout, cwd=ROOT)
            verdict = {0: "passed", PYTHON_SKIP: "skipped"}.get(status, f"failed ({status})")
            with lock:
                results[name] = (verdict, time.monotonic() - start, gpu)

    run_all(worker, [(gpu,) for gpu in gpus])
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.error = fail
    parser.add_argument("--gpus", required=True, help="GPU indices, one shard each: 0,1,2,3")
    parser.add_argument("--per-gpu", type=int, default=1, help="shards run at once on each GPU (default 1)")
    parser.add_argument("--filter", default="*", help="gtest filter (default: every test)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds a shard (and a Python test) may run")
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "evotune_gpu_tests"))
    parser.add_argument("--evotune", default=os.path.join(ROOT, "build", "evotune"))
    parser.add_argument("--python-tests", choices=["auto", "yes", "no"], default="auto",
                        help="run tests/gpu/*_test.py too (auto: without --filter)")
    parser.add_argument("--out", help="folder for the logs (default: a new temporary one)")
    args = parser.parse_args(argv)
    gpus = parse_gpus(args.gpus)
    if args.timeout <= 0:
        fail("--timeout must be positive")
    if args.per_gpu < 1:
        fail(f"--per-gpu {args.per_gpu}: at least 1 shard a GPU")
    if not os.access(args.binary, os.X_OK):
        fail(f"{args.binary}: no test binary (build first: scripts/gpu_tests.sh --gpus {args.gpus})")
    out = args.out or tempfile.mkdtemp(prefix="gpu_shards_")
    os.makedirs(out, exist_ok=True)
    expected = list_tests(args.binary, args.filter)

    shards, shard_gpus = {}, gpus * args.per_gpu
    alone = [] if args.per_gpu == 1 else [name for name in expected
                                          if any(fnmatch.fnmatchcase(name, p) for p in ALONE)]
    shared_filter = without(args.filter, ALONE) if alone else args.filter
    run_all(run_shard, [(i, len(shard_gpus), gpu, args, out, shards, shared_filter)
                        for i, gpu in enumerate(shard_gpus)])
    if alone:  # one GPU's share of them a process, each on a GPU of its own, after the shards
        groups = [alone[i::len(gpus)] for i in range(len(gpus))]
        run_all(run_shard, [(len(shard_gpus) + i, 1, gpu, args, out, shards, ":".join(group))
                            for i, (gpu, group) in enumerate(zip(gpus, groups)) if group])

    totals = {"passed": 0, "failed": 0, "skipped": 0}
    finished, failed, bad_shards = set(), [], 0
    for index in sorted(shards):
        shard = shards[index]
        for kind in totals:
            totals[kind] += len(shard[kind])
        finished.update(shard["passed"] + shard["failed"] + shard["skipped"])
        failed += shard["failed"]
        ended = "stopped at the time limit" if shard["status"] == "timeout" else f"exit {shard['status']}"
        if shard["status"] not in (0, 1):  # stopped at the time limit, or crashed
            bad_shards += 1
        where = f", in {shard['running']} when it stopped" if shard["running"] else ""
        print(f"shard {index} (GPU {shard['gpu']}): {len(shard['passed'])} passed, {len(shard['failed'])} failed, "
              f"{len(shard['skipped'])} skipped in {shard['seconds']:.0f} s, {ended}{where}")
    not_run = [name for name in expected if name not in finished]
    for name in failed:
        print(f"FAILED {name}")
    for name in not_run:
        print(f"NOT RUN {name}")

    python_failed = 0
    run_python = args.python_tests == "yes" or (args.python_tests == "auto" and args.filter == "*")
    if run_python:
        for name, (verdict, seconds, gpu) in sorted(run_python_tests(gpus, args, out).items()):
            print(f"python {name} (GPU {gpu}): {verdict} in {seconds:.0f} s")
            if verdict.startswith("failed"):
                python_failed += 1
            else:
                totals[verdict] += 1
    print(f"gpu tests: {totals['passed']} passed, {len(failed) + python_failed} failed, {totals['skipped']} "
          f"skipped, {len(not_run)} not run (logs in {out})")
    return 1 if failed or not_run or python_failed or bad_shards else 0


if __name__ == "__main__":
    sys.exit(main())
