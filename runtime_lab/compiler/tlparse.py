"""tlparse (PyPI, a binary) renders a structured compile trace into an HTML report; zip it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

TIMEOUT_S = 120
MISSING = "tlparse is not installed (pip install tlparse; the lab's requirements.txt has it)"


def binary() -> str | None:
    """The tlparse executable: on PATH, or beside this interpreter (a venv not activated)."""
    found = shutil.which("tlparse")
    if found:
        return found
    beside = Path(sys.executable).with_name("tlparse")
    return str(beside) if beside.is_file() else None


def build(log: Path, zip_path: Path) -> tuple[str | None, str]:
    """tlparse's report of `log` with the raw log inside, as one zip; (path, "") or (None, why)."""
    exe = binary()
    if exe is None:
        return None, MISSING
    with tempfile.TemporaryDirectory(prefix="runtime-lab-tlparse-") as root:
        out = Path(root) / "report"
        args = [exe, str(log), "-o", str(out), "--no-browser", "--overwrite", "-i"]
        try:
            done = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, f"tlparse did not finish: {type(exc).__name__}: {exc}"[:500]
        if done.returncode != 0 or not (out / "index.html").is_file():
            tail = (done.stderr or done.stdout or "no output").strip().splitlines()[:1]
            return None, f"tlparse failed (exit {done.returncode}): {tail[0][:300]}"
        zip_path.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(out.rglob("*")):
                if path.is_file():
                    archive.write(path, Path("tlparse") / path.relative_to(out))
            archive.write(log, Path("raw") / log.name)
    return str(zip_path), ""
