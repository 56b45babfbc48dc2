"""README stays a short map (<= 8 KB, every package and top-level folder named) and no doc link
points at a file or heading that is not there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_README_BYTES = 8192
TOP_FOLDERS = ("app_pages", "runtime_lab", "benchmarks", "scripts", "tests", "docs")
# the question a newcomer asks of the map, and the word its answer's line must hold (issue 25)
WHERE = {"runner": "queued", "store": "stored", "compare": "compared", "compiler": "compile"}
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def _map_lines() -> list[str]:
    """The lines of the fenced block under README's "## Repository map" heading."""
    section = README.read_text().split("\n## Repository map", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```\n(.*?)```", section, re.S)
    assert block, "README's Repository map has no fenced block"
    return block.group(1).splitlines()


def _named(folder: str, lines: list[str]) -> list[str]:
    """The map lines that name `folder/` as an entry (not inside a longer path)."""
    return [line for line in lines if re.search(rf"(?<![\w/.]){re.escape(folder)}/", line)]


def _packages() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "runtime_lab").glob("*/__init__.py"))


def test_readme_is_at_most_8_kb():
    size = len(README.read_bytes())
    assert size <= MAX_README_BYTES, f"README.md is {size} bytes; move detail to docs/"


@pytest.mark.parametrize("folder", TOP_FOLDERS)
def test_each_top_level_folder_exists_and_starts_a_map_line(folder):
    assert (ROOT / folder).is_dir(), f"README's map names {folder}/, which does not exist"
    assert any(line.startswith(f"{folder}/") for line in _map_lines()), folder


def test_each_runtime_lab_package_is_in_the_map():
    packages = _packages()
    assert len(packages) >= 10, packages  # the glob found the packages, not nothing
    lines = _map_lines()
    missing = [name for name in packages if not _named(name, lines)]
    assert not missing, f"runtime_lab packages missing from README's map: {missing}"


def test_each_test_tier_folder_is_in_the_map():
    tiers = sorted(p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and p.name[0] != "_")
    assert {"unit", "integration", "e2e", "gpu"} <= set(tiers), tiers
    lines = _map_lines()
    assert [name for name in tiers if not _named(name, lines)] == []


@pytest.mark.parametrize(("package", "word"), WHERE.items())
def test_the_map_says_where_jobs_runs_and_compile_evidence_live(package, word):
    lines = [line for line in _map_lines() if line.strip().startswith(f"{package}/")]
    assert lines and word in lines[0], (package, lines)


def _prose(path: Path) -> str:
    """A markdown file without fenced blocks and inline code, where links are not links."""
    return re.sub(r"`[^`\n]*`", "", FENCE.sub("", path.read_text()))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    found: set[str] = set()
    for line in FENCE.sub("", path.read_text()).splitlines():
        heading = re.match(r"#{1,6} (.+)", line)
        if heading:
            slug = base = _slug(heading.group(1))
            count = 0
            while slug in found:  # GitHub numbers repeated headings: x, x-1, x-2
                count += 1
                slug = f"{base}-{count}"
            found.add(slug)
    return found


def _relative_links() -> list[tuple[Path, str]]:
    pages = [README, *sorted((ROOT / "docs").rglob("*.md"))]
    return [
        (page, target)
        for page in pages
        for target in LINK.findall(_prose(page))
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)  # http:, mailto: are not files here
    ]


def test_every_relative_link_in_readme_and_docs_points_to_a_file():
    links = _relative_links()
    assert any(page == README for page, _ in links), "README has no relative links"
    broken = []
    for page, target in links:
        file_part, _, anchor = target.partition("#")
        path = (page.parent / file_part).resolve() if file_part else page
        if not path.exists():
            broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_link_check_sees_a_broken_link(tmp_path):
    """The parsing above finds links in prose and skips code, so a missing file is reported."""
    page = tmp_path / "page.md"
    page.write_text("See [x](missing.md) and `[y](code.md)`.\n```\n[z](fenced.md)\n```\n")
    assert LINK.findall(_prose(page)) == ["missing.md"]
    assert _slug("Compare (`runtime_lab/compare/`)") == "compare-runtime_labcompare"
