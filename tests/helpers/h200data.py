"""Recorded H200 data for tests: Chrome traces, the device's limits, the allocator snapshot
(kept as JSON, not as a pickle)."""

import gzip
import json
import pickle
from pathlib import Path

from runtime_lab.compiler import occupancy

H200 = Path(__file__).parents[1] / "fixtures" / "h200"
SNAPSHOT_FILE = H200 / "alloc-snapshot.json.gz"
# streams runs recorded on the H200 (torch 2.11+cu130): Kineto's kernel args and deviceProperties
TRACES = ("streams-correct.json", "streams-overlap.json", "streams-missing-producer-wait.json")


def snapshot() -> dict:
    """torch.cuda.memory._snapshot() as recorded (scripts/evidence/capture_gpu_fixtures.py)."""
    data = json.loads(gzip.decompress(SNAPSHOT_FILE.read_bytes()))
    for segment in data["segments"]:
        segment["segment_pool_id"] = tuple(segment["segment_pool_id"])  # JSON made it a list
    return data


def snapshot_pickle(path: Path) -> bytes:
    """Write the snapshot as _dump_snapshot would (what the lab offers as a download)."""
    data = pickle.dumps(snapshot())
    path.write_bytes(data)
    return data


def trace(name: str) -> dict:
    """A recorded Chrome trace under tests/fixtures/h200, gzipped or not."""
    data = (H200 / name).read_bytes()
    return json.loads(gzip.decompress(data) if name.endswith(".gz") else data)


def device_limits() -> occupancy.DeviceLimits:
    """The H200's limits as its recorded trace reports them."""
    return occupancy.from_trace_properties(trace(TRACES[0])["deviceProperties"][0])
