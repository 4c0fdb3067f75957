#!/usr/bin/env python3
"""scripts/kernel_trace.py on recorded events and a stand-in profiler: the per-kernel sums a call, the span and
gaps, the fall-back to calls one by one where a graph's trace holds no kernel, the printed lines; and
compare_torch.py --kernels: each contender traced after its rounds (its graph still alive), the lines under
each shape."""
import os
import sys
import types
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_torch  # noqa: E402
import kernel_trace  # noqa: E402
from compare_torch_test import FakeTorch, timing_args  # noqa: E402


class SummaryTest(unittest.TestCase):
    def test_kernels_are_summed_by_name_a_call_with_the_span_and_the_gaps(self):
        # Two calls, each a preprocess (10 us), a main kernel (100 us) and a conversion (5 us), 2 us apart.
        events = []
        t = 0.0
        for _ in range(2):
            for name, us in (("pre", 10.0), ("main", 100.0), ("convert", 5.0)):
                events.append((name, t, t + us))
                t += us + 2.0
        summary = kernel_trace.kernel_summary(list(reversed(events)), calls=2)
        self.assertEqual([k["name"] for k in summary["kernels"]], ["pre", "main", "convert"], "in the order run")
        self.assertEqual([k["launches"] for k in summary["kernels"]], [1, 1, 1])
        self.assertEqual([k["us"] for k in summary["kernels"]], [10.0, 100.0, 5.0])
        self.assertAlmostEqual(summary["busy_us"], 115.0)
        # From the first start (0) to the last end (2 * 121 - 2): 240 us over 2 calls.
        self.assertAlmostEqual(summary["span_us"], 120.0)
        self.assertAlmostEqual(summary["gap_us"], 5.0)
        self.assertIsNone(kernel_trace.kernel_summary([], calls=3))

    def test_names_are_cut_at_their_argument_list_and_to_a_width(self):
        self.assertEqual(kernel_trace.short_name("void cudnn::convert<0>(const void*, int)"), "void cudnn::convert<0>")
        self.assertEqual(kernel_trace.short_name("k" * 100, width=10), "kkkkkkk...")

    def test_the_lines_give_the_span_busy_and_gaps_then_each_kernel(self):
        summary = dict(kernel_trace.kernel_summary([("a", 0.0, 3.0), ("b", 4.0, 10.0)], calls=1), traced="graph")
        lines = kernel_trace.format_kernels("8,16,4096,64 no cudnn", summary)
        self.assertEqual(lines[0], "8,16,4096,64 no cudnn: 10.0 us a call from the first kernel's start to the last "
                                   "one's end, 9.0 us of it in kernels, 1.0 us between them (traced: graph)")
        self.assertEqual(lines[1:], ["          3.0 us  x1  a", "          6.0 us  x1  b"])
        self.assertEqual(kernel_trace.format_kernels("x", {"error": "none"}), ["x: none"])
        # Kernels that overlap (PDL: the next call's blocks wait on the SMs while this one ends): busy > span.
        summary = dict(kernel_trace.kernel_summary([("a", 0.0, 6.0), ("a", 4.0, 10.0)], calls=2), traced="graph")
        self.assertEqual(kernel_trace.format_kernels("77,5000,4096 ours", summary)[0],
                         "77,5000,4096 ours: 5.0 us a call from the first kernel's start to the last one's end, "
                         "6.0 us in kernels, 1.0 us more than the span: kernels overlap (a programmatic "
                         "dependent starts before the one ahead ends) (traced: graph)")


class FakeEvent:
    def __init__(self, name, start, end, device_type):
        self.name, self.device_type = name, device_type
        self.time_range = types.SimpleNamespace(start=start, end=end)


def profiled_torch(graph_events):
    """A stand-in for torch with a profiler: a traced graph replay records `graph_events` kernels (none: as a
    CUPTI that records graph launches whole), a traced call one kernel of 4 us; host events are recorded too."""
    torch = types.SimpleNamespace(autograd=types.SimpleNamespace(DeviceType=types.SimpleNamespace(CUDA="cuda")),
                                  cuda=types.SimpleNamespace(synchronize=lambda: None))
    recorded = []

    class Profile:
        def __init__(self, activities):
            self.activities = activities

        def __enter__(self):
            recorded.clear()
            return self

        def __exit__(self, *exc):
            return False

        def events(self):
            return list(recorded)

    profiler = types.ModuleType("torch.profiler")
    profiler.profile, profiler.ProfilerActivity = Profile, types.SimpleNamespace(CUDA="cuda")
    sys.modules["torch.profiler"] = profiler
    sys.modules.setdefault("torch", types.ModuleType("torch"))

    class Graph:
        def replay(self):
            recorded.append(FakeEvent("cudaGraphLaunch", 0.0, 1.0, "cpu"))
            for i in range(graph_events):
                t = len(recorded) * 10.0
                recorded.append(FakeEvent(f"k{i}", t, t + 5.0, "cuda"))

    def call():
        t = len(recorded) * 10.0
        recorded.append(FakeEvent("one", t, t + 4.0, "cuda"))
    return torch, Graph(), call


class GraphKernelsTest(unittest.TestCase):
    def tearDown(self):
        sys.modules.pop("torch.profiler", None)

    def test_a_graphs_replays_are_traced_and_only_device_events_count(self):
        torch, graph, call = profiled_torch(graph_events=2)
        summary = kernel_trace.graph_kernels(torch, graph, call, calls_per_replay=2)
        self.assertEqual(summary["traced"], "graph")
        # 3 replays of 2 calls, each replay k0 and k1: one launch of each a call... over 6 calls, 0.5 each.
        self.assertEqual([(k["name"], k["launches"], k["us"]) for k in summary["kernels"]],
                         [("k0", 0.5, 2.5), ("k1", 0.5, 2.5)])

    def test_without_a_kernel_in_the_graphs_trace_the_calls_are_traced_one_by_one(self):
        torch, graph, call = profiled_torch(graph_events=0)
        summary = kernel_trace.graph_kernels(torch, graph, call, calls_per_replay=2)
        self.assertEqual(summary["traced"], "calls")
        self.assertEqual([(k["name"], k["launches"], k["us"]) for k in summary["kernels"]], [("one", 1, 4.0)])


class CompareKernelsTest(unittest.TestCase):
    def test_each_contender_is_traced_after_its_rounds_and_printed_under_its_shape(self):
        torch = FakeTorch(replay_ms=[1.0])
        args = timing_args(reps=2, warmup=1, rounds=2)
        args.kernels = True
        traced = []

        def graph_kernels(torch_, graph, call, calls_per_replay):
            traced.append((graph.replays, calls_per_replay))
            return {"kernels": [{"name": "k", "launches": 1, "us": 7.0}], "busy_us": 7.0, "span_us": 8.0,
                    "gap_us": 1.0, "traced": "graph"}
        original, kernel_trace.graph_kernels = kernel_trace.graph_kernels, graph_kernels
        try:
            contenders = compare_torch.Contenders(torch, args)
            row = {"cudnn": contenders.add(lambda: None, 1e6)}
            candidate = contenders.add(lambda: None, 1e6, result={"space": "search_spaces/x.json", "config_id": 4})
            contenders.run()
        finally:
            kernel_trace.graph_kernels = original
        # Traced once each, after its 2 rounds of 1 + 2 replays.
        self.assertEqual(traced, [(6, compare_torch.REPLAYS_PER_GRAPH)] * 2)
        row.update({"B": 8, "H": 16, "HKV": 16, "S": 4096, "SKV": 4096, "D": 64, "causal": False, "flash": {},
                    "efficient": {}, "candidates": [candidate]})
        lines = compare_torch.format_kernel_lines([row], compare_torch.ATTENTION)
        self.assertEqual(lines[0], "8,16,4096,64 no cudnn: 8.0 us a call from the first kernel's start to the last "
                                   "one's end, 7.0 us of it in kernels, 1.0 us between them (traced: graph)")
        self.assertEqual(lines[2].split(":")[0], "8,16,4096,64 no ours (x.json #4)")
        self.assertEqual(len(lines), 4)

    def test_without_the_flag_nothing_is_traced(self):
        torch = FakeTorch(replay_ms=[1.0])
        contenders = compare_torch.Contenders(torch, timing_args(reps=2, warmup=1, rounds=1))
        result = contenders.add(lambda: None, 1e6)
        contenders.run()
        self.assertNotIn("kernels", result)


if __name__ == "__main__":
    unittest.main()
