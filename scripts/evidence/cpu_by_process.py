"""Where a command's CPU seconds go, by kind of process: `python -m scripts.evidence.cpu_by_process
-- CMD …` runs CMD and samples /proc every 0.2 s (Linux), adding the CPU ticks of CMD and of
every process descended from it to its kind."""

# Why: `time` gives a test tier's total CPU, not which processes spent it (workers forked from
# the zygote, workers of their own, Chromium, the Streamlit server, C++ compiles, …). A process
# that lives under 0.2 s may be missed, and one whose parent died before it was first seen
# (a daemon) is not counted: it no longer descends from CMD.

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import time

KINDS = (  # (kind, pattern on "comm cmdline"), first match wins
    ("C++ compile", r"^(cc1plus|g\+\+|c\+\+|ld|as|collect2) "),
    ("chromium", r"^chrom"),
    ("inductor vector-ISA check", r"if sys\.platform"),
    ("streamlit server", r"streamlit"),
    ("worker forked from the zygote", r"runtime_lab\.runner\.zygote"),
    ("worker of its own", r"runtime_lab\.runner\.worker"),
    ("workload-file reader", r"runtime_lab\.workloads\.describe"),
    ("fresh-process child", r"fusion\.run\.fresh_child"),
    ("ray", r"ray/|raylet|gcs_server|^ray::"),
    ("pytest-xdist worker", r"exec\(eval\(sys\.stdin"),
    ("lab CLI", r"-m runtime_lab( |$)"),
    ("benchmarks", r"-m benchmarks"),
)


def kind(comm: str, cmdline: str) -> str:
    text = f"{comm} {cmdline}"
    return next((name for name, pattern in KINDS if re.search(pattern, text)), f"other: {comm}")


def _read(pid: str) -> tuple[tuple[str, str], str, int, str] | None:
    """((pid, start tick), kind, CPU ticks so far, parent pid) of one process, or None when it
    is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
    except (OSError, ValueError):
        return None
    return (pid, fields[19]), kind(comm, cmdline), int(fields[11]) + int(fields[12]), fields[1]


def sample(proc: subprocess.Popen, every_s: float = 0.2) -> collections.Counter:
    """CPU seconds per kind of process, for `proc` and its descendants, until `proc` ends."""
    hz = os.sysconf("SC_CLK_TCK")
    ours = {str(proc.pid)}
    last: dict[tuple[str, str], int] = {}
    seconds: collections.Counter = collections.Counter()
    while proc.poll() is None:
        found = [f for f in map(_read, _pids()) if f is not None]
        parent = {key[0]: ppid for key, _, _, ppid in found}
        for key, name, ticks, _ in found:
            if _descends(key[0], parent, ours):
                seconds[name] += (ticks - last.get(key, 0)) / hz
                last[key] = ticks
        time.sleep(every_s)
    return seconds


def _descends(pid: str, parent: dict[str, str], ours: set[str]) -> bool:
    """Whether pid is one of ours or a descendant of one (remembered once known)."""
    chain = []
    while pid not in ours and pid in parent and pid not in chain:
        chain.append(pid)
        pid = parent[pid]
    if pid in ours:
        ours.update(chain)
        return True
    return False


def _pids() -> list[str]:
    return [p for p in os.listdir("/proc") if p.isdigit()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    start = time.monotonic()
    proc = subprocess.Popen(command)
    seconds = sample(proc)
    wall = time.monotonic() - start
    total = sum(seconds.values())
    print(f"wall {wall:.1f} s, CPU {total:.1f} s ({total / wall:.2f} cores busy on average)")
    for name, value in seconds.most_common():
        print(f"{value:8.1f} s  {name}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
