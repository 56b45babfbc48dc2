"""An imported run's artefact files: written under a unique name, removed with their run."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runtime_lab.store.bundle_check import path_fields

IMPORTED = "imported"  # data dir folder: one subfolder of artefacts per imported run


def new_folder(base: Path, prefix: str) -> Path:
    """A folder name no other import uses, `<prefix>-<random>`: two imports of one run at once
    each write their own, so the one that loses removes only its own files."""
    return base / f"{prefix}-{uuid.uuid4().hex[:12]}"


def write_folder(folder: Path, files: dict[str, Any]) -> None:
    """Write `files` (bundle name → JSON content) into `folder`, built under a temporary name
    and renamed into place whole: a folder with a run's name is always complete."""
    if not files:
        return
    partial = folder.with_name(f".partial-{folder.name}")
    try:
        for name, content in files.items():  # plain names (bundle_check.safe_name)
            path = partial / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(content), encoding="utf-8")
        os.replace(partial, folder)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def remove_folder(folder: Path) -> None:
    """Remove a folder this import wrote (its insert failed): only ever this import's own."""
    shutil.rmtree(folder, ignore_errors=True)


def remove_imported(result: Any, data_dir: Path, named: Callable[[str], bool]) -> None:
    """Delete a deleted run's files under `<data_dir>/imported` that no stored run names
    (`named(path)`), then the folders left empty; files outside that folder are never touched."""
    base = (data_dir / IMPORTED).resolve()
    for _, holder, key in path_fields(result):
        value = holder[key]
        if not isinstance(value, str) or not value:
            continue
        path = Path(value)
        if not path.resolve().is_relative_to(base) or named(value):
            continue
        with contextlib.suppress(OSError):
            path.unlink()
        for folder in path.resolve().parents:
            if folder == base or not folder.is_relative_to(base):
                break
            with contextlib.suppress(OSError):  # only when empty
                folder.rmdir()
