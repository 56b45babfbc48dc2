"""Screenshots of one run's report, tab by tab, from a bundle (a GPU run exported on the device).

.venv/bin/python -m scripts.screens_tabs BUNDLE.json.gz [--prefix h200-fusion-tab] [--out docs/screens]"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect

from scripts.screens import HEADLINE, served_page, settle, shoot


def _import(bundle: Path, data: Path) -> None:
    """The CLI's import, as a user would: the bundle's runs join a fresh history."""
    command = [sys.executable, "-m", "runtime_lab", "--data-dir", str(data), "import", str(bundle)]
    subprocess.run(command, check=True)


def _tabs(page, url: str, out: Path, prefix: str) -> None:
    page.goto(f"{url}/history?run=1")
    headline = page.locator(HEADLINE).filter(has_text="run #1")
    expect(headline.first).to_be_visible()
    settle(page)
    print(f"headline: {headline.first.inner_text()}")
    tabs = page.get_by_role("tab")
    names = [t.strip() for t in tabs.all_inner_texts()]
    print(f"tabs: {names}")
    for i, name in enumerate(names):
        tabs.nth(i).click()
        page.wait_for_timeout(1500)  # a tab's charts draw when it is first shown
        timeline = page.get_by_text("Where the time went")
        if name == "Raw" and timeline.count():  # the job's timeline (runs before it: none)
            timeline.click()
            page.wait_for_timeout(1500)
        sizes = page.evaluate(
            "() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')]"
            ".filter(c => c.offsetParent !== null).map(c => c.getBoundingClientRect().width)"
        )
        print(f"  {name}: chart widths {sizes}")
        settle(page)
        shoot(page, out / f"{prefix}-{i + 1}-{name.lower()}.png")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--prefix", default="h200-fusion-tab")
    parser.add_argument("--out", type=Path, default=Path("docs/screens"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="screens-tabs-") as tmp:
        data = Path(tmp) / "data"
        _import(args.bundle.resolve(), data)
        with served_page(data, Path(tmp) / "server.log") as (page, url):
            _tabs(page, url, args.out, args.prefix)


if __name__ == "__main__":
    main()
