#!/usr/bin/env python3
"""scripts/gpu_power.py on a stand-in for libnvidia-ml: the counters read through ctypes and scaled, the
device found by its CUDA UUID, failures named, a window's samples and energy, and a contender's summary; and
compare_torch.py's --power around each contender's replays, on the stand-in for torch of compare_torch_test."""
import contextlib
import io
import os
import sys
import types
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_torch  # noqa: E402
import gpu_power  # noqa: E402
from compare_torch_test import FakeTorch, timing_args  # noqa: E402


class FakeLibrary:
    """libnvidia-ml's functions as the module calls them: byref arguments written through their _obj."""

    def __init__(self, clock_mhz=1755, power_mw=699500, energy_mj=(1000, 4500), fail=None):
        self.clock_mhz, self.power_mw, self.energy_mj, self.fail = clock_mhz, power_mw, list(energy_mj), fail
        self.uuid = None
        self.clock_kind = None

    def _status(self, name):
        return 999 if self.fail == name else 0

    def nvmlInit_v2(self):
        return self._status("nvmlInit_v2")

    def nvmlDeviceGetHandleByUUID(self, uuid, handle):
        self.uuid = uuid
        return self._status("nvmlDeviceGetHandleByUUID")

    def nvmlDeviceGetClockInfo(self, handle, kind, value):
        self.clock_kind = kind
        value._obj.value = self.clock_mhz
        return self._status("nvmlDeviceGetClockInfo")

    def nvmlDeviceGetPowerUsage(self, handle, milliwatts):
        milliwatts._obj.value = self.power_mw
        return self._status("nvmlDeviceGetPowerUsage")

    def nvmlDeviceGetTotalEnergyConsumption(self, handle, millijoules):
        millijoules._obj.value = self.energy_mj.pop(0)
        return self._status("nvmlDeviceGetTotalEnergyConsumption")


class FakeNvml:
    """Counters that advance with a log: each energy read returns the next of `joules`."""

    def __init__(self, log, joules, clock_mhz=1700, watts=700.0):
        self.log, self.joules, self.clock_mhz, self.watts = log, list(joules), clock_mhz, watts

    def sm_clock_mhz(self):
        return self.clock_mhz

    def power_watts(self):
        return self.watts

    def energy_joules(self):
        self.log.append("energy")
        return self.joules.pop(0)


class NvmlTest(unittest.TestCase):
    def test_the_counters_are_read_for_the_device_cuda_names_and_scaled(self):
        library = FakeLibrary()
        nvml = gpu_power.Nvml("0a1b-2c3d", library)
        self.assertEqual(library.uuid, b"GPU-0a1b-2c3d", "NVML names devices GPU-<uuid>")
        self.assertEqual(nvml.sm_clock_mhz(), 1755)
        self.assertEqual(library.clock_kind, gpu_power.NVML_CLOCK_SM)
        self.assertEqual(nvml.power_watts(), 699.5)
        self.assertEqual(nvml.energy_joules(), 1.0)
        self.assertEqual(nvml.energy_joules(), 4.5)
        gpu_power.Nvml("GPU-0a1b", library)
        self.assertEqual(library.uuid, b"GPU-0a1b", "a UUID with its prefix is taken as it is")

    def test_a_failing_call_is_named(self):
        for name in ("nvmlInit_v2", "nvmlDeviceGetHandleByUUID"):
            with self.assertRaisesRegex(gpu_power.NvmlError, name + r".*failed: NVML status 999"):
                gpu_power.Nvml("x", FakeLibrary(fail=name))
        nvml = gpu_power.Nvml("x", FakeLibrary(fail="nvmlDeviceGetPowerUsage"))
        with self.assertRaisesRegex(gpu_power.NvmlError, "nvmlDeviceGetPowerUsage"):
            nvml.power_watts()


class WindowTest(unittest.TestCase):
    def test_a_window_samples_while_open_and_reads_the_energy_at_both_ends(self):
        log = []
        ticks = iter([10.0, 12.5])
        with gpu_power.Window(FakeNvml(log, [100.0, 130.0]), period_s=0.001, clock=lambda: next(ticks)) as window:
            log.append("work")
        self.assertEqual(log, ["energy", "work", "energy"])
        self.assertEqual(window.joules, 30.0)
        self.assertEqual(window.seconds, 2.5)
        self.assertGreaterEqual(len(window.sm_mhz), 1, "sampled at least once")
        self.assertEqual(set(window.sm_mhz), {1700})
        self.assertEqual(len(window.watts), len(window.sm_mhz))

    def test_a_summary_is_the_median_clock_and_power_and_the_energy_a_call(self):
        windows = [types.SimpleNamespace(sm_mhz=[1500, 1600, 1700], watts=[690.0, 700.0, 710.0], joules=3.0),
                   types.SimpleNamespace(sm_mhz=[1900], watts=[650.0], joules=1.0)]
        self.assertEqual(gpu_power.summary(windows, calls=2000),
                         {"sm_mhz": 1650.0, "watts": 695.0, "mj_per_call": 2.0})


class ComparePowerTest(unittest.TestCase):
    def test_each_contenders_replays_lie_inside_its_own_window(self):
        torch = FakeTorch(replay_ms=[1.0])
        args = timing_args(reps=3, warmup=1, rounds=2)
        # Energy reads: round 0 contender 0 (0 -> 4), contender 1 (4 -> 10), round 1 contender 1, contender 0.
        args.nvml = FakeNvml(torch.log, [0.0, 4.0, 4.0, 10.0, 10.0, 16.0, 16.0, 20.0])
        contenders = compare_torch.Contenders(torch, args)
        results = [contenders.add(lambda: None, 1e6) for _ in range(2)]
        contenders.run()
        around = [event if event == "energy" else event[1] for event in torch.log
                  if event == "energy" or event[0] == "replay"]
        self.assertEqual(around, ["energy"] + [0] * 4 + ["energy", "energy"] + [1] * 4 + ["energy"] +
                         ["energy"] + [1] * 4 + ["energy", "energy"] + [0] * 4 + ["energy"])
        calls = 2 * (1 + 3) * compare_torch.REPLAYS_PER_GRAPH
        self.assertEqual(results[0]["power"], {"sm_mhz": 1700, "watts": 700.0, "mj_per_call": 1000.0 * 8 / calls})
        self.assertEqual(results[1]["power"]["mj_per_call"], 1000.0 * 12 / calls)

    def test_without_power_nothing_is_read(self):
        torch = FakeTorch(replay_ms=[1.0])
        contenders = compare_torch.Contenders(torch, timing_args(reps=2, warmup=0, rounds=1))
        result = contenders.add(lambda: None, 1e6)
        contenders.run()
        self.assertNotIn("power", result)
        self.assertNotIn("energy", torch.log)

    def test_the_power_table(self):
        power = {"sm_mhz": 1712.0, "watts": 698.4, "mj_per_call": 2.3456}
        row = dict(compare_torch.parse_attention_shape("8,16,4096,64"), cudnn={"us": 3364.5, "power": power},
                   flash={"error": "x"}, efficient={"us": 2.0}, ours={"us": 3430.5, "power": dict(power, sm_mhz=1665.0)})
        table = compare_torch.format_power_table([row], compare_torch.BACKWARD).splitlines()
        self.assertEqual(table[0].split("  ")[0], "shape")
        self.assertIn("cudnn MHz / W / mJ / Mcycles", table[0])
        # Cycles a call: 3364.5 us at 1712 MHz is 5.76 M; 3430.5 us at 1665 MHz is 5.71 M.
        self.assertEqual(table[1].split(), ["8,16,4096,64", "no", "1712", "/", "698", "/", "2.35", "/", "5.76", "-",
                                            "-", "1665", "/", "698", "/", "2.35", "/", "5.71"])
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertTrue(compare_torch.parse_arguments(["backward", "--power"])[1].power)
            self.assertFalse(compare_torch.parse_arguments(["gemm"])[1].power)


if __name__ == "__main__":
    unittest.main()
