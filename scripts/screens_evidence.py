"""Screenshots of the session-5 evidence views: H200 runs (fusion compile evidence, streams CSAN
and sync records, allocator A/B and memory outside the allocator) redrawn from a history built
from their run JSONs, and a CPU recompiles run with the new modes and a stance.

.venv/bin/python -m scripts.screens_evidence RUN_JSON... [--out docs/screens]"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

from playwright.sync_api import expect

from runtime_lab.record import Run
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.store.history import History
from scripts.screens import HEADLINE, open_page, served_page, settle, shoot

TITLES = {name: info.title for name, info in EXPERIMENTS.items()}
RECOMPILES_LINK = (
    "?shapes=256x256,512x512,1x256&modes=dynamic%3DFalse,mark_dynamic,maybe_mark_dynamic,"
    "mark_unbacked&stance=eager_on_recompile&bucket=off&graph_break=item-branch"
)


def stored(run: dict, i: int) -> Run:
    """A recorded run document as History stores it (a job id, the experiment, a label)."""
    return Run.from_dict(
        {
            **run,
            "job_id": f"h200-evidence-{i}",
            "experiment": run["spec"]["experiment"],
            "label": f"{TITLES[run['spec']['experiment']]} (H200, session 5)",
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=Path("docs/screens"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="screens-evidence-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        history = History(data / "history.sqlite3")
        runs = [stored(json.loads(p.read_text()), i) for i, p in enumerate(args.runs)]
        ids = history.add_many(runs)
        with served_page(data, Path(tmp) / "server.log") as (page, url):
            for run_id, run in zip(ids, runs, strict=True):
                name = run.experiment
                open_page(page, url, "History")
                box = page.get_by_test_id("stSelectbox").filter(has_text="Open run")
                box.get_by_role("combobox").click()
                label = re.compile(rf"^#{run_id}: {re.escape(TITLES[name])} ")
                page.get_by_role("option", name=label).click()
                expect(
                    page.locator(HEADLINE).filter(has_text=f"run #{run_id}").first
                ).to_be_visible()
                settle(page)
                shoot(page, args.out / f"h200-{name}-evidence.png")
            page.goto(url.rstrip("/") + "/recompiles" + RECOMPILES_LINK)
            expect(page.get_by_role("heading", name=TITLES["recompiles"], level=1)).to_be_visible()
            settle(page)
            page.get_by_role("button", name="Run", exact=True).click()
            started = time.monotonic()
            headline = page.locator(HEADLINE).filter(has_text=re.compile(r"run #\d+"))
            expect(headline.first).to_be_visible(timeout=400_000)
            print(f"recompiles CPU run: {time.monotonic() - started:.1f} s")
            settle(page)
            shoot(page, args.out / "cpu-recompiles-evidence.png")


if __name__ == "__main__":
    main()
