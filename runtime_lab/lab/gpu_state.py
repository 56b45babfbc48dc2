"""The GPU's SM clock, power and power-cap time over a timed phase, read through NVML."""

from __future__ import annotations

import threading
import time
from typing import Any

from runtime_lab.results import GpuState

# 50 reads a second: each is an ioctl outside the GIL, no GPU work, so the timed thread loses
# microseconds per read at most. A do_bench phase lasts ~125 ms; at 20 a second (H100, session
# 16) it got two reads under load, and the idle clock read at its start decided the median
# (1980 MHz beside the lab's 1515 on a GEMM chain)
SAMPLE_EVERY_S = 0.02
_NS_PER_S = 1e9


def _nvml() -> Any | None:
    """pynvml (nvidia-ml-py), initialised; None where it is missing or finds no driver: the
    figures stand without it, they only lose their clock."""
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:
        return None
    return pynvml


def _handle(nvml: Any, index: int) -> Any | None:
    """NVML's handle for torch's device `index`: by UUID, since CUDA_VISIBLE_DEVICES renumbers
    torch's devices and not NVML's."""
    import torch

    try:
        uuid = str(torch.cuda.get_device_properties(index).uuid)
        return nvml.nvmlDeviceGetHandleByUUID(f"GPU-{uuid}")
    except Exception:
        try:
            return nvml.nvmlDeviceGetHandleByIndex(index)
        except Exception:
            return None


def _read(call, *args) -> Any | None:
    """One NVML reading, or None where this card or driver does not give it (a virtual GPU)."""
    try:
        return call(*args)
    except Exception:
        return None


class GpuWatch:
    """Started before a timed phase, stopped after its last sync: the SM clock sampled on a
    thread, the energy counter and NVML's power- and thermal-cap time counters read at both
    ends. Every reading is optional; stop() gives None where NVML gave nothing at all."""

    def __init__(self, nvml: Any, handle: Any) -> None:
        self._nvml, self._handle = nvml, handle
        self._clocks: list[float] = []
        self._done = threading.Event()
        self._start = self._counters()  # no clock read here: before the load it is the idle boost
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    @classmethod
    def start(cls, device) -> GpuWatch | None:
        """A watch on torch `device`; None off CUDA or without NVML."""
        if getattr(device, "type", None) != "cuda":
            return None
        nvml = _nvml()
        handle = _handle(nvml, device.index or 0) if nvml else None
        return cls(nvml, handle) if handle is not None else None

    def _counters(self) -> dict[str, Any]:
        nvml, h = self._nvml, self._handle
        power = _read(nvml.nvmlDeviceGetViolationStatus, h, nvml.NVML_PERF_POLICY_POWER)
        thermal = _read(nvml.nvmlDeviceGetViolationStatus, h, nvml.NVML_PERF_POLICY_THERMAL)
        return {
            "t": time.perf_counter(),
            "energy_mj": _read(nvml.nvmlDeviceGetTotalEnergyConsumption, h),
            "power_ns": getattr(power, "violationTime", None),
            "thermal_ns": getattr(thermal, "violationTime", None),
        }

    def _clock(self) -> None:
        mhz = _read(self._nvml.nvmlDeviceGetClockInfo, self._handle, self._nvml.NVML_CLOCK_SM)
        if mhz:
            self._clocks.append(float(mhz))

    def _sample(self) -> None:
        while not self._done.wait(SAMPLE_EVERY_S):
            self._clock()

    def stop(self) -> GpuState | None:
        self._done.set()
        self._thread.join()
        self._clock()  # the clock at the phase's end, before the GPU idles: at least one read
        return state(self._start, self._counters(), tuple(self._clocks), self._limits())

    def _limits(self) -> tuple[float | None, float | None]:
        nvml, h = self._nvml, self._handle
        top = _read(nvml.nvmlDeviceGetMaxClockInfo, h, nvml.NVML_CLOCK_SM)
        limit_mw = _read(nvml.nvmlDeviceGetEnforcedPowerLimit, h)
        return (float(top) if top else None, limit_mw / 1e3 if limit_mw else None)


def state(start: dict, end: dict, clocks: tuple[float, ...], limits) -> GpuState | None:
    """The phase's GpuState from the counters read at its two ends; None where NVML gave
    nothing at all."""
    wall_s = end["t"] - start["t"]

    def share(key: str) -> float | None:
        if start[key] is None or end[key] is None or wall_s <= 0:
            return None
        return round(min(100.0, 100 * (end[key] - start[key]) / _NS_PER_S / wall_s), 1)

    power = None
    if start["energy_mj"] is not None and end["energy_mj"] is not None and wall_s > 0:
        power = round((end["energy_mj"] - start["energy_mj"]) / 1e3 / wall_s, 1)
    top, limit = limits
    if not clocks and power is None:
        return None
    return GpuState(
        sm_clock_mhz=clocks,
        sm_clock_max_mhz=top,
        power_w=power,
        power_limit_w=limit,
        power_capped_pct=share("power_ns"),
        thermal_capped_pct=share("thermal_ns"),
    )
