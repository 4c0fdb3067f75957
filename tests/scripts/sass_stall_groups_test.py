#!/usr/bin/env python3
"""scripts/sass_stall_groups.py on source pages written here in ncu's CSV layout: the groups by execution count
(instructions, samples and their shares, the top stall reasons), the instructions with the most samples, two
kernels in one file, numbers with thousands separators, and the refusals (no file, no source page, no sample
columns, a report without ncu) in one line with exit 2."""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "sass_stall_groups.py")

HEADER = ('"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)",'
          '"Instructions Executed","stall_barrier","stall_long_sb","stall_mio","stall_wait",'
          '"stall_wait (Not Issued)"')


def row(address, source, samples, executed, barrier=0, long_sb=0, mio=0, wait=0):
    return (f'"{address}","{source}","{samples}","0","{executed}","{barrier}","{long_sb}","{mio}","{wait}",'
            f'"{wait}"')


# A loop of three instructions run 8 times a work tile (8,192 runs), a work tile's wait and epilogue (1,024
# runs), a block's setup (32 runs): 100 + 50 + 30 samples in the loop, 60 + 40 a work tile, 20 a block.
KERNEL_A = "\n".join([
    '"Kernel Name","tiled_kernel",',
    HEADER,
    row("0x10", "MOV R1, c[0x0][0x28]", 20, 32, wait=20),
    row("0x20", "@!P0 BRA 0x40", 60, 1024, long_sb=60),
    row("0x30", "HGMMA.64x128x16.F32 R24, gdesc[UR4], RZ", 100, "8,192", wait=70, mio=30),
    row("0x40", "MUFU.EX2 R3, R3", 50, "8,192", mio=50),
    row("0x50", "WARPGROUP.DEPBAR.LE gsb0, 0x0", 30, "8,192", barrier=30),
    row("0x60", "BAR.SYNC.DEFER_BLOCKING R6, 0x80", 40, 1024, barrier=40),
])
KERNEL_B = "\n".join([
    '"Kernel Name","vendor_kernel",',
    HEADER,
    row("0x10", "HGMMA.64x128x16.F32 R24, gdesc[UR4], RZ", 10, 4096, wait=10),
])


def run(*args, env=None):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, env=env)


class SassStallGroups(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text + "\n")
        return path

    def test_groups_by_execution_count(self):
        result = run(self.write("a.csv", KERNEL_A), "--top", "3")
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], "tiled_kernel: 300 warp stall samples, 26656 warp instructions executed, "
                                   "6 SASS instructions")
        groups = [line.split() for line in lines[2:5]]
        # The loop first: 3 instructions, 180 samples (60.0%), 24,576 of 26,656 executed (92.2%).
        self.assertEqual(groups[0][:6], ["8192", "3", "180", "60.0%", "24576", "92.2%"])
        self.assertIn("wait 39%", lines[2])
        self.assertIn("mio 44%", lines[2])
        self.assertEqual(groups[1][:6], ["1024", "2", "100", "33.3%", "2048", "7.7%"])
        self.assertIn("long_sb 60%", lines[3])
        self.assertIn("barrier 40%", lines[3])
        self.assertEqual(groups[2][:6], ["32", "1", "20", "6.7%", "32", "0.1%"])
        self.assertIn("the 3 instructions with the most samples:", lines[5])
        self.assertIn("HGMMA.64x128x16.F32", lines[6])
        self.assertIn("wait 70%, mio 30%", lines[6])
        self.assertIn("@!P0 BRA 0x40", lines[7])
        self.assertIn("MUFU.EX2", lines[8])

    def test_two_kernels_in_one_file_and_two_files(self):
        both = self.write("both.csv", KERNEL_A + "\n" + KERNEL_B)
        result = run(both, self.write("b.csv", KERNEL_B), "--top", "1")
        self.assertEqual(result.returncode, 0, result.stderr)
        names = [line.split(":")[0] for line in result.stdout.splitlines() if not line.startswith(" ")]
        self.assertEqual(names, ["tiled_kernel", "vendor_kernel", "vendor_kernel"])
        self.assertIn("10 warp stall samples, 4096 warp instructions executed", result.stdout)

    def test_refusals_are_one_line(self):
        cases = [
            ([os.path.join(self.dir.name, "missing.csv")], "no such file"),
            ([self.write("other.csv", "a,b\n1,2")], "not an Nsight Compute source page"),
            ([self.write("nosamples.csv", '"Kernel Name","k",\n"Address","Source"\n"0x10","NOP"')],
             "profile with the SourceCounters section"),
            ([self.write("a.csv", KERNEL_A), "--top", "0"], "--top must be at least 1"),
        ]
        report = self.write("r.ncu-rep", "not a report")
        env = dict(os.environ, PATH="/nonexistent", CUDA_HOME="/nonexistent")
        for args, message in cases:
            result = run(*args)
            self.assertEqual(result.returncode, 2, args)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
            self.assertIn(message, result.stderr)
        if not os.access("/usr/local/cuda/bin/ncu", os.X_OK):
            result = run(report, env=env)
            self.assertEqual(result.returncode, 2)
            self.assertIn("no ncu", result.stderr)


if __name__ == "__main__":
    unittest.main()
