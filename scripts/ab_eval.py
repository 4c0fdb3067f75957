#!/usr/bin/env python3
"""Is an edit faster? Two contenders of one space at one problem, each judged by `evotune eval` (every check
of the space's reference, then its timing), in interleaved rounds: A B, B A, A B, ... so that clocks and heat
drifting through the run weigh on both alike. A contender is a kernel file with a config: the space's template
as it was at a git revision (`--before REV`) against the working tree's, another kernel file (`--kernel-a`,
`--kernel-b`), or two configs of one kernel (`--params-b`: the values where B differs from A, laid over A's
config, e.g. `--params ...,CLUSTER_N=1 --params-b CLUSTER_N=2`).

    scripts/ab_eval.py --space search_spaces/flash_attn_fwd_wgmma.json --problem B=8,H=32,HKV=8,S=512,D=128 \\
        --params CONSUMER_WARPGROUPS=2,BLOCK_N=64,... --before HEAD --rounds 3

Each eval runs with `--timing graph --flush-l2 off --warmup-ms 300` unless flags after `--` replace them.
Prints every time, each contender's median, B / A of the medians and the median of the rounds' B / A; exits 1
when any eval fails (its status and reason printed), 2 on bad arguments. `--before REV` writes the template and
the space as REV had them beside the working tree's (the template's #includes and the space's other files
resolve to the working tree's) and removes them at the end: a template goes with its space (its tensor maps'
boxes, its expressions), so A is judged by REV's space, and A's config leaves out the parameters REV's space
does not have (named in the output); a space that REV did not have is the working tree's.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import space_doc

DEFAULT_EVAL_FLAGS = ["--timing", "graph", "--flush-l2", "off", "--warmup-ms", "300"]


def fail(message):
    """A bad argument: one line on stderr, exit 2."""
    print(f"ab_eval: {message}", file=sys.stderr)
    sys.exit(2)


def template_path(space):
    """The kernel file a space names (KernelSpecification.KernelFile, relative to the space file)."""
    try:
        spec = space_doc.load(space)["KernelSpecification"]
    except (OSError, ValueError, KeyError) as error:
        fail(f"{space}: no space's KernelSpecification.KernelFile ({error})")
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(space)), spec["KernelFile"]))


def show_revision(path, revision):
    """The bytes of the file at `path` as git revision `revision` had it, or None with git's reason."""
    directory = os.path.dirname(path)
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=directory, capture_output=True, text=True)
    if top.returncode != 0:
        fail(f"--before needs {path} in a git work tree: {top.stderr.strip()}")
    relative = os.path.relpath(path, top.stdout.strip())
    shown = subprocess.run(["git", "show", f"{revision}:{relative}"], cwd=directory, capture_output=True)
    if shown.returncode != 0:
        return None, f"git show {revision}:{relative}: {shown.stderr.decode().strip()}"
    return shown.stdout, None


def beside(path):
    """A hidden file's path beside `path` for this run: .STEM.ab_before_PID.EXT."""
    stem, ext = os.path.splitext(os.path.basename(path))
    return os.path.join(os.path.dirname(path), f".{stem}.ab_before_{os.getpid()}{ext}")


def write_revision(path, revision):
    """The file at `path` as git revision `revision` had it, written beside it; returns the new file's path."""
    text, reason = show_revision(path, revision)
    if text is None:
        fail(reason)
    before = beside(path)
    with open(before, "wb") as f:
        f.write(text)
    return before


def write_space_revision(space, revision, template):
    """The space as `revision` had it (a base it extends as REV had it too), beside the working tree's,
    naming `template` (REV's template, written beside the working tree's) as its kernel file: (its path, its
    parameter names), or (None, None) where REV had no such space. Its parameter names are None where it lists
    none."""
    text, _ = show_revision(os.path.abspath(space), revision)
    if text is None:
        return None, None

    def read_at_revision(path):  # a base it extends, as REV had it too
        base, why = show_revision(path, revision)
        if base is None:
            raise space_doc.SpaceDocError(why)
        return json.loads(base)

    try:
        spec = space_doc.resolve(json.loads(text), os.path.abspath(space), read_at_revision)
        spec["KernelSpecification"]["KernelFile"] = os.path.relpath(template, os.path.dirname(os.path.abspath(space)))
    except (ValueError, KeyError, TypeError) as error:
        fail(f"{space} as {revision} had it is no space ({error})")
    parameters = spec.get("ConfigurationSpace", {}).get("TuningParameters")
    names = None if parameters is None else {parameter["Name"] for parameter in parameters}
    path = beside(os.path.abspath(space))
    with open(path, "w") as f:
        json.dump(spec, f, indent=1)
    return path, names


def without(params, names):
    """The config `params` (K=V,...) without the keys that are not in `names`: (kept, dropped)."""
    if names is None:
        return params, []
    config = parse_config(params, "--params")
    return config_text({key: value for key, value in config.items() if key in names}), [
        key for key in config if key not in names]


def parse_config(text, option):
    """K=V,... -> an ordered dict; a pair without its '=' or key is a bad argument."""
    config = {}
    for pair in filter(None, text.split(",")):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            fail(f"{option}: '{pair}' is not NAME=VALUE")
        config[key.strip()] = value.strip()
    return config


def config_text(config):
    """An ordered dict -> K=V,..."""
    return ",".join(f"{key}={value}" for key, value in config.items())


def config_b(params, params_b):
    """B's config: A's, with --params-b's values over it (its new names after A's)."""
    if params_b is None:
        return params
    merged = parse_config(params, "--params")
    merged.update(parse_config(params_b, "--params-b"))
    return config_text(merged)


def run_eval(evotune, kernel, space, problem, params, flags):
    """One `evotune eval --json`: {"status", "time_us", "message"} (status "error" when no JSON came back)."""
    command = [evotune, "eval", kernel, "--space", space, "--problem", problem] + (
        ["--params", params] if params else []) + flags + ["--json"]
    done = subprocess.run(command, capture_output=True, text=True)
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return {"status": "error", "time_us": None, "message": lines[-1] if lines else f"exit {done.returncode}"}
    return {"status": result.get("status"), "time_us": result.get("time_us"), "message": result.get("message", "")}


def order(rounds):
    """The contenders' order in each round: A first in even rounds, B first in odd ones."""
    return [("A", "B") if r % 2 == 0 else ("B", "A") for r in range(rounds)]


def summarise(times):
    """{"A": [us...], "B": [us...]} by round -> medians, B / A of the medians and the median of the rounds'."""
    median_a, median_b = statistics.median(times["A"]), statistics.median(times["B"])
    by_round = [b / a for a, b in zip(times["A"], times["B"])]
    return {"median_a_us": median_a, "median_b_us": median_b, "b_over_a": median_b / median_a,
            "b_over_a_by_round": statistics.median(by_round)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.error = fail  # one line, exit 2, as every other refusal here
    parser.add_argument("--space", required=True)
    parser.add_argument("--problem", required=True)
    parser.add_argument("--params", default="", help="A's config (and B's, without --params-b)")
    parser.add_argument("--params-b", help="B's values where they differ from A's config (laid over it)")
    parser.add_argument("--kernel-a", help="A's kernel file (default: the space's template)")
    parser.add_argument("--kernel-b", help="B's kernel file (default: the space's template)")
    parser.add_argument("--before", metavar="REV", help="A is the space's template as git revision REV had it")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--evotune", default="build/evotune")
    parser.add_argument("--json", action="store_true", help="print the rounds and the summary as JSON")
    args, extra = parser.parse_known_args(argv)
    if extra and extra[0] == "--":
        extra = extra[1:]
    if args.before and args.kernel_a:
        parser.error("--before and --kernel-a both name A's kernel")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if not (args.before or args.kernel_a or args.kernel_b or args.params_b):
        parser.error("A and B are the same: give --before, --kernel-a/--kernel-b or --params-b")
    flags = extra or DEFAULT_EVAL_FLAGS
    template = template_path(args.space)
    before = write_revision(template, args.before) if args.before else None
    before_space, names = write_space_revision(args.space, args.before, before) if before else (None, None)
    params_a, dropped = without(args.params, names)
    spaces = {"A": before_space or args.space, "B": args.space}
    contenders = {"A": (before or args.kernel_a or template, params_a),
                  "B": (args.kernel_b or template, config_b(args.params, args.params_b))}
    rows = []
    try:
        for number, pair in enumerate(order(args.rounds), start=1):
            for name in pair:
                kernel, params = contenders[name]
                result = run_eval(args.evotune, kernel, spaces[name], args.problem, params, flags)
                rows.append(dict(result, round=number, contender=name))
    finally:
        for path in (before, before_space):
            if path:
                os.remove(path)
    failed = [f"round {row['round']} {row['contender']}: {row['status']}: {row['message']}" for row in rows
              if row["status"] != "ok" or row["time_us"] is None]
    summary = None if failed else summarise(
        {name: [row["time_us"] for row in rows if row["contender"] == name] for name in ("A", "B")})
    notes = []
    if before:
        notes.append(f"A's space: {args.space} as {args.before} had it" if before_space else
                     f"A's space: {args.space} as it is ({args.before} had none)")
    if dropped:
        notes.append(f"A's config leaves out {', '.join(dropped)}: {args.before}'s space has no such parameter")
    if args.json:
        print(json.dumps({"rounds": rows, "summary": summary, "failed": failed, "notes": notes}, indent=1))
    else:
        for name in ("A", "B"):
            kernel, params = contenders[name]
            shown = f"{args.before}:{os.path.relpath(template)}" if name == "A" and before else os.path.relpath(kernel)
            print(f"{name}: {shown}" + (f" with {params}" if params else ""))
        for note in notes:
            print(note)
        for row in rows:
            time = f"{row['time_us']:.2f} us" if row["time_us"] is not None else "-"
            print(f"round {row['round']} {row['contender']}: {row['status']} {time}")
        if summary:
            print(f"median A {summary['median_a_us']:.2f} us, B {summary['median_b_us']:.2f} us: B / A "
                  f"{summary['b_over_a']:.3f} (by round {summary['b_over_a_by_round']:.3f})")
    for line in failed:
        print(f"ab_eval: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
