#!/usr/bin/env python3
"""scripts/kt_t1_bench.py without a GPU: a stand-in for Kernel Tuner runs the Default config and "tunes" three
configs (one agreeing with the Default, one wrong, one whose check launch failed); the output marks each as
evotune would: ok, wrong_result, not_checked. Skips (77) without numpy."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

try:
    import numpy  # noqa: F401
except ImportError:
    print("skipped: numpy is not installed")
    sys.exit(77)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

FAKE_KERNEL_TUNER = textwrap.dedent('''
    import numpy as np

    def run_kernel(kernel_name, kernel_source, problem_size, arguments, params, **kwargs):
        assert params == {"TILE": 32}, params
        return [np.full(4, 2.0, dtype=np.float32), arguments[1]]

    def tune_kernel(strategy, strategy_options, quiet, verbose, observers, **kwargs):
        (observer,) = observers
        results = []
        for tile, out in ((8, [2.0, 2.0, 2.0, 2.0]), (16, [2.0, 2.0, 2.0, 9.0]), (64, None)):
            if out is not None:
                observer.process_output(None, [np.array(out, dtype=np.float32), kwargs["arguments"][1]])
            result = {"TILE": tile, "time": 1.0 + tile, "timestamp": "2026-11-26 12:00:00.000000+00:00"}
            result.update(observer.get_results())
            results.append(result)
        return results, {}
''')

FAKE_OBSERVER = textwrap.dedent('''
    class OutputObserver:
        pass
''')


class KernelTunerDriver(unittest.TestCase):
    def test_configs_are_checked_against_the_default(self):
        with tempfile.TemporaryDirectory() as tmp:
            kt = os.path.join(tmp, "kt")
            os.makedirs(os.path.join(kt, "kernel_tuner", "observers"))
            with open(os.path.join(kt, "kernel_tuner", "__init__.py"), "w") as f:
                f.write(FAKE_KERNEL_TUNER)
            open(os.path.join(kt, "kernel_tuner", "observers", "__init__.py"), "w").close()
            with open(os.path.join(kt, "kernel_tuner", "observers", "observer.py"), "w") as f:
                f.write(FAKE_OBSERVER)
            t1 = os.path.join(tmp, "tiny.json")
            with open(t1, "w") as f:
                json.dump({
                    "ConfigurationSpace": {"TuningParameters": [
                        {"Name": "TILE", "Type": "int", "Values": "[8, 16, 32, 64]", "Default": 32}]},
                    "KernelSpecification": {
                        "Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu",
                        "GlobalSize": {"X": "4 // TILE + 1"}, "LocalSize": {"X": "TILE"},
                        "Arguments": [
                            {"Name": "out", "Type": "float", "MemoryType": "Vector", "AccessType": "WriteOnly",
                             "Size": 4, "Output": 1},
                            {"Name": "x", "Type": "float", "MemoryType": "Vector", "AccessType": "ReadOnly",
                             "Size": 4, "FillType": "Random", "FillValue": 1.0}]}}, f)
            out = os.path.join(tmp, "out.json")
            run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "kt_t1_bench.py"), t1,
                                  "--budget", "3", "-o", out], env=dict(os.environ, KT_PATH=kt),
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            with open(out) as f:
                data = json.load(f)
            self.assertIsNone(data["error"])
            statuses = [(e["config"]["TILE"], e["status"]) for e in data["evaluations"]]
            self.assertEqual(statuses, [(8, "ok"), (16, "wrong_result"), (64, "not_checked")])
            self.assertEqual(data["evaluations"][0]["rel_l2_vs_default"], 0.0)
            self.assertGreater(data["evaluations"][1]["rel_l2_vs_default"], 1e-3)


if __name__ == "__main__":
    unittest.main()
