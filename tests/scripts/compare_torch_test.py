#!/usr/bin/env python3
"""The parts of scripts/compare_torch.py that need no GPU: shapes, the launchers' signatures read from the
spaces, their argument values, the command line, the tables, and the shared loop (loading a launcher, the
CUDA-graph timing in interleaved rounds) on a stand-in for torch and for the built library."""
import contextlib
import ctypes
import io
import os
import statistics
import sys
import types
import unittest
import weakref

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import compare_torch  # noqa: E402
import space_doc  # noqa: E402


class FakeTensor:
    def __init__(self, address, size=0):
        self.address, self.size = address, size

    def data_ptr(self):
        return self.address

    def numel(self):
        return self.size

    def copy_(self, source):  # its time is the graph's replays'
        pass


class FakeTorch:
    """What the timing and load_launcher use of torch, on a clock that only the recorded events advance: the
    i-th replay of any graph takes `replay_ms[i]` (cycling), or, where replay_ms is a function, replay n of graph
    g (numbered in the order the graphs were made) takes replay_ms(g, n); each event is stamped when recorded.
    The log holds each capture and replay with its graph's number."""
    __version__ = "0.0-fake"

    def __init__(self, replay_ms):
        self.log, self.replay_ms, self.clock, self.replays = [], replay_ms, 0.0, 0
        self.capturing = False
        self.graphs = []  # a weak reference to each graph made
        torch = self

        class Event:
            def __init__(self, enable_timing):
                assert enable_timing
                self.time = None

            def record(self):
                self.time = torch.clock

            def synchronize(self):
                torch.log.append("wait")

            def elapsed_time(self, end):
                return end.time - self.time

        class Graph:
            def __init__(self):
                self.number, self.replays = len(torch.graphs), 0
                torch.graphs.append(weakref.ref(self))

            def replay(self):
                if callable(torch.replay_ms):
                    torch.clock += torch.replay_ms(self.number, self.replays)
                else:
                    torch.clock += torch.replay_ms[torch.replays % len(torch.replay_ms)]
                torch.replays += 1
                self.replays += 1
                torch.log.append(("replay", self.number))

        class Stream:
            cuda_stream = 1234

            def wait_stream(self, other):
                pass

        @contextlib.contextmanager
        def capture(graph, stream, capture_error_mode):
            self.log.append(("capture", graph.number))
            self.capturing = True
            yield
            self.capturing = False

        class Cuda:
            CUDAGraph = Graph

            @staticmethod
            def synchronize():
                torch.log.append("sync")

            @staticmethod
            def get_device_name():
                return "Fake GPU"

            @staticmethod
            def current_stream():
                return Stream()

            @staticmethod
            def Stream():
                return Stream()

            @staticmethod
            def stream(stream):
                return contextlib.nullcontext()

            @staticmethod
            def graph(graph, stream, capture_error_mode):
                return capture(graph, stream, capture_error_mode)

        Cuda.Event = Event
        self.cuda = Cuda
        self.uint8 = "uint8"

    def empty(self, size, device, dtype):
        self.log.append(("empty", size, device, dtype))
        return FakeTensor(4096, size)

    def empty_like(self, tensor):
        return FakeTensor(8192, tensor.size)


class FakeFunction:
    """A ctypes function of the stand-in library: records its calls, returns `result`."""

    def __init__(self, result):
        self.result, self.calls = result, []

    def __call__(self, *args):
        self.calls.append(args)
        return self.result


class AttentionTest(unittest.TestCase):
    def test_shapes(self):
        self.assertEqual(compare_torch.parse_attention_shape("2,16,2048,128,causal"),
                         {"B": 2, "H": 16, "HKV": 16, "S": 2048, "SKV": 2048, "D": 128, "causal": True})
        shape = compare_torch.parse_attention_shape("1,8,512,64")
        self.assertFalse(shape["causal"])
        self.assertEqual(compare_torch.attention_problem(shape), "B=1,H=8,S=512,D=64,CAUSAL=0")
        self.assertEqual(compare_torch.attention_tag(dict(shape, causal=True)), "1_8_512_64_causal")
        self.assertEqual(compare_torch.attention_flops(shape), 4 * 8 * 512 * 512 * 64)
        self.assertEqual(compare_torch.attention_flops(dict(shape, causal=True)), 2 * 8 * 512 * 512 * 64)
        # Grouped K/V heads and a key length of their own: named in the problem only where they differ, so that
        # spaces without those sizes still take it; causal pairs below the bottom-right diagonal.
        grouped = compare_torch.parse_attention_shape("2,32/8,1024/4096,128,causal")
        self.assertEqual((grouped["H"], grouped["HKV"], grouped["S"], grouped["SKV"]), (32, 8, 1024, 4096))
        self.assertEqual(compare_torch.attention_problem(grouped),
                         "B=2,H=32,S=1024,D=128,CAUSAL=1,HKV=8,SKV=4096")
        self.assertEqual(compare_torch.attention_tag(grouped), "2_32-8_1024-4096_128_causal")
        self.assertEqual(compare_torch.attention_flops(grouped), 4 * 2 * 32 * 128 * (1024 * 4096 - 1024 * 1024 / 2))
        self.assertEqual(compare_torch.attention_flops(dict(grouped, S=4096, SKV=1024)),
                         4 * 2 * 32 * 128 * 1024 * 1024 / 2)
        self.assertEqual(compare_torch.attention_flops(dict(grouped, causal=False)), 4 * 2 * 32 * 128 * 1024 * 4096)
        for bad in ["1,8,512", "1,8,512,64,noncausal", "1,8,512,64,causal,causal", "0,8,512,64", "a,b,c,d",
                    "1,32/6,512,64", "1,32/8/2,512,64", "1,8,512/0,64", "1,8,512/x,64"]:
            with self.assertRaises(ValueError, msg=bad):
                compare_torch.parse_attention_shape(bad)
        for text in compare_torch.ATTENTION_SHAPES:
            compare_torch.parse_attention_shape(text)
        self.assertTrue(any(compare_torch.parse_attention_shape(t)["S"] % 64 for t in compare_torch.ATTENTION_SHAPES),
                        "the default list has an S that is not a multiple of 64")

    def test_launcher_signature_and_values_follow_the_space(self):
        for space_file in compare_torch.ATTENTION_SPACES:
            space = space_doc.load(os.path.join(ROOT, space_file))
            symbol, names, argtypes = compare_torch.launcher_signature(space)
            self.assertEqual(symbol, space["KernelSpecification"]["KernelName"] + "_launch")
            # Spaces of several launches (the mma spaces' SPLITS, the wgmma spaces' TMA_LOADS) export one
            # signature for every config: with a workspace, which their scratch buffers (if any) come from.
            workspace = ["workspace"] if "fwd_mma" in space_file or "fwd_wgmma" in space_file else []
            grouped = "fwd_wgmma" in space_file  # K/V heads and key length of their own, and the rows' LSE
            sizes = ["B", "H", "HKV", "S", "SKV"] if grouped else ["B", "H", "S"]
            buffers = ["Q", "K", "V", "O"] + (["LSE"] if grouped else [])
            self.assertEqual(names, buffers + sizes + ["scale"] + workspace)
            self.assertEqual(argtypes, [ctypes.c_void_p] * len(buffers) + [ctypes.c_int32] * len(sizes) +
                             [ctypes.c_float] + [ctypes.c_void_p] * len(workspace) + [ctypes.c_void_p])
            if workspace:
                self.assertEqual(compare_torch.workspace_signature(space),
                                 (space["KernelSpecification"]["KernelName"] + "_workspace_bytes", sizes,
                                  [ctypes.c_int32] * len(sizes)))
        tensors = {name: FakeTensor(address) for name, address in zip("qkvo", [16, 32, 48, 64])}
        tensors["workspace"] = FakeTensor(80)
        space = space_doc.load(os.path.join(ROOT, "search_spaces/flash_attn_fwd_mma_bf16.json"))
        names = compare_torch.launcher_signature(space)[1]
        shape = compare_torch.parse_attention_shape("2,4,100,64")
        # A launcher without LSE needs no lse tensor.
        self.assertEqual(compare_torch.attention_values(names, tensors, shape), [16, 32, 48, 64, 2, 4, 100, 0.125, 80])
        space = space_doc.load(os.path.join(ROOT, "search_spaces/flash_attn_fwd_wgmma.json"))
        names = compare_torch.launcher_signature(space)[1]
        with self.assertRaises(KeyError):  # the wgmma launcher writes the rows' log-sum-exps too
            compare_torch.attention_values(names, tensors, shape)
        tensors["lse"] = FakeTensor(96)
        # Without grouped heads or a key length of its own, K/V heads and key length are H and S.
        self.assertEqual(compare_torch.attention_values(names, tensors, shape),
                         [16, 32, 48, 64, 96, 2, 4, 4, 100, 100, 0.125, 80])
        grouped = compare_torch.parse_attention_shape("2,4/2,100/300,64")
        self.assertEqual(compare_torch.attention_values(names, tensors, grouped),
                         [16, 32, 48, 64, 96, 2, 4, 2, 100, 300, 0.125, 80])
        with self.assertRaises(ValueError):
            compare_torch.attention_values(["Q", "bias"], tensors, shape)

    def test_space_dtypes_and_arch(self):
        dtypes = {}
        for space_file in compare_torch.ATTENTION_SPACES:
            space = space_doc.load(os.path.join(ROOT, space_file))
            dtypes[os.path.basename(space_file)] = compare_torch.space_dtype(space, "Q")
        self.assertEqual(dtypes, {"flash_attn_fwd.json": "fp16", "flash_attn_fwd_mma.json": "fp16",
                                  "flash_attn_fwd_mma_bf16.json": "bf16", "flash_attn_fwd_wgmma.json": "fp16"})
        wgmma = space_doc.load(os.path.join(ROOT, "search_spaces/flash_attn_fwd_wgmma.json"))
        mma = space_doc.load(os.path.join(ROOT, "search_spaces/flash_attn_fwd_mma.json"))
        self.assertEqual(compare_torch.space_arch(wgmma, "sm_90"), "sm_90a")
        self.assertEqual(compare_torch.space_arch(wgmma, "sm_90a"), "sm_90a")
        self.assertEqual(compare_torch.space_arch(mma, "sm_90"), "sm_90")

    def test_table(self):
        row = dict(compare_torch.parse_attention_shape("8,16,4096,64"),
                   cudnn={"us": 1233.4, "tflops": 445.7}, flash={"us": 1829.2, "tflops": 300.5},
                   efficient={"error": "not supported"},
                   ours={"us": 1100.0, "tflops": 499.7, "space": "search_spaces/flash_attn_fwd_mma.json",
                         "config_id": 42}, ratio=1233.4 / 1100.0, ratio_rounds=1.097)
        table = compare_torch.format_table([row], compare_torch.ATTENTION).splitlines()
        self.assertEqual(len(table), 2)
        self.assertEqual(table[0].split()[:6], ["shape", "causal", "cudnn", "us", "(TFLOP/s)", "flash"])
        self.assertIn("ours/best  ours/best by round  stored us", table[0])
        self.assertIn("1233.4 (446)", table[1])
        cells = table[1].split()
        self.assertEqual(cells[cells.index("1.12x") + 1], "1.10x", "the ratio of the medians, then by round")
        self.assertIn("flash_attn_fwd_mma.json #42", table[1])
        failed = dict(row, ours={"space": "x.json", "error": "no working variant"}, ratio=None)
        self.assertIn("no working variant", compare_torch.format_table([failed], compare_torch.ATTENTION))


class GemmTest(unittest.TestCase):
    def test_shapes(self):
        self.assertEqual(compare_torch.parse_gemm_shape("16,4096,4096,nt"), {"M": 16, "N": 4096, "K": 4096, "nt": True})
        shape = compare_torch.parse_gemm_shape("4095,4097,4093")
        self.assertFalse(shape["nt"])
        self.assertEqual(compare_torch.gemm_problem(shape), "M=4095,N=4097,K=4093,B_KMAJOR=0")
        self.assertEqual(compare_torch.GEMM["flops"](shape), 2.0 * 4095 * 4097 * 4093)
        for bad in ["1,2", "1,2,3,tn", "0,8,8", "a,b,c"]:
            with self.assertRaises(ValueError, msg=bad):
                compare_torch.parse_gemm_shape(bad)
        for text in compare_torch.GEMM_SHAPES:
            compare_torch.parse_gemm_shape(text)

    def test_launcher_signature_and_values_follow_the_space(self):
        for space_file in compare_torch.GEMM_SPACES:
            space = space_doc.load(os.path.join(ROOT, space_file))
            self.assertIn(compare_torch.space_dtype(space, "A"), ("fp16", "bf16"))
            symbol, names, argtypes = compare_torch.launcher_signature(space)
            self.assertEqual(symbol, "gemm_wgmma_launch")
            self.assertEqual(names, ["A", "B", "bias", "D", "M", "N", "K", "workspace"])
            self.assertEqual(argtypes, [ctypes.c_void_p] * 4 + [ctypes.c_int32] * 3 + [ctypes.c_void_p] * 2)
        tensors = {name: FakeTensor(address) for name, address in zip(["a", "b", "bias", "d", "workspace"],
                                                                      [16, 32, 48, 64, 80])}
        shape = compare_torch.parse_gemm_shape("3,5,7")
        values = compare_torch.gemm_values(["A", "B", "bias", "D", "M", "N", "K", "workspace"], tensors, shape)
        self.assertEqual(values, [16, 32, 48, 64, 3, 5, 7, 80])
        with self.assertRaises(ValueError):
            compare_torch.gemm_values(["alpha"], tensors, shape)

    def test_table(self):
        row = dict(compare_torch.parse_gemm_shape("8192,8192,8192"),
                   cublas={"us": 1400.0, "tflops": 785.4},
                   ours={"us": 1300.0, "tflops": 845.8, "space": "search_spaces/gemm_wgmma.json", "config_id": 7,
                         "stored": {"us": 1290.0, "mode": "graph x1, no L2 flush"}, "vs_stored": 1.008},
                   ratio=1400.0 / 1300.0)
        table = compare_torch.format_table([row], compare_torch.GEMM).splitlines()
        self.assertEqual(len(table), 2)
        self.assertIn("cuBLAS us (TFLOP/s)", table[0])
        self.assertIn("ours/cuBLAS", table[0])
        self.assertIn("8192,8192,8192", table[1])
        self.assertIn("[K,N]", table[1])
        self.assertIn("1400.0 (785)", table[1])
        self.assertIn("1.08x", table[1])
        self.assertIn("1290.0 (graph x1, no L2 flush)", table[1])
        self.assertIn("gemm_wgmma.json #7", table[1])
        failed = dict(compare_torch.parse_gemm_shape("1,2,8,nt"), cublas={"us": 5.0, "tflops": 0.0},
                      ours={"space": "x.json", "error": "no working variant"})
        self.assertIn("no working variant", compare_torch.format_table([failed], compare_torch.GEMM).splitlines()[1])


class DecodeTest(unittest.TestCase):
    def test_shapes(self):
        shape = compare_torch.parse_decode_shape("8,32/8,1,32768,128")
        self.assertEqual(shape, {"B": 8, "HQ": 32, "HKV": 8, "SQ": 1, "SKV": 32768, "D": 128, "causal": True,
                                 "page": 0})
        self.assertEqual(compare_torch.decode_problem(shape),
                         "B=8,HKV=8,G=4,SQ=1,SKV=32768,D=128,CAUSAL=1,PAGED=0")
        paged = compare_torch.parse_decode_shape("1,64/8,4,1000,64,nocausal,paged=16")
        self.assertEqual(compare_torch.decode_problem(paged),
                         "B=1,HKV=8,G=8,SQ=4,SKV=1000,D=64,CAUSAL=0,PAGED=1,PAGE=16")
        self.assertEqual(compare_torch.decode_tag(paged), "1_64_8_4_1000_64_nocausal_paged16")
        # K and V once: 2 tensors x B x SKV x HKV x D x 2 bytes.
        self.assertEqual(compare_torch.decode_bytes(shape), 2.0 * 8 * 32768 * 8 * 128 * 2)
        for bad in ["8,32,1,32768,128", "8,30/8,1,4096,128", "8,32/8,1,4096", "8,32/8,1,4096,128,paged=32",
                    "8,32/8,0,4096,128", "8,32/8,1,4096,128,causal"]:
            with self.assertRaises(ValueError, msg=bad):
                compare_torch.parse_decode_shape(bad)
        for text in compare_torch.DECODE_SHAPES:
            compare_torch.parse_decode_shape(text)

    def test_launcher_signature_and_values_follow_the_space(self):
        for space_file in compare_torch.DECODE_SPACES:
            space = space_doc.load(os.path.join(ROOT, space_file))
            self.assertIn(compare_torch.space_dtype(space, "q"), ("fp16", "bf16"))
            symbol, names, argtypes = compare_torch.launcher_signature(space)
            self.assertEqual(names, ["q", "k_cache", "v_cache", "cache_seqlens", "block_table", "o", "batch", "hkv",
                                     "skv", "total_rows", "scale", "workspace"])
            size_symbol, size_names, _ = compare_torch.workspace_signature(space)
            self.assertEqual(size_names, ["batch", "hkv", "skv", "total_rows"])
        keys = ["q", "k_cache", "v_cache", "cache_seqlens", "block_table", "o", "workspace"]
        tensors = {name: FakeTensor(16 * (i + 1)) for i, name in enumerate(keys)}
        shape = compare_torch.parse_decode_shape("2,8/2,3,100,64")
        values = compare_torch.decode_values(names, tensors, shape)
        self.assertEqual(values[:6], [16, 32, 48, 64, 80, 96])
        self.assertEqual(values[6:10], [2, 2, 100, 2 * 8 * 3])
        self.assertAlmostEqual(values[10], 0.125)
        self.assertEqual(values[11], 112)

    def test_table_holds_the_bandwidths(self):
        row = dict(compare_torch.parse_decode_shape("8,32/8,1,32768,128,paged=64"),
                   cudnn={"error": "no"}, flash={"us": 400.0, "tflops": 5.0}, efficient={"us": 420.0, "tflops": 5.0},
                   ours={"us": 367.5, "tflops": 11.7, "space": "search_spaces/decode_attn.json", "config_id": 18},
                   ratio=400.0 / 367.5, copy_gbps=3012.0, ours_gbps=2922.0)
        table = compare_torch.format_table([row], compare_torch.DECODE).splitlines()
        self.assertIn("ours K/V GB/s", table[0])
        self.assertIn("8,32/8,1,32768,128", table[1])
        self.assertIn("paged 64", table[1])
        self.assertEqual(table[1].split()[-3:], ["2922", "3012", "0.97"])


class BackwardTest(unittest.TestCase):
    def test_flops_and_values(self):
        shape = compare_torch.parse_attention_shape("2,4/2,100/300,64,causal")
        self.assertEqual(compare_torch.backward_flops(shape), 2.5 * compare_torch.attention_flops(shape))
        names = ["Q", "K", "V", "O", "dO", "LSE", "dQ", "dK", "dV", "B", "H", "HKV", "S", "SKV", "scale", "workspace"]
        keys = ["q", "k", "v", "o", "do", "lse", "dq", "dk", "dv", "workspace"]
        tensors = {name: FakeTensor(16 * (i + 1)) for i, name in enumerate(keys)}
        self.assertEqual(compare_torch.backward_values(names, tensors, shape),
                         [16, 32, 48, 64, 80, 96, 112, 128, 144, 2, 4, 2, 100, 300, 0.125, 160])
        # The table is attention's, with the backward's flops.
        self.assertIs(compare_torch.BACKWARD["cells"], compare_torch.ATTENTION["cells"])
        self.assertEqual(compare_torch.BACKWARD["shapes"], ["8,16,4096,64", "4,16,4096,128", "2,16,8192,128,causal",
                                                            "4,32,1024,64"])

    def test_the_backward_spaces_launchers_take_what_the_values_give(self):
        for space_file in compare_torch.BACKWARD_SPACES:
            path = os.path.join(ROOT, space_file)
            if not os.path.exists(path):
                self.skipTest(f"{space_file} is not in this tree")
            space = space_doc.load(path)
            names = compare_torch.launcher_signature(space)[1]
            tensors = {name: FakeTensor(16 * (i + 1)) for i, name in
                       enumerate(["q", "k", "v", "o", "do", "lse", "dq", "dk", "dv", "workspace"])}
            values = compare_torch.backward_values(names, tensors, compare_torch.parse_attention_shape("1,2,64,64"))
            self.assertEqual(len(values), len(names))


class TrainingTest(unittest.TestCase):
    def test_flops_table_and_forward_spaces(self):
        shape = compare_torch.parse_attention_shape("2,16,8192,128,causal")
        self.assertEqual(compare_torch.training_flops(shape), 3.5 * compare_torch.attention_flops(shape))
        # The backward's shapes, spaces and table, with a training step's flops and its own comparison.
        self.assertEqual(compare_torch.TRAINING["shapes"], compare_torch.BACKWARD["shapes"])
        self.assertEqual(compare_torch.TRAINING["spaces"], compare_torch.BACKWARD_SPACES)
        self.assertIs(compare_torch.TRAINING["cells"], compare_torch.ATTENTION["cells"])
        self.assertIs(compare_torch.TRAINING["compare"], compare_torch.compare_training)
        # Each forward space's launcher takes what attention_values gives, and writes the LSE the backward reads.
        for space_file in compare_torch.TRAINING_FORWARD_SPACES:
            space = space_doc.load(os.path.join(ROOT, space_file))
            names = compare_torch.launcher_signature(space)[1]
            self.assertIn("LSE", names, space_file)
            tensors = {name: FakeTensor(16 * (i + 1)) for i, name in enumerate(["q", "k", "v", "o", "lse", "workspace"])}
            values = compare_torch.attention_values(names, tensors, shape)
            self.assertEqual(len(values), len(names))

    def test_command_line_pairs_each_dtype_with_its_forward(self):
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                op, args = compare_torch.parse_arguments(["training", "--dtype", "bf16", "--shape", "2,16,8192,128,causal"])
            self.assertIs(op, compare_torch.TRAINING)
            self.assertEqual(args.spaces, ["search_spaces/flash_attn_bwd_wgmma_bf16.json"])
            self.assertEqual(args.forward_spaces,
                             [{"file": "search_spaces/flash_attn_fwd_wgmma.json", "dtype": "fp16"},
                              {"file": "search_spaces/flash_attn_fwd_wgmma_bf16.json", "dtype": "bf16"}])
            with contextlib.redirect_stderr(io.StringIO()):
                op, args = compare_torch.parse_arguments(
                    ["training", "--forward-space", "search_spaces/flash_attn_fwd_wgmma.json"])
            self.assertEqual(args.forward_spaces, [{"file": "search_spaces/flash_attn_fwd_wgmma.json", "dtype": "fp16"}])
            with contextlib.redirect_stderr(io.StringIO()):
                op, args = compare_torch.parse_arguments(["backward"])
            self.assertEqual(args.forward_spaces, [])
        finally:
            os.chdir(cwd)


class CommandLineTest(unittest.TestCase):
    def setUp(self):
        self.cwd = os.getcwd()
        os.chdir(ROOT)

    def tearDown(self):
        os.chdir(self.cwd)

    def test_each_operation_reads_its_shapes_and_keeps_the_spaces_of_its_dtype(self):
        with contextlib.redirect_stderr(io.StringIO()) as err:
            op, args = compare_torch.parse_arguments(["attention", "--shape", "2,8,1000,64,causal"])
        self.assertIs(op, compare_torch.ATTENTION)
        self.assertEqual(args.shapes, [{"B": 2, "H": 8, "HKV": 8, "S": 1000, "SKV": 1000, "D": 64, "causal": True}])
        self.assertNotIn("search_spaces/flash_attn_fwd_mma_bf16.json", args.spaces)
        self.assertIn("flash_attn_fwd_mma_bf16.json: not fp16, left out", err.getvalue())
        self.assertEqual((args.reps, args.warmup, args.rounds, args.sync_each_replay), (100, 10, 5, False))
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(compare_torch.parse_arguments(["gemm", "--rounds", "1"])[1].rounds, 1)
        self.assertEqual(args.backends, compare_torch.SDPA_BACKENDS)
        with contextlib.redirect_stderr(io.StringIO()):
            op, args = compare_torch.parse_arguments(["backward", "--backend", "cudnn", "--backend", "flash"])
        self.assertEqual(args.backends, ["cudnn", "flash"])
        self.assertEqual(compare_torch.backends_not_asked_for(args),
                         {"efficient": {"error": "not timed (--backend)"}})
        for refused in (["gemm", "--backend", "cudnn"], ["decode", "--backend", "math"]):
            with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
                compare_torch.parse_arguments(refused)
        with contextlib.redirect_stderr(io.StringIO()):
            op, args = compare_torch.parse_arguments(["gemm", "--dtype", "bf16", "--sync-each-replay"])
        self.assertIs(op, compare_torch.GEMM)
        self.assertEqual(args.spaces, ["search_spaces/gemm_wgmma_bf16.json"])
        self.assertEqual(len(args.shapes), len(compare_torch.GEMM_SHAPES))
        self.assertTrue(args.sync_each_replay)
        self.assertEqual(args.out_dtype, "bf16")
        # A space of an fp32 D: cuBLAS is timed writing fp32 too; spaces of two D types in one run are refused.
        with contextlib.redirect_stderr(io.StringIO()):
            op, args = compare_torch.parse_arguments(["gemm", "--space", "search_spaces/gemm_wgmma_out_f32.json"])
        self.assertEqual((args.dtype, args.out_dtype), ("fp16", "fp32"))
        with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
            compare_torch.parse_arguments(["gemm", "--space", "search_spaces/gemm_wgmma.json",
                                           "--space", "search_spaces/gemm_wgmma_out_f32.json"])
        self.assertIn("the spaces write D in different types", err.getvalue())
        self.assertIn("gemm_wgmma_out_f32.json: fp32", err.getvalue())

    def test_bad_command_lines_exit_with_usage(self):
        for argv in ([], ["conv"], ["attention", "--shape", "1,8,512"], ["gemm", "--shape", "1,2,3,tn"],
                     ["decode", "--shape", "8,32/8,1"], ["backward", "--shape", "1,8,512,64,decode"],
                     ["training", "--shape", "1,8,512"], ["gemm", "--rounds", "0"], ["attention", "--rounds", "x"]):
            with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit, msg=argv) as exit:
                compare_torch.parse_arguments(argv)
            self.assertEqual(exit.exception.code, 2, argv)
            self.assertIn("usage: compare_torch.py", err.getvalue())


class SharedLoopTest(unittest.TestCase):
    def test_time_callable_captures_a_graph_of_calls_and_reports_the_median_per_call(self):
        torch = FakeTorch(replay_ms=[1.0, 2.0, 4.0, 3.0, 5.0])
        calls = []
        timing = compare_torch.time_callable(torch, lambda: calls.append(torch.capturing), reps=5, warmup=7)
        # Three calls outside the graph (a failing call raises there), then REPLAYS_PER_GRAPH captured.
        self.assertEqual(calls, [False] * 3 + [True] * compare_torch.REPLAYS_PER_GRAPH)
        self.assertEqual(torch.replays, 7 + 5)
        # The warm-up replays took 1, 2, 4, 3, 5, 1, 2 ms; the timed ones 4, 3, 5, 1, 2 ms, per 10 calls.
        self.assertAlmostEqual(timing["us"], 300.0)
        self.assertAlmostEqual(timing["p20_us"], 100.0)
        self.assertAlmostEqual(timing["p80_us"], 400.0)
        self.assertNotIn("wait", torch.log, "replays are queued back to back")
        waited = FakeTorch(replay_ms=[1.0])
        compare_torch.time_callable(waited, lambda: None, reps=4, warmup=0, sync_each_replay=True)
        self.assertEqual(waited.log.count("wait"), 4)

    def test_a_failing_call_raises_before_the_capture(self):
        torch = FakeTorch(replay_ms=[1.0])

        def fail():
            raise RuntimeError("the backend does not take this shape")
        with self.assertRaises(RuntimeError):
            compare_torch.time_callable(torch, fail, reps=3, warmup=1)
        self.assertEqual(torch.replays, 0)

    def test_a_candidate_is_checked_on_nan_filled_outputs_and_only_then_timed(self):
        class Output:
            def __init__(self):
                self.value = 0.0

            def fill_(self, value):
                self.value = value
        outputs = [Output(), Output()]
        entry = {"space": "a.json", "config_id": 7}
        seen = []

        def error_of():  # what the call left in the outputs: NaN where it wrote nothing
            seen.append([each.value for each in outputs])
            return {"max_abs_error": 0.5 if outputs[0].value == outputs[0].value else float("nan")}
        torch = FakeTorch(replay_ms=lambda graph, n: [2.0, 1.0][graph])  # the second captured is faster
        contenders = compare_torch.Contenders(torch, timing_args(reps=3, warmup=1, rounds=2))
        failed = compare_torch.checked_candidate(torch, contenders, lambda: None, outputs, error_of, 0.5, entry,
                                                 {"us": 10.0}, 1e6)
        self.assertEqual(len(seen), 1)
        self.assertTrue(all(value != value for value in seen[0]), "the outputs are NaN-filled first")
        self.assertEqual(failed, {"space": "a.json", "config_id": 7, "error": "max |error| nan"})

        def write():
            for each in outputs:
                each.value = 1.0
        too_far = compare_torch.checked_candidate(torch, contenders, write, outputs, error_of, 0.25, entry, None,
                                                  1e6)
        self.assertEqual(too_far["error"], "max |error| 0.5")
        self.assertEqual(torch.graphs, [], "a candidate that fails its check is not captured")
        passed = compare_torch.checked_candidate(torch, contenders, write, outputs, error_of, 0.5, entry,
                                                 {"us": 10.0}, 1e6)
        unstored = compare_torch.checked_candidate(torch, contenders, write, outputs, error_of, 0.5,
                                                   {"space": "b.json", "config_id": 8}, None, 1e6)
        self.assertEqual(passed, {"space": "a.json", "config_id": 7, "max_abs_error": 0.5, "stored": {"us": 10.0}},
                         "timed in the rounds, not before")
        contenders.run()
        # Only the two that passed were replayed: 2 rounds of 1 + 3 replays each.
        self.assertEqual(sorted(set(event[1] for event in torch.log if event[0] == "replay")), [0, 1])
        self.assertEqual(torch.replays, 2 * 2 * 4)
        self.assertEqual(failed, {"space": "a.json", "config_id": 7, "error": "max |error| nan"})
        self.assertNotIn("us", too_far)
        per_call = 2000.0 / compare_torch.REPLAYS_PER_GRAPH
        self.assertEqual(list(passed), ["space", "config_id", "max_abs_error", "stored", "us", "p20_us", "p80_us",
                                        "tflops", "rounds_us"])
        self.assertAlmostEqual(passed["us"], per_call)
        self.assertEqual(passed["rounds_us"], [per_call, per_call])
        self.assertAlmostEqual(passed["tflops"], 1e6 / per_call / 1e6)
        self.assertAlmostEqual(unstored["us"], per_call / 2)
        # After the rounds: the time against the stored one, and the fastest timed candidate as ours.
        settled = compare_torch.settled_candidates([failed, passed, too_far, unstored])
        self.assertAlmostEqual(passed["vs_stored"], per_call / 10.0)
        self.assertIsNone(unstored["vs_stored"])
        self.assertNotIn("vs_stored", failed)
        self.assertIs(settled["ours"], unstored)
        self.assertEqual(settled["candidates"], [failed, passed, too_far, unstored])
        self.assertIs(compare_torch.fastest_candidate([failed, too_far]), failed)
        self.assertIsNone(compare_torch.fastest_candidate([]))

    def test_load_launcher_sizes_the_workspace_and_passes_the_stream(self):
        space = space_doc.load(os.path.join(ROOT, "search_spaces/gemm_wgmma.json"))
        torch = FakeTorch(replay_ms=[1.0])
        library = type("Library", (), {})()
        library.gemm_wgmma_launch, library.gemm_wgmma_workspace_bytes = FakeFunction(0), FakeFunction(0)
        tensors = {name: FakeTensor(address) for name, address in zip(["a", "b", "bias", "d"], [16, 32, 48, 64])}
        tensors["workspace"] = FakeTensor(1)  # a previous space's: replaced
        shape = compare_torch.parse_gemm_shape("3,5,7")
        call = compare_torch.load_launcher(torch, library, space, tensors,
                                           lambda names, tensors: compare_torch.gemm_values(names, tensors, shape))
        self.assertEqual(library.gemm_wgmma_workspace_bytes.calls, [(3, 5, 7)])
        self.assertEqual(library.gemm_wgmma_workspace_bytes.restype, ctypes.c_size_t)
        self.assertEqual(torch.log, [("empty", 1, "cuda", "uint8")])  # at least one byte
        self.assertEqual(library.gemm_wgmma_launch.argtypes, compare_torch.launcher_signature(space)[2])
        self.assertEqual(library.gemm_wgmma_launch.calls, [], "loading launches nothing")
        call()
        (args,) = library.gemm_wgmma_launch.calls
        self.assertEqual(list(args[:-1]), [16, 32, 48, 64, 3, 5, 7, 4096])
        self.assertEqual(args[-1].value, 1234)  # the current stream
        library.gemm_wgmma_launch.result = 700
        with self.assertRaisesRegex(RuntimeError, "gemm_wgmma_launch returned CUDA error 700"):
            call()
        # The call keeps its workspace when the next space's load replaces it in `tensors`: a captured graph of
        # the call writes it until the shape's rounds are done.
        workspace = weakref.ref(tensors["workspace"])
        compare_torch.load_launcher(torch, library, space, tensors,
                                    lambda names, tensors: compare_torch.gemm_values(names, tensors, shape))
        self.assertIsNot(tensors["workspace"], workspace())
        self.assertIsNotNone(workspace())
        del call
        self.assertIsNone(workspace())


def timing_args(reps, warmup, rounds, sync_each_replay=False):
    return types.SimpleNamespace(reps=reps, warmup=warmup, rounds=rounds, sync_each_replay=sync_each_replay)


def replayed_runs(log):
    """The replays in the log as runs: (graph, replays in a row)."""
    runs = []
    for event in log:
        if event[0] != "replay":
            continue
        if runs and runs[-1][0] == event[1]:
            runs[-1][1] += 1
        else:
            runs.append([event[1], 1])
    return [tuple(run) for run in runs]


def round_times(samples_ms, warmup, reps):
    """replay_ms for FakeTorch: graph g's timed replays of round r take samples_ms[g][r] (one per replay), each
    warm-up replay 1000 ms (counted nowhere)."""
    def replay_ms(graph, n):
        round_number, k = divmod(n, warmup + reps)
        return 1000.0 if k < warmup else samples_ms[graph][round_number][k - warmup]
    return replay_ms


class RoundsTest(unittest.TestCase):
    def test_every_contender_is_captured_first_then_timed_in_rounds_of_rotating_order(self):
        torch = FakeTorch(replay_ms=[1.0])
        contenders = compare_torch.Contenders(torch, timing_args(reps=3, warmup=2, rounds=4))
        calls = [[] for _ in range(3)]
        results = []
        for i in range(3):
            call = lambda i=i: calls[i].append(torch.capturing)  # noqa: E731
            results.append(contenders.add(call, 1e6))
        kept = weakref.ref(call)
        del call
        # Each captured at once (3 calls outside the graph, then the graph's), none replayed yet.
        self.assertEqual(calls, [[False] * 3 + [True] * compare_torch.REPLAYS_PER_GRAPH] * 3)
        self.assertEqual([event for event in torch.log if event[0] == "capture"], [("capture", i) for i in range(3)])
        self.assertEqual(torch.replays, 0)
        self.assertIsNotNone(kept(), "a call lives as long as its graph")
        contenders.run()
        # Round r starts at contender r mod 3; each gets its 2 warm-up and 3 timed replays in a row.
        self.assertEqual(replayed_runs(torch.log), [(i % 3, 5) for i in (0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2)])
        self.assertEqual([compare_torch.rotated(3, r) for r in range(4)], [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 1, 2]])
        self.assertEqual([len(result["rounds_us"]) for result in results], [4, 4, 4])
        self.assertEqual(len(calls[0]), 3 + compare_torch.REPLAYS_PER_GRAPH, "replays do not call again")
        self.assertEqual([graph() for graph in torch.graphs], [None] * 3, "the graphs are released after the rounds")
        self.assertIsNone(kept(), "and the calls with them")

    def test_a_time_is_the_median_of_its_rounds_medians_and_a_ratio_by_round_the_median_of_the_rounds_ratios(self):
        # Per call (ms / REPLAYS_PER_GRAPH): backend a's rounds 100, 200, 300 us (each round with a slow
        # replay: all of a's samples have a median of 300), backend c's 300, 400, 240, ours 50, 250, 160.
        samples_ms = [[[1.0, 1.0, 9.0], [2.0, 2.0, 9.0], [3.0, 3.0, 9.0]],
                      [[3.0] * 3, [4.0] * 3, [2.4] * 3],
                      [[0.5] * 3, [2.5] * 3, [1.6] * 3]]
        torch = FakeTorch(replay_ms=round_times(samples_ms, warmup=1, reps=3))
        contenders = compare_torch.Contenders(torch, timing_args(reps=3, warmup=1, rounds=3))
        row = {name: contenders.add(lambda: None, 4e8) for name in ("a", "c", "ours")}
        contenders.run()
        a, c, ours = row["a"], row["c"], row["ours"]
        self.assertEqual(a["rounds_us"], [100.0, 200.0, 300.0])
        self.assertAlmostEqual(a["us"], 200.0)
        self.assertEqual(statistics.median(sample for round_ms in samples_ms[0] for sample in round_ms) * 100, 300.0)
        self.assertEqual((a["p20_us"], a["p80_us"]), (100.0, 900.0), "p20 and p80 over all 9 samples")
        self.assertAlmostEqual(a["tflops"], 4e8 / 200.0 / 1e6)
        for got, expected in zip(c["rounds_us"], [300.0, 400.0, 240.0]):
            self.assertAlmostEqual(got, expected)
        self.assertAlmostEqual(c["us"], 300.0)
        self.assertAlmostEqual(ours["us"], 160.0)
        compare_torch.set_ratio_to_best_backend(row, ["a", "c"])
        # The medians' ratio: a's 200 over ours' 160. By round: that round's fastest backend over ours, 100 / 50,
        # 200 / 250 and 240 / 160 (c's, in the third): their median 1.5.
        self.assertAlmostEqual(row["ratio"], 1.25)
        self.assertAlmostEqual(row["ratio_rounds"], 1.5)

    def test_one_round_times_each_contender_as_before_one_after_the_other(self):
        replay_ms = [1.0, 2.0, 4.0, 3.0, 5.0, 7.0, 6.0]
        alone = FakeTorch(replay_ms)  # each contender timed alone, in turn, as before the rounds
        before = [compare_torch.time_callable(alone, lambda: None, reps=5, warmup=7) for _ in range(3)]
        torch = FakeTorch(replay_ms)
        contenders = compare_torch.Contenders(torch, timing_args(reps=5, warmup=7, rounds=1))
        results = [contenders.add(lambda: None, 2e6) for _ in range(3)]
        contenders.run()
        self.assertEqual(replayed_runs(torch.log), replayed_runs(alone.log))
        self.assertEqual(replayed_runs(torch.log), [(0, 12), (1, 12), (2, 12)])
        for result, timing in zip(results, before):
            self.assertEqual(result, dict(timing, tflops=2e6 / timing["us"] / 1e6, rounds_us=[timing["us"]]))
        self.assertEqual([result["us"] for result in results], [300.0, 400.0, 500.0])
        self.assertEqual(torch.log.count("wait"), 0, "replays are queued back to back")
        waited = FakeTorch(replay_ms)
        each = compare_torch.Contenders(waited, timing_args(reps=4, warmup=1, rounds=2, sync_each_replay=True))
        each.add(lambda: None, 1.0)
        each.run()
        self.assertEqual(waited.log.count("wait"), 2 * 4)

    def test_a_failing_contender_is_recorded_and_never_timed(self):
        torch = FakeTorch(replay_ms=[1.0])
        contenders = compare_torch.Contenders(torch, timing_args(reps=3, warmup=1, rounds=3))
        calls = []

        def fail():
            calls.append(torch.capturing)
            raise RuntimeError("No available kernel.\nmore detail")
        row = {"cudnn": compare_torch.torch_contender(contenders, fail, 1e6),
               "flash": compare_torch.torch_contender(contenders, lambda: None, 1e6),
               "efficient": compare_torch.torch_contender(contenders, fail, 1e6)}
        self.assertEqual(calls, [False, False], "it raised on its first call, outside any graph")
        self.assertEqual(row["cudnn"], {"error": "No available kernel."})
        self.assertEqual(len(torch.graphs), 1)
        row["ours"] = contenders.add(lambda: None, 1e6)
        contenders.run()
        # Rounds of flash then ours, ours then flash, flash then ours.
        self.assertEqual(replayed_runs(torch.log), [(0, 4), (1, 8), (0, 8), (1, 4)])
        self.assertEqual(row["efficient"], {"error": "No available kernel."})
        compare_torch.set_ratio_to_best_backend(row)
        self.assertAlmostEqual(row["ratio"], 1.0)
        self.assertAlmostEqual(row["ratio_rounds"], 1.0)
        without = {"cudnn": row["cudnn"], "flash": row["efficient"], "efficient": row["efficient"], "ours": row["ours"]}
        compare_torch.set_ratio_to_best_backend(without)
        self.assertNotIn("ratio", without, "no backend timed: no ratio")

    def test_decode_times_a_copy_among_the_contenders(self):
        torch = FakeTorch(replay_ms=[0.5])
        contenders = compare_torch.Contenders(torch, timing_args(reps=2, warmup=0, rounds=2))
        copy, moved = compare_torch.copy_contender(torch, contenders, gib=0.5)
        self.assertEqual(moved, 2 * 2**29, "bytes read plus written")
        self.assertEqual(torch.log[0], ("empty", 2**29, "cuda", "uint8"))
        contenders.run()
        self.assertEqual(copy["rounds_us"], [50.0, 50.0])
        self.assertEqual(copy["tflops"], 0.0)

    def test_the_line_above_the_table_states_the_rounds(self):
        args = timing_args(reps=100, warmup=10, rounds=5)
        args.dtype = "fp16"
        line = compare_torch.method_line(FakeTorch(replay_ms=[1.0]), compare_torch.GEMM, args)
        self.assertTrue(line.startswith("Fake GPU, PyTorch 0.0-fake, fp16: median over 5 interleaved rounds"), line)
        self.assertIn("of the median of 100 replays (after 10 untimed) of a CUDA graph of 10 calls, replays queued "
                      "back to back, no L2 flush; ours/cuBLAS = cuBLAS's time / ours", line)
        args.backends = ["cudnn"]
        line = compare_torch.method_line(FakeTorch(replay_ms=[1.0]), compare_torch.BACKWARD, args)
        self.assertTrue(line.endswith("; SDPA backends timed: cudnn (--backend)"), line)
        args.backends = list(compare_torch.SDPA_BACKENDS)
        self.assertNotIn("--backend", compare_torch.method_line(FakeTorch(replay_ms=[1.0]), compare_torch.ATTENTION,
                                                                args))


if __name__ == "__main__":
    unittest.main()
