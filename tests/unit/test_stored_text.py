"""Stored text is text: markdown that renders a string as typed, terminal lines without controls."""

from __future__ import annotations

import time

import pytest
from literal import problems, rendered

from runtime_lab.registry import EXPERIMENTS
from runtime_lab.ui.links import from_query
from runtime_lab.view.origin import imported_from
from runtime_lab.view.text import SHOWN_CHARS, code, markdown, terminal

HOSTILE = [
    "[click](http://evil.example/x)",
    "![pixel](http://evil.example/p.png)",
    "# Heading",
    "## sub",
    "- item",
    "+ item",
    "* item",
    "1. one",
    "2) two",
    "---",
    "***",
    "___",
    "> quoted",
    "$x^2$ and $$y$$",
    "<img src=x onerror=alert(1)> <b>bold</b> <!-- c -->",
    "**strong** _em_ __u__ ~~gone~~ ~x~",
    "`code` ``two`` ```",
    "a | b | c",
    "see https://evil.example/a?b=1, www.evil.example and mail@evil.example",
    "HTTPS://EVIL.EXAMPLE/UP",
    "(http://127.0.0.1:9/t.png)",
    ":red[coloured] :small[tiny] :blue x:orange",
    ":material/home: :smile: :streamlit:",
    "a:b{c=d}",
    "&lt;b&gt; &#60;i&#62; &amp;",
    "[^1] [ref]: http://evil.example",
    "    indented four",
    "\tindented tab",
    "trailing backslash \\",
    "\\[already escaped\\](x)",
]
PLAIN = [
    "allocator cuda:0 float32: sequence peak 320.0 MiB",
    "hit max_entries (1000) at 12:30:05",
    "#12 failed: no figures",
    "inductor steady-state time 1.5 ms · 2.0×",
    "NVIDIA H200 ×8 — CUDA 12.4",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_renders_hostile_text_as_typed(text):
    shown = markdown(text)
    assert problems(shown) == [], shown
    indented = text.expandtabs(4) if text.startswith("\t") else text  # a tab: four spaces
    assert rendered(shown) == indented, shown


@pytest.mark.parametrize("text", HOSTILE[:6] + HOSTILE[13:19])
def test_the_reader_sees_the_constructs_left_raw(text):
    assert problems(text), "the check must catch the construct it guards against"


@pytest.mark.parametrize("text", PLAIN)
def test_ordinary_text_is_unchanged(text):
    assert markdown(text) == text


def test_one_line_markdown_joins_lines_so_none_starts_a_block():
    shown = markdown("label\n# Heading\r\n[x](http://e.example)\u2028- item")
    assert "\n" not in shown and "\u2028" not in shown
    assert problems(shown) == []
    assert rendered(shown) == "label # Heading [x](http://e.example) - item"


def test_lines_keep_their_breaks_and_indentation():
    error = (
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1, in <module>\n'
        "    raise ValueError('[x](http://evil.example) $bad$')\n"
        "# not a heading\n\n"
        "    not a code block"
    )
    shown = markdown(error, lines=True)
    assert problems(shown) == [], shown
    assert rendered(shown) == error


def test_a_url_is_set_as_code_from_its_scheme_on():
    assert (
        markdown("![x](http://e.example/t.png) $x$")
        == "\\!\\[x\\](`http://e.example/t.png)` \\$x\\$"
    )
    assert markdown("go http://e.example/a`b now") == "go ``http://e.example/a`b`` now"


def test_code_is_one_line_of_inline_code_whatever_it_holds():
    assert code("ray:host/gpu:0") == "`ray:host/gpu:0`"
    assert code("a`b\nc") == "``a`b c``"
    assert rendered(code("`x`")) == "`x`"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("red\x1b[31m!\x1b[0m", "red\\x1b[31m!\\x1b[0m"),
        ("over\rwrite", "over\\rwrite"),
        (
            "fake\n#99   2024-01-01 00:00:00  done  forged",
            "fake\\n#99   2024-01-01 00:00:00  done  forged",
        ),
        ("tab\there", "tab\\there"),
        ("csi\x9b31m nul\x00 del\x7f", "csi\\x9b31m nul\\x00 del\\x7f"),
        ("abc\u202edcba \u2066x\u2069", "abc\\u202edcba \\u2066x\\u2069"),
        ("line\u2028sep", "line\\u2028sep"),
        ("lone \ud800 surrogate", "lone \\ud800 surrogate"),
        ("µs × — NVIDIA H200", "µs × — NVIDIA H200"),
    ],
)
def test_terminal_escapes_controls_bidi_and_surrogates(text, shown):
    assert terminal(text) == shown
    assert terminal(text).isprintable()


def test_terminal_lines_keeps_newlines_only():
    assert terminal("a\nb\x1b[2J", lines=True) == "a\nb\\x1b[2J"


@pytest.mark.parametrize(
    ("origin", "words"),
    [
        (None, ""),
        (
            {"origin_host": "lab-b", "origin_gpu": "NVIDIA H200"},
            "imported from lab-b (NVIDIA H200)",
        ),
        ({"origin_host": "lab-b", "origin_gpu": None}, "imported from lab-b"),
        ({"origin_host": None}, "imported from an unnamed host"),
        ({}, "imported from an unnamed host"),  # an origin that no longer parses
    ],
)
def test_imported_from_names_the_host_and_gpu(origin, words):
    assert imported_from(origin) == words


# issue 38: escaping is linear, and what a page echoes is capped
@pytest.mark.parametrize("unit", ["a", "a_", "-", ":a", "x.", "-a", "w", "é+"])
def test_escaping_a_long_run_without_spaces_takes_linear_time(unit):
    text = unit * (SHOWN_CHARS // len(unit))  # the most a page escapes: 1.4-2 s before, 5 ms now
    started = time.perf_counter()
    shown = markdown(text)
    assert time.perf_counter() - started < 0.5
    assert len(shown) >= len(text) and "more characters not shown" not in shown


def test_a_million_character_error_is_cut_and_its_length_said():
    text = "Traceback:\n" + "x" * 999_989
    started = time.perf_counter()
    shown = markdown(text, lines=True)
    assert time.perf_counter() - started < 0.5
    assert len(shown) < SHOWN_CHARS + 100 and shown.endswith("(980,000 more characters not shown)")
    assert rendered(markdown("y" * 30_000)).startswith("y" * SHOWN_CHARS + " … (10,000 more")
    assert len(code("z" * 50_000)) < SHOWN_CHARS + 100


def test_a_link_value_past_the_cap_is_one_short_line_and_not_taken():
    info, values = EXPERIMENTS["fusion"], {"shape": "64x64", "params": ""}
    taken, said = from_query(info, {"shape": "1x" * 500_000, "params": "h" * 10**6}, values, [])
    assert taken == values and set(said) == {"shape", "params"}
    assert all(len(line) < 200 and "at most 4,000 characters" in line for line in said.values())


def test_a_link_of_a_thousand_bad_fields_says_ten_and_counts_the_rest():
    query = {f"k{i}": "1" for i in range(1000)}
    _, said = from_query(EXPERIMENTS["fusion"], query, {}, [])
    assert len(said) == 11 and said["…"] == "and 990 more link values not taken"
