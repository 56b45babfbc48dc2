"""Whether a run's working set fits in the device's cache: above the DRAM ceiling is then cache."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from runtime_lab.fusion.result import FusionResult
from runtime_lab.view.fmt import fmt_bytes


@dataclass(frozen=True)
class WorkingSet:
    """The bytes one call touches at least (each input read, each output written once) against
    the cache that could hold them: the CPU's last-level cache, or the GPU's L2."""

    bytes: int | None
    cache_bytes: int | None
    cache_name: str  # "LLC" or "L2"

    @property
    def fits(self) -> bool | None:
        """Whether it fits; None where either size is unknown (a run recorded before the
        lab read the cache's size)."""
        if not self.bytes or not self.cache_bytes:
            return None
        return self.bytes <= self.cache_bytes

    def over_ceiling(self) -> str:
        """Why a mode reads above the memory ceiling, in this run's sizes."""
        size = fmt_bytes(self.bytes) if self.bytes else "unknown"
        if self.fits:
            return (
                f"the working set fits in cache ({size} vs {self.cache_name} "
                f"{fmt_bytes(self.cache_bytes)}): a figure above the memory ceiling is cache "
                "bandwidth, not DRAM's"
            )
        if self.fits is None:
            return (
                f"the working set ({size}) may fit in the {self.cache_name} (its size was not "
                "recorded): a figure above the memory ceiling is then cache bandwidth"
            )
        return (
            f"the working set ({size}) is larger than the {self.cache_name} "
            f"({fmt_bytes(self.cache_bytes)}), so the bytes model's transfers did not all come "
            "from memory (an intermediate written and read back at once stays in cache), or the "
            "byte pattern is not the ceiling's"
        )


def working_set(result: FusionResult, env: Mapping[str, Any] | None) -> WorkingSet:
    """The run's working set and its device's cache, from the result and the run's env."""
    moved = [m.bytes_moved for m in result.modes if m.bytes_moved]
    size = result.ideal_bytes or (min(moved) if moved else None)  # the fused model's bytes
    env = env or {}
    if result.device == "cpu":
        return WorkingSet(size, env.get("host_llc_bytes"), "LLC")
    gpus = env.get("gpus") or [{}]
    return WorkingSet(size, gpus[0].get("l2_cache_bytes"), "L2")
