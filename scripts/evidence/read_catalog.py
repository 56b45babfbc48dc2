"""The catalog's JSON files as one markdown table: `python -m scripts.evidence.read_catalog F…`."""

from __future__ import annotations

import json
import sys


def _pair(figures: dict | None, fmt: str = "{:g}") -> str:
    if not figures:
        return "-"
    return " / ".join(
        "-" if figures.get(m) is None else fmt.format(figures[m]) for m in ("eager", "inductor")
    )


def _versus(row: dict, mode: str) -> str:
    lab, clean = row.get(f"{mode}_ms"), row.get(f"clean_{mode}_ms")
    ratio = (row.get("lab_vs_clean") or {}).get(mode)
    if lab is None:
        return "not timed"
    if clean is None or ratio is None:
        return f"{lab:.4g}"
    return f"{lab:.4g} / {clean:.4g} ({ratio:.3f})"


def _clock(row: dict) -> str:
    clocks = row.get("sm_clock_mhz") or {}
    return " · ".join(f"{c['lab'] or '-'}/{c['clean'] or '-'}" for c in clocks.values()) or "-"


HEAD = (
    "| workload | shape | pass | forward kernels e / i | backward kernels e / i | eager ms lab / clean "
    "(÷) | inductor ms lab / clean (÷) | clean peak MiB e / i | SM MHz lab/clean e · i | "
    "difference |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


def main(paths: list[str]) -> None:
    print(HEAD)
    for path in paths:
        with open(path) as f:
            document = json.load(f)
        for row in document["figures"].values():
            cells = [
                row["workload"],
                row.get("shape") or "-",
                row.get("pass") or "fwd",
                _pair(row.get("forward_kernels"), "{:.0f}"),
                _pair(row.get("backward_kernels"), "{:.0f}"),
                _versus(row, "eager"),
                _versus(row, "inductor"),
                _pair(row.get("clean_peak_mib"), "{:.0f}"),
                _clock(row),
                (row.get("difference") or row.get("clean_error") or row.get("not_timed") or "-"),
            ]
            print("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
