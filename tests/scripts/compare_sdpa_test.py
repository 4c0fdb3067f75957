#!/usr/bin/env python3
"""The parts of scripts/compare_sdpa.py that need no GPU: shapes, the launcher's signature read from a space,
its argument values, and the table."""
import ctypes
import json
import os
import sys
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import compare_sdpa  # noqa: E402


class FakeTensor:
    def __init__(self, address):
        self.address = address

    def data_ptr(self):
        return self.address


class CompareSdpaTest(unittest.TestCase):
    def test_shapes(self):
        self.assertEqual(compare_sdpa.parse_shape("2,16,2048,128,causal"),
                         {"B": 2, "H": 16, "S": 2048, "D": 128, "causal": True})
        shape = compare_sdpa.parse_shape("1,8,512,64")
        self.assertFalse(shape["causal"])
        self.assertEqual(compare_sdpa.problem_text(shape), "B=1,H=8,S=512,D=64,CAUSAL=0")
        self.assertEqual(compare_sdpa.flops(shape), 4 * 8 * 512 * 512 * 64)
        self.assertEqual(compare_sdpa.flops(dict(shape, causal=True)), 2 * 8 * 512 * 512 * 64)
        for bad in ["1,8,512", "1,8,512,64,noncausal", "0,8,512,64", "a,b,c,d"]:
            with self.assertRaises(ValueError, msg=bad):
                compare_sdpa.parse_shape(bad)
        for text in compare_sdpa.DEFAULT_SHAPES:
            compare_sdpa.parse_shape(text)
        self.assertTrue(any(compare_sdpa.parse_shape(t)["S"] % 64 for t in compare_sdpa.DEFAULT_SHAPES),
                        "the default list has an S that is not a multiple of 64")

    def test_launcher_signature_and_values_follow_the_space(self):
        for space_file in compare_sdpa.DEFAULT_SPACES:
            with open(os.path.join(ROOT, space_file)) as f:
                space = json.load(f)
            symbol, names, argtypes = compare_sdpa.launcher_signature(space)
            self.assertEqual(symbol, space["KernelSpecification"]["KernelName"] + "_launch")
            # Spaces of several launches (the mma spaces' SPLITS, the wgmma spaces' TMA_LOADS) export one
            # signature for every config: with a workspace, which their scratch buffers (if any) come from.
            workspace = ["workspace"] if "fwd_mma" in space_file or "fwd_wgmma" in space_file else []
            self.assertEqual(names, ["Q", "K", "V", "O", "B", "H", "S", "scale"] + workspace)
            self.assertEqual(argtypes, [ctypes.c_void_p] * 4 + [ctypes.c_int32] * 3 + [ctypes.c_float] +
                             [ctypes.c_void_p] * len(workspace) + [ctypes.c_void_p])
            if workspace:
                self.assertEqual(compare_sdpa.workspace_signature(space),
                                 (space["KernelSpecification"]["KernelName"] + "_workspace_bytes", ["B", "H", "S"],
                                  [ctypes.c_int32] * 3))
        tensors = {name: FakeTensor(address) for name, address in zip("qkvo", [16, 32, 48, 64])}
        tensors["workspace"] = FakeTensor(80)
        with open(os.path.join(ROOT, "search_spaces/flash_attn_fwd_mma_bf16.json")) as f:
            names = compare_sdpa.launcher_signature(json.load(f))[1]
        values = compare_sdpa.argument_values(names, tensors, compare_sdpa.parse_shape("2,4,100,64"))
        self.assertEqual(values, [16, 32, 48, 64, 2, 4, 100, 0.125, 80])
        with self.assertRaises(ValueError):
            compare_sdpa.argument_values(["Q", "bias"], tensors, compare_sdpa.parse_shape("2,4,100,64"))

    def test_space_dtypes(self):
        dtypes = {}
        for space_file in compare_sdpa.DEFAULT_SPACES:
            with open(os.path.join(ROOT, space_file)) as f:
                dtypes[os.path.basename(space_file)] = compare_sdpa.space_dtype(json.load(f))
        self.assertEqual(dtypes, {"flash_attn_fwd.json": "fp16", "flash_attn_fwd_mma.json": "fp16",
                                  "flash_attn_fwd_mma_bf16.json": "bf16", "flash_attn_fwd_wgmma.json": "fp16"})

    def test_space_arch_adds_the_spaces_suffix(self):
        with open("search_spaces/flash_attn_fwd_wgmma.json") as f:
            wgmma = json.load(f)
        with open("search_spaces/flash_attn_fwd_mma.json") as f:
            mma = json.load(f)
        self.assertEqual(compare_sdpa.space_arch(wgmma, "sm_90"), "sm_90a")
        self.assertEqual(compare_sdpa.space_arch(wgmma, "sm_90a"), "sm_90a")
        self.assertEqual(compare_sdpa.space_arch(mma, "sm_90"), "sm_90")

    def test_table(self):
        row = dict(compare_sdpa.parse_shape("8,16,4096,64"),
                   cudnn={"us": 1233.4, "tflops": 445.7}, flash={"us": 1829.2, "tflops": 300.5},
                   efficient={"error": "not supported"},
                   ours={"us": 1100.0, "tflops": 499.7, "space": "search_spaces/flash_attn_fwd_mma.json",
                         "config_id": 42}, ratio=1233.4 / 1100.0)
        table = compare_sdpa.format_table([row]).splitlines()
        self.assertEqual(len(table), 2)
        self.assertIn("ours/best", table[0])
        self.assertIn("1233.4 (446)", table[1])
        self.assertIn("1.12x", table[1])
        self.assertIn("flash_attn_fwd_mma.json #42", table[1])
        failed = dict(row, ours={"space": "x.json", "error": "no working variant"}, ratio=None)
        self.assertIn("no working variant", compare_sdpa.format_table([failed]))


if __name__ == "__main__":
    unittest.main()
