#!/usr/bin/env python3
"""scripts/gpu_shards.py on a stand-in gtest binary (it lists its tests, runs its shard of them as gtest's
sharding assigns them, fails, skips or hangs where a test's name says so, and logs the GPU it was given): one
shard a GPU with CUDA_VISIBLE_DEVICES set (or several with --per-gpu), the counts merged, failures and the tests a stopped shard never ran
listed by name, the Python GPU tests' verdicts (passed, skipped with 77, failed), the exit status, and the
refusals."""
import os
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "gpu_shards.py")

# Tests in gtest's listing order; a shard runs those whose index % GTEST_TOTAL_SHARDS is GTEST_SHARD_INDEX.
FAKE_GTEST = r'''#!/usr/bin/env python3
import fnmatch, os, sys, time
tests = os.environ["FAKE_TESTS"].split(",")
pattern = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--gtest_filter=")), "*")
positive, _, negative = pattern.partition("-")  # gtest's "P1:P2-N1:N2"
matches = lambda t, patterns: any(fnmatch.fnmatchcase(t, p) for p in patterns.split(":") if p)
tests = [t for t in tests if matches(t, positive or "*") and not matches(t, negative)]
if "--gtest_list_tests" in sys.argv:
    suites = {}
    for t in tests:
        suite, name = t.split(".", 1)
        suites.setdefault(suite, []).append(name)
    for suite, names in suites.items():
        print(suite + ".")
        for name in names:
            print("  " + name + "  # GetParam() = x")
    sys.exit(0)
total, index = int(os.environ.get("GTEST_TOTAL_SHARDS", 1)), int(os.environ.get("GTEST_SHARD_INDEX", 0))
if "GTEST_TOTAL_SHARDS" in os.environ:
    print("Note: This is test shard %d of %d." % (index + 1, total))
print("GPU " + os.environ.get("CUDA_VISIBLE_DEVICES", "none"), flush=True)
failed = []
for i, t in enumerate(tests):
    if i % total != index:
        continue
    print("[ RUN      ] " + t, flush=True)
    if "Hang" in t:  # with a child of its own, as a test's eval worker: the time limit ends both
        import subprocess
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open(os.environ["FAKE_CHILD_PID"], "w").write(str(child.pid))
        time.sleep(60)
    if "Fail" in t:
        failed.append(t)
        print("x.cpp:1: Failure")
        print("[  FAILED  ] %s, where GetParam() = x (3 ms)" % t)
    elif "Skip" in t:
        print("[  SKIPPED ] %s (0 ms)" % t)
    else:
        print("[       OK ] %s (5 ms)" % t)
if failed:  # gtest's closing list names each failure again
    print("[  FAILED  ] %d test, listed below:" % len(failed))
    for t in failed:
        print("[  FAILED  ] %s, where GetParam() = x" % t)
sys.exit(1 if failed else 0)
'''


def alive(pid):
    """Whether process `pid` still runs (a killed one may linger as a zombie until it is reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class GpuShardsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.binary = os.path.join(self.dir.name, "fake_gtest")
        with open(self.binary, "w") as f:
            f.write(FAKE_GTEST)
        os.chmod(self.binary, 0o755)
        self.out = os.path.join(self.dir.name, "logs")
        self.child_pid = os.path.join(self.dir.name, "child.pid")

    def tearDown(self):
        self.dir.cleanup()

    def run_script(self, tests, *args):
        env = dict(os.environ, FAKE_TESTS=",".join(tests), FAKE_CHILD_PID=self.child_pid)
        return subprocess.run([sys.executable, SCRIPT, "--binary", self.binary, "--out", self.out,
                               "--python-tests", "no", *args], capture_output=True, text=True, env=env)

    def test_one_shard_a_gpu_and_the_counts_merged(self):
        tests = [f"Fp16/Gemm.Case/case_{i}" for i in range(5)] + ["Cluster/Gemm.Skipped_case"]
        done = self.run_script(tests, "--gpus", "2,5")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("shard 0 (GPU 2): 3 passed, 0 failed, 0 skipped", done.stdout)
        self.assertIn("shard 1 (GPU 5): 2 passed, 0 failed, 1 skipped", done.stdout)
        self.assertIn("gpu tests: 5 passed, 0 failed, 1 skipped, 0 not run", done.stdout)
        with open(os.path.join(self.out, "shard_1.log")) as log:
            self.assertIn("GPU 5", log.read())

    def test_several_shards_a_gpu(self):
        tests = [f"Fp16/Gemm.Case/case_{i}" for i in range(7)]
        done = self.run_script(tests, "--gpus", "3,4", "--per-gpu", "2")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        # four shards: 0 and 2 on GPU 3, 1 and 3 on GPU 4; gtest gives shard i the tests i, i + 4, ...
        for index, gpu, passed in ((0, 3, 2), (1, 4, 2), (2, 3, 2), (3, 4, 1)):
            self.assertIn(f"shard {index} (GPU {gpu}): {passed} passed, 0 failed", done.stdout)
            with open(os.path.join(self.out, f"shard_{index}.log")) as log:
                text = log.read()
            self.assertIn(f"GPU {gpu}", text)
            self.assertIn(f"test shard {index + 1} of 4", text)
        self.assertIn("gpu tests: 7 passed, 0 failed, 0 skipped, 0 not run", done.stdout)

    def test_the_whole_gpu_tests_run_alone_after_the_shards(self):
        # NVML's power and energy take in whatever else runs on the GPU: with several shards a GPU, the
        # energy test runs after them, in a process of its own (unsharded), one a GPU.
        tests = [f"Fp16/Gemm.Case/case_{i}" for i in range(4)] + ["EnergyOnTheGpu.PowerCase",
                                                                  "EnergyOnTheGpu.OtherCase"]
        done = self.run_script(tests, "--gpus", "3,4", "--per-gpu", "2", "--filter", "*Case*:EnergyOnTheGpu.*")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        for index in range(4):
            with open(os.path.join(self.out, f"shard_{index}.log")) as log:
                self.assertNotIn("EnergyOnTheGpu", log.read(), index)
        for index, gpu, test in ((4, 3, "EnergyOnTheGpu.PowerCase"), (5, 4, "EnergyOnTheGpu.OtherCase")):
            with open(os.path.join(self.out, f"shard_{index}.log")) as log:
                text = log.read()
            self.assertIn(f"GPU {gpu}", text)
            self.assertNotIn("test shard", text)
            self.assertIn(f"[       OK ] {test}", text)
            self.assertIn(f"shard {index} (GPU {gpu}): 1 passed, 0 failed", done.stdout)
        self.assertIn("gpu tests: 6 passed, 0 failed, 0 skipped, 0 not run", done.stdout)
        # One shard a GPU: nothing else shares it, so they stay among the rest.
        done = self.run_script(tests, "--gpus", "3", "--filter", "*Case*-*case_3")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("shard 0 (GPU 3): 5 passed", done.stdout)
        self.assertNotIn("shard 1", done.stdout)

    def test_failures_and_a_stopped_shards_unrun_tests_are_named(self):
        tests = ["S.A", "S.Fails", "S.Hangs", "S.B", "S.C", "S.D"]
        done = self.run_script(tests, "--gpus", "0,1", "--timeout", "3")
        self.assertEqual(done.returncode, 1)
        self.assertIn("FAILED S.Fails", done.stdout)
        # shard 0 runs S.A, S.Hangs, S.C: stopped in S.Hangs, so S.Hangs and S.C never finished
        self.assertIn("stopped at the time limit, in S.Hangs when it stopped", done.stdout)
        self.assertIn("NOT RUN S.Hangs", done.stdout)
        self.assertIn("NOT RUN S.C", done.stdout)
        self.assertIn("gpu tests: 3 passed, 1 failed, 0 skipped, 2 not run", done.stdout)
        with open(self.child_pid) as f:
            child = int(f.read())
        time.sleep(0.2)
        self.assertFalse(alive(child), "the hung test's own child was killed with it")

    def test_the_filter_narrows_the_listing_and_the_shards(self):
        tests = ["Fp16/Attn.Case/case_0", "Fp16/Gemm.Case/case_0", "Fp16/Gemm.Case/case_1"]
        done = self.run_script(tests, "--gpus", "0", "--filter", "*Gemm*")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("gpu tests: 2 passed, 0 failed, 0 skipped, 0 not run", done.stdout)

    def test_bad_arguments_exit_2_in_one_line(self):
        for args, expected in ((["--gpus", "0,x"], "a comma-separated list of GPU indices"),
                               (["--gpus", "1,1"], "a GPU named twice"),
                               (["--gpus", "0", "--timeout", "0"], "--timeout must be positive"),
                               (["--gpus", "0", "--per-gpu", "0"], "at least 1 shard a GPU"),
                               (["--gpus", "0", "--binary", "/nonexistent/bin"], "no test binary")):
            env = dict(os.environ, FAKE_TESTS="S.A")
            command = [sys.executable, SCRIPT, "--binary", self.binary, *args]
            done = subprocess.run(command, capture_output=True, text=True, env=env)
            self.assertEqual(done.returncode, 2, args)
            self.assertIn(expected, done.stderr)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)


class PythonTestsTest(unittest.TestCase):
    def test_verdicts_by_exit_status(self):
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        import gpu_shards
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "tests", "gpu"))
            for name, code in (("ok_test", 0), ("skip_test", 77), ("bad_test", 3)):
                with open(os.path.join(root, "tests", "gpu", name + ".py"), "w") as f:
                    f.write(f"import os, sys\nprint(os.environ['CUDA_VISIBLE_DEVICES'])\nsys.exit({code})\n")
            saved = gpu_shards.ROOT
            gpu_shards.ROOT = root
            try:
                args = type("Args", (), {"evotune": "evotune", "timeout": 30})()
                results = gpu_shards.run_python_tests(["0", "1"], args, root)
            finally:
                gpu_shards.ROOT = saved
        self.assertEqual({name: verdict for name, (verdict, _, _) in results.items()},
                         {"ok_test": "passed", "skip_test": "skipped", "bad_test": "failed (3)"})
        self.assertTrue({gpu for _, _, gpu in results.values()} <= {"0", "1"})


if __name__ == "__main__":
    unittest.main()
