"""`make test-gpu` runs tests/gpu in parts (GPU_1, GPU_2, ... in the Makefile): every file of the
gpu tier is in exactly one part, so none is left out of the GPU run or run twice."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _parts() -> dict[str, list[str]]:
    text = (ROOT / "Makefile").read_text()
    listed = re.findall(r"^GPU_PARTS = (.+)$", text, re.MULTILINE)[0].split()
    files = dict(re.findall(r"^GPU_(\d+) = (.+)$", text, re.MULTILINE))
    assert sorted(files) == sorted(listed), (files, listed)
    return {part: files[part].split() for part in listed}


def test_every_gpu_file_is_in_exactly_one_part():
    named = [f for files in _parts().values() for f in files]
    present = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "gpu").glob("test_*.py"))
    assert sorted(named) == present, set(named) ^ set(present)
    assert len(named) == len(set(named))


def test_no_part_is_empty():
    assert all(_parts().values())
