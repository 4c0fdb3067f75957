#!/usr/bin/env python3
"""Tunes one T1 file with Kernel Tuner (its own tune_kernel, not its T1 reader) and writes what it measured.

The T1 file is read here the way evotune reads it (docs/search-space-format.md, "T1 files"): Values evaluated,
Conditions as Kernel Tuner restrictions (they are Python already), the grid from ProblemSize and GridDiv where
given, else from GlobalSize (blocks for GlobalSizeType CUDA, ceil(global / local) for OpenCL) handed to Kernel
Tuner as an undivided problem size, MemType Constant arguments also as constant memory,
the block from LocalSize, arguments filled as evotune fills them, BenchmarkConfig names visible to every
expression, SharedMemory as dynamic shared memory. Validation as evotune's: the file's Default config is run once
(kernel_tuner.run_kernel) and every config's Output buffers are compared with it by an output observer (a
relative L2 error above --rtol, or a non-finite value, marks the config wrong_result in the output; stock
Kernel Tuner would stop its whole run at the first wrong result instead). --no-validate times without it.

    kt_t1_bench.py T1.json --strategy genetic_algorithm --budget 100 --seed 1 [--time-limit S] -o OUT.json

Needs numpy and cupy, and Kernel Tuner on sys.path (KT_PATH, default .carry/kt: the kernel_tuner package and
python-constraint2 first, packaging, xmltodict and jsonschema (with attrs and pyrsistent) from extra/ last).
"""
import argparse
import json
import math
import os
import re
import sys
import time

kt_path = os.environ.get("KT_PATH", os.path.join(os.path.dirname(__file__), "..", ".carry", "kt"))
sys.path.insert(0, os.path.abspath(kt_path))
sys.path.append(os.path.abspath(os.path.join(kt_path, "extra")))

import numpy as np  # noqa: E402

DTYPES = {"float": np.float32, "double": np.float64, "int32": np.int32, "int64": np.int64, "half": np.float16}


def pyeval(text, names):
    # The user's own tuning file, evaluated the way Kernel Tuner itself evaluates it.
    return eval(str(text), {"__builtins__": {"range": range, "list": list, "len": len, "min": min, "max": max}},
                dict(names))


def read_t1(path, seed):
    with open(path) as f:
        t1 = json.load(f)
    spec = t1["KernelSpecification"]
    config = dict(t1.get("BenchmarkConfig", {}))
    params = {}
    for p in t1["ConfigurationSpace"]["TuningParameters"]:
        values = p["Values"]
        params[p["Name"]] = list(pyeval(values, config)) if isinstance(values, str) else list(values)
    restrictions = [c["Expression"] for c in t1["ConfigurationSpace"].get("Conditions", [])]
    # BenchmarkConfig names are constants to Kernel Tuner's restrictions: substitute them.
    for name, value in config.items():
        restrictions = [re.sub(r"\b%s\b" % re.escape(name), str(value), r) for r in restrictions]
    axes = ("X", "Y", "Z")
    local = [str(spec["LocalSize"].get(a, "1")) for a in axes]
    glob = [str(spec["GlobalSize"].get(a, "1")) for a in axes]
    opencl = spec.get("GlobalSizeType", "CUDA") == "OpenCL"

    def grid(p):
        names = dict(config, **p)
        g = [int(pyeval(e, names)) for e in glob]
        if opencl:
            g = [math.ceil(x / int(pyeval(l, names))) for x, l in zip(g, local)]
        return tuple(g)

    block_names = []
    for i, l in enumerate(local):
        if l not in params and l != "1":
            raise SystemExit("%s: LocalSize.%s '%s' is not a parameter name (not supported here)" % (path, axes[i], l))
        block_names.append(l if l in params else "__one_%d" % i)
    rng = np.random.default_rng(seed)
    args = []
    for a in spec["Arguments"]:
        dtype = DTYPES[a["Type"]]
        if a["MemoryType"] == "Scalar":
            args.append(dtype(a["FillValue"]))
            continue
        size = int(pyeval(a["Size"], config))
        fill = a.get("FillType", "Random")
        if a.get("AccessType") == "WriteOnly" or fill == "Constant":
            args.append(np.full(size, a.get("FillValue", 0), dtype=dtype))
        elif fill == "Generator":
            args.append(rng.uniform(0, size, size).astype(dtype))
        else:
            args.append(rng.uniform(0, a.get("FillValue", 1.0), size).astype(dtype))
    kernel_file = os.path.join(os.path.dirname(path), spec["KernelFile"])
    smem = spec.get("SharedMemory", 0)
    # MemType Constant: passed and also copied into the __constant__ variable of the argument's name.
    cmem = {a["Name"]: arg for a, arg in zip(spec["Arguments"], args) if a.get("MemType") == "Constant"}
    grid_divs = dict(grid_div_x=[], grid_div_y=[], grid_div_z=[])
    problem_size = grid
    if "ProblemSize" in spec:  # Kernel Tuner's own grid, as evotune and the suite's runner read it
        extents = spec["ProblemSize"] if isinstance(spec["ProblemSize"], list) else [spec["ProblemSize"]]
        problem_size = tuple(int(pyeval(e, config)) for e in extents)
        # An axis without GridDiv keeps Kernel Tuner's default divisor, that axis's block size.
        grid_divs = {"grid_div_" + a.lower(): [str(d) for d in spec["GridDiv" + a]] for a in axes
                     if spec.get("GridDiv" + a)}
    outputs = [a["MemoryType"] != "Scalar" and (a.get("Output") == 1 or a.get("AccessType") in ("WriteOnly",
               "ReadWrite")) for a in spec["Arguments"]]
    return dict(kernel_name=spec["KernelName"], kernel_source=kernel_file, problem_size=problem_size, outputs=outputs,
                arguments=args, cmem_args=cmem or None,
                tune_params=params, restrictions=restrictions, block_size_names=block_names,
                **grid_divs,
                compiler_options=spec.get("CompilerOptions", []),
                smem_args={"size": int(smem)} if smem else None, lang="CUDA")


def defaults_of(path):
    with open(path) as f:
        return {p["Name"]: p["Default"] for p in json.load(f)["ConfigurationSpace"]["TuningParameters"]}


def reference_outputs(kernel_tuner, kwargs, defaults, is_output):
    """The Default config's outputs (None for arguments that are not Output buffers), run once."""
    problem_size = kwargs["problem_size"]
    if callable(problem_size):
        problem_size = problem_size(defaults)
    keep = ("kernel_name", "kernel_source", "arguments", "grid_div_x", "grid_div_y", "grid_div_z",
            "block_size_names", "compiler_options", "smem_args", "cmem_args", "lang")
    outputs = kernel_tuner.run_kernel(params=defaults, problem_size=problem_size, quiet=True,
                                      **{k: kwargs[k] for k in keep if k in kwargs})
    return [np.array(out, copy=True) if output else None
            for out, output in zip(outputs, is_output)]


def agreement_observer(expected, rtol):
    from kernel_tuner.observers.observer import OutputObserver

    class AgreesWithTheDefault(OutputObserver):
        """Each config's Output buffers against the Default config's: the worst relative L2 error."""

        def __init__(self):
            self.error = None

        def process_output(self, answer, output):
            worst = 0.0
            for want, got in zip(expected, output):
                if want is None or got is None:
                    continue
                want = np.asarray(want, dtype=np.float64).ravel()
                got = np.asarray(got, dtype=np.float64).ravel()
                if not np.all(np.isfinite(got)):
                    worst = math.inf
                    break
                worst = max(worst, float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)))
            self.error = worst

        def get_results(self):
            error, self.error = self.error, None
            return {"rel_l2_vs_default": error}

    return AgreesWithTheDefault()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("t1")
    parser.add_argument("--strategy", default="genetic_algorithm")
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds: Kernel Tuner's own time_limit (it stops and keeps what it measured)")
    parser.add_argument("--rtol", type=float, default=1e-3, help="relative L2 error allowed against the Default")
    parser.add_argument("--no-validate", action="store_true", help="time every config without checking it")
    parser.add_argument("-o", "--output", required=True)
    options = parser.parse_args()
    import kernel_tuner
    np.random.seed(options.seed)
    kwargs = read_t1(options.t1, options.seed)
    outputs = kwargs.pop("outputs")
    strategy_options = {} if options.strategy == "brute_force" else {"max_fevals": options.budget}
    if options.time_limit:
        strategy_options["time_limit"] = options.time_limit
    observers = []
    start = time.time()
    error = None
    results = []
    try:
        if not options.no_validate:
            expected = reference_outputs(kernel_tuner, kwargs, defaults_of(options.t1), outputs)
            observers.append(agreement_observer(expected, options.rtol))
        results, env = kernel_tuner.tune_kernel(strategy=options.strategy, strategy_options=strategy_options,
                                                quiet=True, verbose=False, observers=observers or None,
                                                **kwargs)
    except Exception as e:  # Kernel Tuner stops the whole run at an unexpected error: say which
        error = "%s: %s" % (type(e).__name__, e)
    wall = time.time() - start
    evaluations = []
    for r in results:
        t = r.get("time")
        ok = isinstance(t, (int, float)) and math.isfinite(t)
        error_vs_default = r.get("rel_l2_vs_default")
        status = "ok" if ok else type(t).__name__
        if ok and observers and error_vs_default is None:
            status = "not_checked"  # Kernel Tuner ran no check (its check launch failed): not a result
        elif ok and observers and not error_vs_default <= options.rtol:
            status = "wrong_result"
        evaluations.append({"config": {k: int(r[k]) for k in kwargs["tune_params"]},
                            "status": status, "rel_l2_vs_default": error_vs_default,
                            "time_ms": float(t) if ok else None,
                            "timestamp": r.get("timestamp"),
                            "compile_ms": r.get("compile_time"), "benchmark_ms": r.get("benchmark_time")})
    with open(options.output, "w") as f:
        json.dump({"tuner": "kernel_tuner " + kernel_tuner.__version__ if hasattr(kernel_tuner, "__version__")
                   else "kernel_tuner", "file": options.t1, "strategy": options.strategy,
                   "budget": options.budget, "seed": options.seed, "time_limit_s": options.time_limit,
                   "wall_s": wall, "error": error,
                   "evaluations": evaluations}, f, indent=1)
    print("%s %s budget %d: %d evaluations in %.1f s%s" % (os.path.basename(options.t1), options.strategy,
          options.budget, len(evaluations), wall, "; stopped: " + error if error else ""))


if __name__ == "__main__":
    main()
