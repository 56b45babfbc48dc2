"""No emoji in the app's source (boxes without an emoji font); only Streamlit's Material icons."""

import re
from pathlib import Path

from streamlit.material_icon_names import ALL_MATERIAL_ICONS

from runtime_lab import registry
from runtime_lab.ui.results import STATE_ICONS
from runtime_lab.ui.shell import WORKER_DOTS, WORKER_DOWN

ROOT = Path(__file__).resolve().parents[2]
EMOJI = re.compile(
    "[\U0001f000-\U0001faff"  # pictographs, emoticons, transport, coloured shapes, symbols
    "\u2600-\u27bf"  # miscellaneous symbols and dingbats (⚡ ⚙ ✅ ❌ ⛔)
    "\u2b00-\u2bff"  # arrows and stars drawn as emoji (⭐ ⬛)
    "\u231a\u231b\u23e9-\u23f3\u23f8-\u23fa"  # the emoji among the technical symbols (⏳)
    "\ufe0f]"  # the selector that asks for an emoji presentation
)
MATERIAL = re.compile(r":material/([a-z0-9_]+):")


def _sources() -> list[Path]:
    return [ROOT / "app.py", *sorted((ROOT / "runtime_lab").rglob("*.py"))] + sorted(
        (ROOT / "app_pages").rglob("*.py")
    )


def emoji_lines(path: Path, text: str) -> list[str]:
    """'file:line: the characters' for every line holding an emoji."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        chars = EMOJI.findall(line)
        if chars:
            codes = " ".join(f"U+{ord(c):04X}" for c in chars)
            found.append(f"{path.relative_to(ROOT)}:{number}: {codes}")
    return found


def test_the_scan_catches_the_emoji_the_app_used_to_show():
    old = {
        "app.py": 'page_icon="\U0001f9ea"',
        "shell.py": 'icon="\U0001f5c2\ufe0f"  "\U0001f7e2" "\U0001f534"',
        "results.py": '"queued": "\u23f3", "running": "\u2699\ufe0f", "done": "\u2705"',
        "info.py": 'icon="\u26a1" icon="\U0001f9e0" icon="\U0001f501" icon="\U0001f500"',
    }
    for name, text in old.items():
        assert emoji_lines(ROOT / name, text), name
    assert emoji_lines(ROOT / "x.py", "a\nicon='\u26d4'") == ["x.py:2: U+26D4"]
    # the lab's typography stays: µ × → − ≤ ▼ ◆ ● ² …
    assert emoji_lines(ROOT / "x.py", "µs × → − ≤ ▼ ◆ ● ² … · — ÷") == []


def test_no_emoji_in_the_app_source():
    found = [hit for path in _sources() for hit in emoji_lines(path, path.read_text())]
    assert found == []


def test_every_material_icon_named_in_the_source_exists():
    names = {n for path in _sources() for n in MATERIAL.findall(path.read_text())}
    assert {"science", "history", "check_circle", "download"} <= names
    assert names - ALL_MATERIAL_ICONS == set()


def test_pages_states_and_worker_dots_use_material_icons():
    icons = [info.icon for info in registry.visible()]
    icons += [*STATE_ICONS.values(), *WORKER_DOTS.values(), WORKER_DOWN]
    assert all(MATERIAL.search(icon) for icon in icons), icons
    assert set(STATE_ICONS) == {"queued", "running", "done", "failed", "cancelled", "refused"}
