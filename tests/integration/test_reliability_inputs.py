"""Bad-input matrix (issue 7.1): every page form (AppTest) and the CLI, cases from the registry.

Each case: a message naming the field and what is allowed, no exception or traceback, nothing
recorded as a run, and the app still runs a valid job afterwards. Pages and options come from
`registry.visible()` / `registry.EXPERIMENTS`, so new pages and options are covered when they land.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from apphelpers import poll_until, widget
from streamlit.testing.v1 import AppTest

from runtime_lab.cli import main as cli
from runtime_lab.registry import EXPERIMENTS, visible
from runtime_lab.spec import REPEAT_RANGE, WARMUP_RANGE
from runtime_lab.store.history import History

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGES = {info.name: f"app_pages/{info.name}.py" for info in visible()}
# pages with a Shape box (experiments with a shape sequence have none)
SHAPED = [i.name for i in visible() if all(o.kind != "shapes" for o in i.options.values())]

# (case id, typed text, what the message must contain besides the field name)
SHAPE_CASES = [
    ("empty", "", "is empty"),
    ("blank", "   ", "is empty"),
    ("zero-dim", "0x64", "≤ 0"),
    ("negative", "-4x64", "positive integer"),
    ("non-numeric", "abc", "positive integer"),
    ("float", "4.5x64", "positive integer"),
    ("exponent", "1e3", "positive integer"),
    ("five-dims", "2x2x2x2x2", "5 dimensions"),
    ("1e12-elements", "1000000x1000000", "above the lab's limit"),
    ("1e12-one-dim", "1000000000000", "dimension above"),
    ("fullwidth-digits", "４０９６x４０９６", "digits other than 0-9"),
    ("arabic-digits", "٤٠٩٦", "digits other than 0-9"),
    ("emoji", "🔥x🔥", "positive integer"),
    ("very-long", "9" * 5000, "characters long"),
    ("sql", "64; DROP TABLE runs;--", "positive integer"),
    ("shell", "$(rm -rf ~)", "positive integer"),
    ("backticks", "`reboot`", "positive integer"),
    ("nul-byte", "64\x00x64", "positive integer"),
    ("markdown-image", "![x](http://127.0.0.1:9/t.png)", "positive integer"),
]
SIZES_CASES = [
    ("non-numeric", "abc", "not a size list"),
    ("zero", "0", "out of range"),
    ("too-large", "99999999", "out of range"),
    ("thirteen-sizes", ",".join(["64"] * 13), "not a size list"),
    ("unicode-digits", "２５６", "not a size list"),
    ("sql", "256;DELETE FROM runs", "not a size list"),
]
SEQUENCE_CASES = [
    ("empty", "", "is empty"),
    ("over-long", ",".join(["8x8"] * 33), "more than 32"),
    ("bad-dtype", "8x8:int8", "not supported"),
    ("zero-dim", "8x0", "≤ 0"),
    ("very-long", "8x8," * 2000, "characters long"),
    ("shell", "8x8;$(reboot)", "positive integer"),
    ("unicode-digits", "８x8", "digits other than 0-9"),
]
COUNT_CASES = [
    ("Warm-up calls", "warmup", WARMUP_RANGE[0] - 1),
    ("Warm-up calls", "warmup", WARMUP_RANGE[1] + 1),
    ("Timed calls", "repeat", REPEAT_RANGE[0] - 1),
    ("Timed calls", "repeat", REPEAT_RANGE[1] + 1),
]
# fast valid options per experiment for the run that proves the page still works
FAST = {
    "allocator": {"shapes": "64x64,128x128", "scenarios": ["sequence"]},
    "fusion": {"modes": ["eager"], "compile_latency": False},
    "recompiles": {
        "shapes": "8x8",
        "modes": ["dynamic=False"],
        "backend": "eager",
        "bucket": "off",
        "graph_break": "off",
    },
}


def _option_cases(option):
    """(case, typed value, message fragment) for one experiment option, by its kind."""
    if option.kind == "shapes":
        return SEQUENCE_CASES
    if option.kind == "sizes":
        return SIZES_CASES
    if option.kind == "int":
        return [("low", option.low - 1, "out of range"), ("high", option.high + 1, "out of range")]
    if option.kind == "multi":
        return [("unknown", "bogus", "not allowed")]
    if option.kind == "bool":
        return [("maybe", "maybe", "yes/no")]
    return [("sql", "' OR 1=1 --", "not allowed")] if option.choices else []


# the widget each free-form kind gets on a page (choices, lists and bools can't be mistyped)
PAGE_WIDGETS = {"shapes": "area", "sizes": "text", "int": "number"}


def _page_cases():
    cases = []
    for info in visible():
        rows = [
            ("number", label, field, (f"{v}", v, "out of range")) for label, field, v in COUNT_CASES
        ]
        if info.name in SHAPED:
            rows += [("text", "Shape", "shape", case) for case in SHAPE_CASES]
        for name, option in info.options.items():
            if option.kind in PAGE_WIDGETS:
                kind = PAGE_WIDGETS[option.kind]
                rows += [(kind, name, name, case) for case in _option_cases(option)]
        for kind, label, field, (case, value, fragment) in rows:
            case_id = f"{info.name}-{field}-{case}"
            cases.append(pytest.param(info.name, kind, label, field, value, fragment, id=case_id))
    return cases


def _page(experiment):
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(PAGES[experiment])
    at.run()
    assert not at.exception, at.exception
    return at


def _widget(at, kind, label):
    widgets = {"text": at.text_input, "area": at.text_area, "number": at.number_input}[kind]
    return widget(widgets, label)


def _set(at, kind, label, value):
    _widget(at, kind, label).set_value(value)


def _run_button(at):
    return next(b for b in at.button if b.label == "Run")


def _submit(at):
    _run_button(at).click()
    at.run()
    assert not at.exception, at.exception


@pytest.mark.parametrize(
    ("experiment", "kind", "label", "field", "value", "fragment"), _page_cases()
)
def test_page_form_rejects_bad_input(lab, experiment, kind, label, field, value, fragment):
    before = len(lab.history.list())
    at = _page(experiment)
    box = _widget(at, kind, label)
    if box.disabled:  # a CUDA-only control on a machine without a GPU: nothing can be typed
        assert "needs CUDA" in (box.help or ""), (label, box.help)
        return
    box.set_value(value)
    _submit(at)
    messages = [e.value for e in at.error]
    mine = [m for m in messages if m.startswith(f"**{field}**:")]
    assert len(mine) == 1, messages
    assert fragment in mine[0].replace("\\", "")
    assert "allowed" in mine[0] or "expected" in mine[0]
    assert "Traceback" not in mine[0] and len(mine[0]) < 700  # quoted input is shortened
    assert "job:" + experiment not in at.session_state  # nothing was submitted
    assert len(lab.history.list()) == before
    assert _run_button(at)  # the form is still there


def test_form_messages_quote_markdown_literally(lab):
    at = _page(SHAPED[0])
    _set(at, "text", "Shape", "![x](http://127.0.0.1:9/t.png) $x$ <b>")
    _submit(at)
    message = at.error[0].value
    assert "\\!\\[x\\]" in message and "\\$x\\$" in message and "\\<b\\>" in message


def test_bf16_on_a_gpu_without_it_is_refused_in_the_form(lab):
    """The form's device list is the machine's; a GPU without bf16 is refused before queueing."""
    real = lab.env
    lab.env = {**real, "gpus": [{"index": 0, "name": "Old GPU", "bf16_supported": False}]}
    try:
        at = _page(SHAPED[0])
        widget(at.selectbox, "Device").set_value("cuda:0")
        widget(at.selectbox, "dtype").set_value("bfloat16")
        _submit(at)
        assert any(
            "**dtype**" in e.value and "not supported on Old GPU" in e.value for e in at.error
        )
        assert not lab.history.list() or all(r["device"] != "cuda:0" for r in lab.history.list())
    finally:
        lab.env = None  # the workers' own again


@pytest.mark.slow
@pytest.mark.parametrize("experiment", list(PAGES))
def test_page_runs_a_valid_job_after_bad_input(lab, experiment):
    at = _page(experiment)
    before = len(lab.history.list())
    info = EXPERIMENTS[experiment]
    sequence = next((n for n, o in info.options.items() if o.kind == "shapes"), None)
    bad = ("area", sequence, "") if sequence else ("text", "Shape", "0x-3")
    _set(at, *bad)
    _submit(at)
    assert at.error and len(lab.history.list()) == before
    _set(at, *bad[:2], "8x8" if sequence else "64x64")
    widget(at.selectbox, "Device").set_value("cpu")
    widget(at.number_input, "Timed calls").set_value(3)
    widget(at.number_input, "Warm-up calls").set_value(1)
    for name, value in FAST.get(experiment, {}).items():
        option = info.options[name]
        if option.kind == "multi":
            widget(at.multiselect, name).set_value(value)
        elif option.kind == "bool":
            widget(at.checkbox, name).set_value(value)
        elif option.kind == "shapes":
            widget(at.text_area, name).set_value(value)
        else:
            widget(at.selectbox, name).set_value(value)
    _submit(at)
    assert not at.error, [e.value for e in at.error]

    # the stored run's headline box: green, or amber where its verdict doubts a noisy timing
    def stored(a):
        return [b for b in (*a.success, *a.warning) if "run #" in b.value]

    poll_until(at, lambda a: bool(stored(a)) or bool(a.error), timeout_s=240)
    assert stored(at), [e.value for e in at.error]
    assert len(lab.history.list()) == before + 1


# ---- the CLI ---------------------------------------------------------------------------------
def _cli_cases():
    cases = []
    for case, text, fragment in SHAPE_CASES:
        if "\x00" in text:
            continue  # argv cannot carry a NUL byte; the page case above covers it
        cases.append(
            pytest.param(["streams", f"--shape={text}"], "shape", fragment, id=f"shape-{case}")
        )
    cases += [
        pytest.param(["streams", "--dtype=int8"], "dtype", "allowed: float32", id="dtype-unknown"),
        pytest.param(
            ["streams", "--dtype=float32; rm -rf /"], "dtype", "allowed", id="dtype-shell"
        ),
        pytest.param(["streams", "--device=tpu"], "device", "cuda:N", id="device-unknown"),
        pytest.param(["streams", "--device=cuda:７"], "device", "cuda:N", id="device-unicode"),
        pytest.param(["streams", "--device=cuda:123"], "device", "cuda:N", id="device-3-digits"),
        pytest.param(["streams", "--warmup=-1"], "warmup", "0 to 1000", id="warmup-negative"),
        pytest.param(["streams", "--warmup=1001"], "warmup", "0 to 1000", id="warmup-too-many"),
        pytest.param(
            ["streams", "--warmup=１０"], "warmup", "digits other than", id="warmup-unicode"
        ),
        pytest.param(["streams", "--repeat=0"], "repeat", "1 to 10000", id="repeat-zero"),
        pytest.param(["streams", "--repeat=10001"], "repeat", "1 to 10000", id="repeat-too-many"),
        pytest.param(["streams", "--repeat=1e3"], "repeat", "not an integer", id="repeat-float"),
        pytest.param(["streams", "--seed=-1"], "seed", "0 to", id="seed-negative"),
    ]
    for info in EXPERIMENTS.values():
        for name, option in info.options.items():
            flag = f"--{name.replace('_', '-')}"
            for case, value, fragment in _option_cases(option):
                argv = [info.name, f"{flag}={value}"]
                cases.append(pytest.param(argv, name, fragment, id=f"{info.name}-{name}-{case}"))
    return cases


def _cli(argv, data_dir, capsys):
    """The CLI in-process (the subprocess path is tests/test_cli.py): status and stderr."""
    try:
        code = cli.main(["--data-dir", str(data_dir), "run", *argv])
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("argv", "field", "fragment"), _cli_cases())
def test_cli_rejects_bad_input(argv, field, fragment, data_dir, capsys):
    code, err = _cli(argv, data_dir, capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert f"{field}:" in lines[0] and fragment in lines[0]
    assert "allowed" in lines[0] or "expected" in lines[0]
    assert "Traceback" not in err and len(lines[0]) < 1000
    db = data_dir / "history.sqlite3"
    assert not db.exists() or History(db).list() == []


def test_cli_usage_errors_are_one_line(data_dir, capsys):
    for argv in (["nope"], ["streams", "--bogus=1"], ["streams", "--shape"]):
        code, err = _cli(argv, data_dir, capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.slow
def test_cli_cuda_device_on_this_machine_is_refused_then_a_valid_run_works(data_dir, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: tests/test_gpu.py covers a missing index there")
    code, err = _cli(["selftest", "--device=cuda:7"], data_dir, capsys)
    assert code == 2 and "refused" in err and "no GPU" in err and "Traceback" not in err
    assert History(data_dir / "history.sqlite3").list() == []
    code, _ = _cli(["selftest", "--device=cpu"], data_dir, capsys)
    assert code == 0
    assert [r["status"] for r in History(data_dir / "history.sqlite3").list()] == ["done"]
