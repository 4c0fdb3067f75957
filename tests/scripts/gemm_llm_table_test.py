#!/usr/bin/env python3
"""scripts/gemm_llm_table.py without a GPU: the shapes of issue 24, their split across GPUs, the shapes TMA
cannot load (none with the GEMM spaces, which stage such rows), and the markdown table with its geometric mean and count at 1.1x; and scripts/gemm_llm_table.sh
end to end on stand-ins for evotune and compare_torch.py (each tune under its wall-clock limit, the shapes not
tuned, the merged table)."""
import contextlib
import io
import json
import math
import os
import stat
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gemm_llm_table as table  # noqa: E402
import compare_torch  # noqa: E402


def row(shape, cublas_us=None, ours_us=None, error=None):
    parsed = compare_torch.parse_gemm_shape(shape)
    flops = 2.0 * parsed["M"] * parsed["N"] * parsed["K"]
    result = dict(parsed)
    if cublas_us:
        result["cublas"] = {"us": cublas_us, "tflops": flops / cublas_us / 1e6}
    if ours_us:
        result["ours"] = {"us": ours_us, "tflops": flops / ours_us / 1e6, "config_id": 7,
                          "space": "search_spaces/gemm_wgmma.json"}
        result["ratio"] = cublas_us / ours_us
    else:
        result["ours"] = {"space": "search_spaces/gemm_wgmma.json", "error": error or "no working variant"}
    return result


class Shapes(unittest.TestCase):
    def test_the_issues_shapes(self):
        llm = table.llm_shapes()
        self.assertEqual(len(llm), 36)
        self.assertEqual(len(set(llm)), 36)
        self.assertIn("1,4096,4096,nt", llm)
        self.assertIn("16384,8192,28672,nt", llm)
        self.assertTrue(all(shape.endswith(",nt") for shape in llm), "LLM layers: nn.Linear's [N, K]")
        odd = table.odd_shapes()
        self.assertEqual(odd, ["4095,4097,4093", "4095,4097,4093,nt", "1000,3000,2000", "1000,3000,2000,nt",
                               "77,5000,4096", "77,5000,4096,nt"])
        for shape in table.all_shapes():
            compare_torch.parse_gemm_shape(shape)  # compare_torch.py takes every one

    def test_shards_partition_the_shapes_evenly(self):
        shapes = table.all_shapes()
        for count in (1, 2, 3, 4, 8):
            shards = [table.shard(shapes, i, count, staged=False) for i in range(count)]
            self.assertEqual(sorted(sum(shards, [])), sorted(shapes), count)
            tuned = [sum(table.tma_unsupported(s) is None for s in one) for one in shards]
            self.assertLessEqual(max(tuned) - min(tuned), 1, (count, tuned))
        # Four shards (a tune's time is capped, so the count of tuned shapes is the load): each holds one of the
        # four largest, one of the next four, and ten shapes to tune.
        four = [table.shard(shapes, i, 4, staged=False) for i in range(4)]
        ordered = sorted(shapes, key=table.work, reverse=True)
        for one in four:
            self.assertEqual(sum(shape in ordered[:4] for shape in one), 1)
            self.assertEqual(sum(shape in ordered[4:8] for shape in one), 1)
            self.assertEqual(sum(table.tma_unsupported(s) is None for s in one), 10)
        # A space that stages misaligned rows (the GEMM spaces) tunes all 42: 11, 11, 10 and 10 a shard.
        staged = [table.shard(shapes, i, 4) for i in range(4)]
        self.assertEqual(sorted(sum(staged, [])), sorted(shapes))
        self.assertEqual(sorted(len(one) for one in staged), [10, 10, 11, 11])

    def test_bad_shard_specs(self):
        for text in ("4/4", "-1/4", "0/0", "1", "a/b", "1/2/3"):
            with self.assertRaises(ValueError, msg=text):
                table.parse_shard(text)
        self.assertEqual(table.parse_shard("3/4"), (3, 4))
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
            table.main(["shapes", "--shard", "4/4"])

    def test_rows_tma_cannot_load(self):
        self.assertIn("K is not a multiple of 8", table.tma_unsupported("4095,4097,4093,nt"))
        self.assertIn("K is not a multiple of 8", table.tma_unsupported("4095,4097,4093"))
        self.assertIn("N is not a multiple of 8", table.tma_unsupported("8,4097,64"))
        self.assertIsNone(table.tma_unsupported("8,4097,64,nt"), "B [N, K]: N is no row length")
        self.assertIsNone(table.tma_unsupported("77,5000,4096"))
        self.assertIsNone(table.tma_unsupported("4095,4097,4093", staged=True))
        # The GEMM spaces stage rows TMA cannot address (BufferIf on A's and B's maps): nothing is left out.
        for space in ("search_spaces/gemm_wgmma.json", "search_spaces/gemm_wgmma_bf16.json"):
            self.assertTrue(table.stages_rows(os.path.join(ROOT, space)), space)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                table.main(["shapes", "--unsupported", "--space", os.path.join(ROOT, space)])
            self.assertEqual(out.getvalue(), "", space)
        # A space that maps a and b directly leaves out the shapes whose rows it cannot load.
        with open(os.path.join(ROOT, "search_spaces/gemm_wgmma.json")) as f:
            direct = json.load(f)
        for argument in direct["KernelSpecification"]["Arguments"]:
            argument.pop("BufferIf", None)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "direct.json")
            with open(path, "w") as f:
                json.dump(direct, f)
            self.assertFalse(table.stages_rows(path))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                table.main(["shapes", "--unsupported", "--space", path])
        self.assertEqual(out.getvalue().splitlines(),
                         ["4095,4097,4093\tK is not a multiple of 8 (TMA needs 16-byte rows)",
                          "4095,4097,4093,nt\tK is not a multiple of 8 (TMA needs 16-byte rows)"])


class Table(unittest.TestCase):
    def test_the_table_and_its_means(self):
        rows = [row("16,4096,4096,nt", 9.0, 7.5), row("1,4096,4096,nt", 10.0, 12.5),
                row("77,5000,4096", 15.0, 10.0), row("4095,4097,4093", 300.0)]
        text = table.table(table.read_rows_from(rows), {"16,4096,4096,nt": (12.3, "0"),
                                                        "77,5000,4096": (40.0, "130"),
                                                        "1,4096,4096,nt": (61.0, "124")})
        lines = text.splitlines()
        self.assertTrue(lines[0].startswith("| M,N,K | B | tune s | ours us | cuBLAS us | cuBLAS / ours"))
        body = [line for line in lines if line.startswith("| ") and line[2].isdigit()]
        # LLM layers first, in the order of the issue's list, then the odd sizes.
        self.assertTrue(body[0].startswith("| 1,4096,4096 | [N,K] | 61 (exit 124) | 12.5 | 10.0 | 0.80x"))
        self.assertTrue(body[1].startswith("| 16,4096,4096 | [N,K] | 12 | 7.5 | 9.0 | 1.20x"))
        self.assertTrue(body[2].startswith("| 4095,4097,4093 | [K,N] | - | - | 300.0 | - |"))
        self.assertIn("no working variant", body[2])
        self.assertTrue(body[3].startswith("| 77,5000,4096 | [K,N] | 40 | 10.0 | 15.0 | 1.50x"), body[3])
        llm = [line for line in lines if line.startswith("LLM layers:")][0]
        self.assertIn(f"{math.sqrt(1.2 * 0.8):.3f}x over 2 shapes", llm)
        self.assertIn("1 of 2 at 1.1x or more", llm)
        everything = [line for line in lines if line.startswith("all shapes:")][0]
        self.assertIn(f"{(1.2 * 0.8 * 1.5) ** (1 / 3):.3f}x over 3 shapes", everything)
        self.assertIn("2 of 3 at 1.1x or more", everything)
        self.assertIn("1 without a working variant (left out)", everything)

    def test_files_and_errors(self):
        with tempfile.TemporaryDirectory() as folder:
            first, second = os.path.join(folder, "a.json"), os.path.join(folder, "b.json")
            with open(first, "w") as f:
                json.dump([row("16,4096,4096,nt", 9.0, 7.5)], f)
            with open(second, "w") as f:
                json.dump([row("1,4096,4096,nt", 10.0, 12.5)], f)
            times = os.path.join(folder, "tunes.tsv")
            with open(times, "w") as f:
                f.write("16,4096,4096,nt\t12.3\t0\n")
            output = os.path.join(folder, "table.md")
            self.assertEqual(table.main(["table", first, second, "--tune-times", times, "-o", output]), 0)
            with open(output) as f:
                self.assertIn("geometric mean of cuBLAS / ours 0.980x over 2 shapes", f.read())
            with open(times, "w") as f:
                f.write("16,4096,4096,nt 12.3\n")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(table.main(["table", first, "--tune-times", times]), 1)
            self.assertIn("tunes.tsv:1: expected", err.getvalue())
            with contextlib.redirect_stderr(err):
                self.assertEqual(table.main(["table", os.path.join(folder, "missing.json")]), 1)


STUB_EVOTUNE = """#!/usr/bin/env bash
# Stands in for evotune tune: records its arguments, then runs as long as the problem asks (M=1: past its
# --time-limit and the grace after it, stopping on SIGTERM with evotune's exit status 130).
echo "$@" >>"$STUB_LOG"
trap 'exit 130' TERM
case "$*" in *M=1,N=4096,K=4096,*) sleep 30 & wait ;; esac
exit 0
"""

STUB_PYTHON = """#!/usr/bin/env bash
# python3, except compare_torch.py, whose --json file gets a row of each --shape.
if [ "$1" = scripts/compare_torch.py ]; then
  exec python3 - "$@" <<'EOF'
import json, sys
sys.path.insert(0, "scripts")
import compare_torch
argv = sys.argv[1:]
with open(__import__("os").environ["STUB_LOG"] + ".compare", "a") as f:
    f.write(" ".join(argv) + "\\n")
shapes = [argv[i + 1] for i, a in enumerate(argv) if a == "--shape"]
rows = []
for text in shapes:
    shape = compare_torch.parse_gemm_shape(text)
    shape.update(cublas={"us": 10.0, "tflops": 1.0}, ours={"us": 8.0, "tflops": 1.25, "config_id": 1,
                 "space": "search_spaces/gemm_wgmma.json"}, ratio=1.25)
    rows.append(shape)
with open(argv[argv.index("--json") + 1], "w") as f:
    json.dump(rows, f)
EOF
fi
exec python3 "$@"
"""


class Script(unittest.TestCase):
    def test_two_shards_then_the_table(self):
        with tempfile.TemporaryDirectory() as folder:
            stubs = {}
            for name, text in (("evotune", STUB_EVOTUNE), ("python", STUB_PYTHON)):
                stubs[name] = os.path.join(folder, name)
                with open(stubs[name], "w") as f:
                    f.write(text)
                os.chmod(stubs[name], os.stat(stubs[name]).st_mode | stat.S_IEXEC)
            out = os.path.join(folder, "out")
            log = os.path.join(folder, "tune_args.log")
            env = dict(os.environ, EVOTUNE=stubs["evotune"], PYTHON=stubs["python"], LIMIT="2", GRACE="1", STUB_LOG=log,
                       COMPILE_THREADS="3")
            result = subprocess.run(["bash", "scripts/gemm_llm_table.sh", "--gpus", "0,1", out], cwd=ROOT, env=env,
                                    capture_output=True, text=True, timeout=300)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(log) as f:
                tunes = f.read().splitlines()
            self.assertEqual(len(tunes), 42, "every shape: the space stages rows TMA cannot address")
            self.assertTrue(all("--strategy evolve" in line and "--compile-threads 3" in line for line in tunes))
            self.assertTrue(all("--time-limit 2 " in line and "--budget 200 " in line for line in tunes))
            self.assertEqual(sum("--devices 0 " in line for line in tunes), 21)
            self.assertIn("M=77,N=5000,K=4096,B_KMAJOR=0", "\n".join(tunes))
            self.assertIn("M=4095,N=4097,K=4093,B_KMAJOR=1", "\n".join(tunes))
            self.assertNotIn("not tuned", result.stderr)
            with open(log + ".compare") as f:
                compares = f.read().splitlines()
            self.assertEqual(len(compares), 2, "one comparison a shard")
            self.assertTrue(all("--dtype fp16 " in line for line in compares), "cuBLAS in the space's type")
            with open(os.path.join(out, "tunes.tsv")) as f:
                times = {line.split("\t")[0]: line.split("\t")[1:] for line in f.read().splitlines()}
            seconds, status = times["1,4096,4096,nt"]
            self.assertEqual(status, "130", "stopped past its time limit and grace, as evotune does on SIGTERM")
            self.assertLess(float(seconds), 10.0)
            with open(os.path.join(out, "table.md")) as f:
                text = f.read()
            self.assertIn("LLM layers: geometric mean of cuBLAS / ours 1.250x over 36 shapes; 36 of 36", text)
            self.assertIn("all shapes: geometric mean of cuBLAS / ours 1.250x over 42 shapes", text)


if __name__ == "__main__":
    unittest.main()
