#!/usr/bin/env python3
"""scripts/ab_eval.py on a stand-in evotune (a script answering `eval --json` with a time set by the kernel
file's text and the config, logging every call): the interleaved order, the medians and ratios, --before's files
from git (the template and the space, written beside the working tree's, removed after; A's config without the
parameters REV's space lacks), --params-b laid over --params, the eval flags, and the failures: an eval that is
not ok exits 1 with its reason, bad arguments exit 2 in one line."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "ab_eval.py")

# The stand-in: time 100 us for a kernel whose text says "slow", 90 otherwise, plus BLOCK_N / 64 us; the status
# "wrong" for a kernel whose text says "wrong"; every call appended to $FAKE_LOG as a JSON line.
FAKE_EVOTUNE = r'''#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
kernel = args[1]
text = open(kernel).read()
params = args[args.index("--params") + 1] if "--params" in args else ""
space = args[args.index("--space") + 1]
spec = json.load(open(space))
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps({"kernel": kernel, "params": params, "args": args, "space": space,
                          "space_kernel": spec["KernelSpecification"]["KernelFile"],
                          "space_params": [p["Name"] for p in
                                           spec.get("ConfigurationSpace", {}).get("TuningParameters", [])]})
              + "\n")
block_n = dict(kv.split("=") for kv in params.split(",") if kv).get("BLOCK_N", "0")
if "wrong" in text:
    print(json.dumps({"status": "wrong", "time_us": None, "message": "O: 3 of 64 values differ"}))
else:
    print(json.dumps({"status": "ok", "time_us": (100.0 if "slow" in text else 90.0) + int(block_n) / 64,
                      "message": ""}))
'''


class AbEvalTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        root = self.dir.name
        os.makedirs(os.path.join(root, "kernels"))
        os.makedirs(os.path.join(root, "spaces"))
        self.template = os.path.join(root, "kernels", "k.cu")
        with open(self.template, "w") as f:
            f.write("// slow\n")
        self.space = os.path.join(root, "spaces", "s.json")
        with open(self.space, "w") as f:
            json.dump({"KernelSpecification": {"KernelFile": "../kernels/k.cu"}}, f)
        self.evotune = os.path.join(root, "evotune")
        with open(self.evotune, "w") as f:
            f.write(FAKE_EVOTUNE)
        os.chmod(self.evotune, 0o755)
        self.log = os.path.join(root, "calls.log")
        git = lambda *a: subprocess.run(["git", *a], cwd=root, check=True, capture_output=True)
        git("init", "-q")
        git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "slow")
        with open(self.template, "w") as f:  # the working tree's edit: fast
            f.write("// fast\n")

    def tearDown(self):
        self.dir.cleanup()

    def run_script(self, *args):
        env = dict(os.environ, FAKE_LOG=self.log)
        return subprocess.run([sys.executable, SCRIPT, "--space", self.space, "--problem", "B=1",
                               "--evotune", self.evotune, *args], capture_output=True, text=True, env=env)

    def calls(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def test_before_is_the_revision_beside_the_template_in_interleaved_rounds(self):
        done = self.run_script("--params", "BLOCK_N=64", "--before", "HEAD", "--rounds", "3", "--json")
        self.assertEqual(done.returncode, 0, done.stderr)
        out = json.loads(done.stdout)
        self.assertEqual([(r["round"], r["contender"]) for r in out["rounds"]],
                         [(1, "A"), (1, "B"), (2, "B"), (2, "A"), (3, "A"), (3, "B")])
        calls = self.calls()
        before = [c["kernel"] for c in calls if ".ab_before_" in c["kernel"]]
        self.assertEqual(len(before), 3)
        self.assertEqual(os.path.dirname(before[0]), os.path.dirname(self.template), "beside the template")
        self.assertFalse(os.path.exists(before[0]), "removed after the rounds")
        self.assertEqual({c["kernel"] for c in calls} - set(before), {self.template})
        # A (HEAD: slow) 101 us, B (the working tree: fast) 91 us.
        self.assertEqual(out["summary"]["median_a_us"], 101.0)
        self.assertEqual(out["summary"]["median_b_us"], 91.0)
        self.assertAlmostEqual(out["summary"]["b_over_a"], 91.0 / 101.0)
        self.assertAlmostEqual(out["summary"]["b_over_a_by_round"], 91.0 / 101.0)
        # The probes' timing method unless told otherwise, and the same config for both.
        for call in calls:
            self.assertEqual(call["args"][-7:], ["--timing", "graph", "--flush-l2", "off", "--warmup-ms", "300",
                                                 "--json"])
            self.assertEqual(call["params"], "BLOCK_N=64")

    def test_before_judges_a_by_the_space_as_the_revision_had_it(self):
        # The working tree's space gains a parameter (and a changed box, say) that HEAD's template knows nothing
        # of: A runs HEAD's template with HEAD's space, without the new parameter; B the working tree's both.
        with open(self.space, "w") as f:
            json.dump({"KernelSpecification": {"KernelFile": "../kernels/k.cu"},
                       "ConfigurationSpace": {"TuningParameters": [{"Name": "BLOCK_N"}, {"Name": "NEW"}]}}, f)
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "params"],
                       cwd=self.dir.name, check=True, capture_output=True)
        with open(self.space, "w") as f:
            json.dump({"KernelSpecification": {"KernelFile": "../kernels/k.cu"},
                       "ConfigurationSpace": {"TuningParameters": [{"Name": "BLOCK_N"}, {"Name": "NEW"},
                                                                   {"Name": "NEWER"}]}}, f)
        done = self.run_script("--params", "BLOCK_N=64,NEWER=1", "--before", "HEAD", "--rounds", "2")
        self.assertEqual(done.returncode, 0, done.stderr)
        calls = self.calls()
        a = [c for c in calls if ".ab_before_" in c["kernel"]]
        b = [c for c in calls if ".ab_before_" not in c["kernel"]]
        self.assertEqual((len(a), len(b)), (2, 2))
        for call in a:
            self.assertEqual(os.path.dirname(call["space"]), os.path.dirname(self.space), "beside the space")
            self.assertIn(".ab_before_", call["space"])
            self.assertFalse(os.path.exists(call["space"]), "removed after the rounds")
            self.assertEqual(os.path.normpath(os.path.join(os.path.dirname(call["space"]), call["space_kernel"])),
                             call["kernel"], "HEAD's space names HEAD's template")
            self.assertEqual(call["space_params"], ["BLOCK_N", "NEW"])
            self.assertEqual(call["params"], "BLOCK_N=64")
        for call in b:
            self.assertEqual(call["space"], self.space)
            self.assertEqual(call["params"], "BLOCK_N=64,NEWER=1")
        self.assertIn("A's space: " + self.space + " as HEAD had it", done.stdout)
        self.assertIn("A's config leaves out NEWER: HEAD's space has no such parameter", done.stdout)

    def test_before_a_space_the_revision_did_not_have_is_the_working_tree_s(self):
        other = os.path.join(self.dir.name, "spaces", "new.json")
        with open(other, "w") as f:
            json.dump({"KernelSpecification": {"KernelFile": "../kernels/k.cu"}}, f)
        env = dict(os.environ, FAKE_LOG=self.log)
        done = subprocess.run([sys.executable, SCRIPT, "--space", other, "--problem", "B=1", "--evotune",
                               self.evotune, "--before", "HEAD", "--rounds", "1", "--json"],
                              capture_output=True, text=True, env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual({c["space"] for c in self.calls()}, {other})
        self.assertEqual(json.loads(done.stdout)["notes"], [f"A's space: {other} as it is (HEAD had none)"])

    def test_two_configs_of_one_kernel_and_eval_flags_after_the_separator(self):
        done = self.run_script("--params", "BLOCK_N=64", "--params-b", "BLOCK_N=128", "--rounds", "2", "--",
                               "--timing", "single")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("B / A 1.011", done.stdout)  # 92 / 91
        calls = self.calls()
        self.assertEqual([c["params"] for c in calls], ["BLOCK_N=64", "BLOCK_N=128", "BLOCK_N=128", "BLOCK_N=64"])
        self.assertTrue(all(c["args"][-3:] == ["--timing", "single", "--json"] for c in calls))

    def test_params_b_is_laid_over_a_s_config(self):
        done = self.run_script("--params", "BLOCK_N=64,STAGES=2,CLUSTER=1", "--params-b", "STAGES=3,PINGPONG=1",
                               "--rounds", "1", "--json")
        self.assertEqual(done.returncode, 0, done.stderr)
        by_contender = {row["contender"]: row for row in json.loads(done.stdout)["rounds"]}
        self.assertEqual(set(by_contender), {"A", "B"})
        self.assertEqual([c["params"] for c in self.calls()],
                         ["BLOCK_N=64,STAGES=2,CLUSTER=1", "BLOCK_N=64,STAGES=3,CLUSTER=1,PINGPONG=1"])

    def test_a_contender_that_fails_its_checks_exits_1_with_its_reason(self):
        wrong = os.path.join(self.dir.name, "kernels", "wrong.cu")
        with open(wrong, "w") as f:
            f.write("// wrong\n")
        done = self.run_script("--kernel-b", wrong, "--rounds", "1")
        self.assertEqual(done.returncode, 1)
        self.assertIn("round 1 B: wrong: O: 3 of 64 values differ", done.stderr)
        self.assertNotIn("median", done.stdout)

    def test_bad_arguments_exit_2_in_one_line(self):
        for args, expected in ((["--rounds", "2"], "A and B are the same"),
                               (["--before", "no-such-revision"], "git show no-such-revision:kernels/k.cu"),
                               (["--before", "HEAD", "--kernel-a", "x.cu"], "--before and --kernel-a"),
                               (["--params", "BLOCK_N=64", "--params-b", "STAGES"],
                                "--params-b: 'STAGES' is not NAME=VALUE")):
            done = self.run_script(*args)
            self.assertEqual(done.returncode, 2, args)
            self.assertIn(expected, done.stderr)
            self.assertEqual(len([l for l in done.stderr.splitlines() if "ab_eval" in l]), 1, done.stderr)
        self.assertFalse(os.path.exists(self.log), "no eval ran")


if __name__ == "__main__":
    unittest.main()
