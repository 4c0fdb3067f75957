#!/usr/bin/env python3
"""The parts of scripts/compare_torch.py's GEMM comparison that need no GPU: shapes, the launcher's signature
read from the GEMM spaces, its argument values, and the table."""
import ctypes
import json
import os
import sys
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import compare_torch  # noqa: E402


class FakeTensor:
    def __init__(self, address):
        self.address = address

    def data_ptr(self):
        return self.address


class CompareTorchGemmTest(unittest.TestCase):
    def test_shapes(self):
        self.assertEqual(compare_torch.parse_gemm_shape("16,4096,4096,nt"), {"M": 16, "N": 4096, "K": 4096, "nt": True})
        shape = compare_torch.parse_gemm_shape("4095,4097,4093")
        self.assertFalse(shape["nt"])
        self.assertEqual(compare_torch.gemm_problem_text(shape), "M=4095,N=4097,K=4093,B_KMAJOR=0")
        for bad in ["1,2", "1,2,3,tn", "0,8,8", "a,b,c"]:
            with self.assertRaises(ValueError, msg=bad):
                compare_torch.parse_gemm_shape(bad)
        for text in compare_torch.DEFAULT_GEMM_SHAPES:
            compare_torch.parse_gemm_shape(text)

    def test_launcher_signature_and_values_follow_the_space(self):
        for space_file in compare_torch.DEFAULT_GEMM_SPACES:
            with open(os.path.join(ROOT, space_file)) as f:
                space = json.load(f)
            self.assertIn(compare_torch.gemm_space_dtype(space), ("fp16", "bf16"))
            symbol, names, argtypes = compare_torch.compare_sdpa.launcher_signature(space)
            self.assertEqual(symbol, "gemm_wgmma_launch")
            self.assertEqual(names, ["A", "B", "bias", "D", "M", "N", "K", "workspace"])
            self.assertEqual(argtypes, [ctypes.c_void_p] * 4 + [ctypes.c_int32] * 3 + [ctypes.c_void_p] * 2)
        tensors = {name: FakeTensor(address) for name, address in zip(["a", "b", "bias", "d", "workspace"],
                                                                      [16, 32, 48, 64, 80])}
        values = compare_torch.gemm_argument_values(["A", "B", "bias", "D", "M", "N", "K", "workspace"], tensors,
                                                    compare_torch.parse_gemm_shape("3,5,7"))
        self.assertEqual(values, [16, 32, 48, 64, 3, 5, 7, 80])
        with self.assertRaises(ValueError):
            compare_torch.gemm_argument_values(["alpha"], tensors, compare_torch.parse_gemm_shape("3,5,7"))

    def test_table(self):
        row = dict(compare_torch.parse_gemm_shape("8192,8192,8192"),
                   cublas={"us": 1400.0, "tflops": 785.4},
                   ours={"us": 1300.0, "tflops": 845.8, "space": "search_spaces/gemm_wgmma.json", "config_id": 7,
                         "stored": {"us": 1290.0, "mode": "graph x1, no L2 flush"}, "vs_stored": 1.008},
                   ratio=1400.0 / 1300.0)
        table = compare_torch.format_gemm_table([row]).splitlines()
        self.assertEqual(len(table), 2)
        self.assertIn("8192,8192,8192", table[1])
        self.assertIn("1400.0 (785)", table[1])
        self.assertIn("1.08x", table[1])
        self.assertIn("gemm_wgmma.json #7", table[1])
        failed = dict(compare_torch.parse_gemm_shape("1,2,8,nt"), cublas={"us": 5.0, "tflops": 0.0},
                      ours={"space": "x.json", "error": "no working variant"})
        self.assertIn("no working variant", compare_torch.format_gemm_table([failed]).splitlines()[1])


if __name__ == "__main__":
    unittest.main()
