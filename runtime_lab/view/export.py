"""Charts to take away: PNG and SVG rendered offline by vl-convert, the data behind them as CSV."""

from __future__ import annotations

import functools
import re
from typing import Any

import altair as alt
import pandas as pd

# a chart drawn to the page's width has no width of its own: the file gets this one
EXPORT_WIDTH = 900
PNG_SCALE = 2  # twice the pixels: sharp on a high-density screen or a slide
CHILDREN = ("layer", "hconcat", "vconcat", "concat")
PROBE = {
    "data": {"values": [{"x": 1}]},
    "mark": "point",
    "encoding": {"x": {"field": "x", "type": "quantitative"}},
}


@functools.cache
def unavailable() -> str | None:
    """Why images cannot be rendered here, None when they can (a tiny chart is tried once)."""
    try:
        import vl_convert

        vl_convert.vegalite_to_svg(PROBE, allowed_base_urls=[])
    except Exception as exc:  # a missing or broken install: the data is still offered as CSV
        return f"{type(exc).__name__}: {exc}"
    return None


def _spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    spec = chart.to_dict()
    # concat and facet charts size their panels themselves; a single plot would be 300 px
    if ("mark" in spec or "layer" in spec) and "width" not in spec:
        spec["width"] = EXPORT_WIDTH
    return spec


def to_svg(chart: alt.TopLevelMixin) -> str:
    """The chart as an SVG document; its data is inline, so nothing is fetched."""
    import vl_convert

    return vl_convert.vegalite_to_svg(_spec(chart), allowed_base_urls=[])


def to_png(chart: alt.TopLevelMixin, scale: float = PNG_SCALE) -> bytes:
    """The chart as a PNG at `scale` times its size on the page."""
    return svg_to_png(to_svg(chart), scale)


def svg_to_png(svg: str, scale: float = PNG_SCALE) -> bytes:
    """An SVG this module made, rasterised (what vl-convert's own PNG path does after its SVG:
    the same bytes, and an SVG already made is not rendered twice)."""
    import vl_convert

    return vl_convert.svg_to_png(svg, scale=scale)


def _mark(node: Any) -> str | None:
    mark = getattr(node, "mark", alt.Undefined)
    if mark is alt.Undefined:
        return None
    return mark if isinstance(mark, str) else str(mark.type)


def _walk(node: Any, inherited: pd.DataFrame | None, found: dict[int, tuple]) -> None:
    data = getattr(node, "data", None)
    data = data if isinstance(data, pd.DataFrame) else inherited
    mark = _mark(node)
    if mark and data is not None:
        marks, _ = found.setdefault(id(data), ([], data))
        if mark not in marks:
            marks.append(mark)
    for attr in CHILDREN:
        children = getattr(node, attr, alt.Undefined)
        for child in children if isinstance(children, list) else ():
            _walk(child, data, found)
    spec = getattr(node, "spec", alt.Undefined)
    if isinstance(spec, alt.TopLevelMixin):  # a facet's spec takes the facet's data
        _walk(spec, data, found)


def frames(chart: alt.TopLevelMixin) -> list[tuple[str, pd.DataFrame]]:
    """Each distinct DataFrame the chart draws, named by the marks drawing it ("bar+text")."""
    found: dict[int, tuple[list[str], pd.DataFrame]] = {}
    _walk(chart, None, found)
    return [("+".join(marks), frame) for marks, frame in found.values()]


def to_csv(chart: alt.TopLevelMixin) -> str:
    """The chart's data; several frames (layers of different data) stacked, a drawn_as column
    saying which marks drew each row."""
    parts = frames(chart)
    if len(parts) <= 1:
        return parts[0][1].to_csv(index=False) if parts else ""
    table = pd.concat([frame.assign(drawn_as=name) for name, frame in parts], ignore_index=True)
    return table[["drawn_as", *(c for c in table.columns if c != "drawn_as")]].to_csv(index=False)


def file_stem(title: str, run_id: Any = None) -> str:
    """A file name for a chart: the run and the chart's title, lower-case, dashes."""
    words = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60].strip("-")
    return f"run-{run_id or 'latest'}-{words or 'chart'}"
