"""The GPU's SM clock, board power and energy counter while a contender runs, through NVML (ctypes).

Under its power cap an H100 lowers its clocks to hold 700 W, so two kernels that take the same cycles can take
different times: the one that draws more power per cycle runs at lower clocks. compare_torch.py --power reads
these around each contender's replays (Window) so that a table can say which it was.
"""
import ctypes
import statistics
import threading
import time

NVML_CLOCK_SM = 1
NVML_SUCCESS = 0


class NvmlError(RuntimeError):
    pass


class Nvml:
    """One device's counters through libnvidia-ml.so.1, the device found by the UUID CUDA gives it (NVML's
    indices ignore CUDA_VISIBLE_DEVICES)."""

    def __init__(self, uuid, library=None):
        self.lib = library or ctypes.CDLL("libnvidia-ml.so.1")
        self._check(self.lib.nvmlInit_v2(), "nvmlInit_v2")
        self.handle = ctypes.c_void_p()
        name = uuid if uuid.startswith("GPU-") else "GPU-" + uuid
        self._check(self.lib.nvmlDeviceGetHandleByUUID(name.encode(), ctypes.byref(self.handle)),
                    f"nvmlDeviceGetHandleByUUID({name})")

    def _check(self, status, what):
        if status != NVML_SUCCESS:
            raise NvmlError(f"{what} failed: NVML status {status}")

    def sm_clock_mhz(self):
        value = ctypes.c_uint()
        self._check(self.lib.nvmlDeviceGetClockInfo(self.handle, NVML_CLOCK_SM, ctypes.byref(value)),
                    "nvmlDeviceGetClockInfo")
        return value.value

    def power_watts(self):
        milliwatts = ctypes.c_uint()
        self._check(self.lib.nvmlDeviceGetPowerUsage(self.handle, ctypes.byref(milliwatts)),
                    "nvmlDeviceGetPowerUsage")
        return milliwatts.value / 1000.0

    def energy_joules(self):
        millijoules = ctypes.c_ulonglong()
        self._check(self.lib.nvmlDeviceGetTotalEnergyConsumption(self.handle, ctypes.byref(millijoules)),
                    "nvmlDeviceGetTotalEnergyConsumption")
        return millijoules.value / 1000.0


def for_torch_device(torch):
    """Nvml for the current CUDA device of `torch`."""
    return Nvml(str(torch.cuda.get_device_properties(torch.cuda.current_device()).uuid))


class Window:
    """Samples the SM clock and the board power every `period_s` on a thread while open, and reads the energy
    counter when it opens and closes (`with Window(nvml) as window: ...`; then window.sm_mhz, window.watts,
    window.joules, window.seconds)."""

    def __init__(self, nvml, period_s=0.005, clock=time.monotonic):
        self.nvml, self.period_s, self.clock = nvml, period_s, clock
        self.sm_mhz, self.watts = [], []
        self._stop = threading.Event()

    def _sample(self):
        while True:
            self.sm_mhz.append(self.nvml.sm_clock_mhz())
            self.watts.append(self.nvml.power_watts())
            if self._stop.wait(self.period_s):
                return

    def __enter__(self):
        self._start_joules, self._start_s = self.nvml.energy_joules(), self.clock()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.seconds = self.clock() - self._start_s
        self.joules = self.nvml.energy_joules() - self._start_joules
        return False


def summary(windows, calls):
    """A contender's power figures from its windows (one a round) and the `calls` they ran in all: the median SM
    clock and board power over every sample, and the energy a call."""
    sm_mhz = [s for window in windows for s in window.sm_mhz]
    watts = [s for window in windows for s in window.watts]
    return {"sm_mhz": statistics.median(sm_mhz), "watts": statistics.median(watts),
            "mj_per_call": 1000.0 * sum(window.joules for window in windows) / calls}
