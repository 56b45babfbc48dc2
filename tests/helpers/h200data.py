"""Recorded H200 data for tests: the allocator snapshot is kept as JSON, not as a pickle."""

import gzip
import json
import pickle
from pathlib import Path

SNAPSHOT_FILE = Path(__file__).parents[1] / "fixtures" / "h200" / "alloc-snapshot.json.gz"


def snapshot() -> dict:
    """torch.cuda.memory._snapshot() as recorded (scripts/capture_gpu_fixtures.py)."""
    data = json.loads(gzip.decompress(SNAPSHOT_FILE.read_bytes()))
    for segment in data["segments"]:
        segment["segment_pool_id"] = tuple(segment["segment_pool_id"])  # JSON made it a list
    return data


def snapshot_pickle(path: Path) -> bytes:
    """Write the snapshot as _dump_snapshot would (what the lab offers as a download)."""
    data = pickle.dumps(snapshot())
    path.write_bytes(data)
    return data
