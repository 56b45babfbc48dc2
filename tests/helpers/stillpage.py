"""A browser page for the tests: a fresh context whose CSS animations and transitions are off."""

from __future__ import annotations

from typing import Any

VIEWPORT = {"width": 1400, "height": 1000}

# The tests read what a page says, never how it moves. Streamlit's spinners, skeletons and fades
# kept Chromium's software renderer drawing frames while a run went on: with them off,
# test_workloads_browser.py took 69-86 s where it took 81-95 s (Chromium's CPU 41 s, was 52 s).
STILL_CSS = "*, *::before, *::after { animation: none !important; transition: none !important; }"
STILL_SCRIPT = f"""
document.addEventListener("DOMContentLoaded", () => {{
  const style = document.createElement("style");
  style.textContent = "{STILL_CSS}";
  document.head.appendChild(style);
}});
"""


def new_page(browser: Any, timeout_ms: int = 30_000) -> Any:
    """A page in a new context of `browser` (Playwright), still; close it with page.context."""
    context = browser.new_context(viewport=VIEWPORT, reduced_motion="reduce")
    context.add_init_script(STILL_SCRIPT)
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    return page
