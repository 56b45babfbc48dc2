"""The run form: common inputs, each experiment's options, presets, and their messages."""

from __future__ import annotations

from typing import Any

import streamlit as st

from runtime_lab.registry import EXPERIMENTS
from runtime_lab.shapes import DTYPES, PRESETS, preset
from runtime_lab.spec import (
    REPEAT_RANGE,
    WARMUP_RANGE,
    SpecError,
    build_spec,
    check_against_env,
)


def spec_form(experiment: str, env: dict[str, Any]):
    """The common inputs plus the experiment's own options; returns a valid RunSpec or None."""
    info = EXPERIMENTS[experiment]
    sequences = [name for name, o in info.options.items() if o.kind == "shapes"]
    for name in sequences:
        _sequence_presets(experiment, name, info.options[name])
    with st.form(f"form-{experiment}"):
        cells = iter(st.columns(3))
        shape = info.default_shape  # with a shape sequence the main shape is ignored: no input
        if not sequences:
            shape = next(cells).text_input(
                "Shape", info.default_shape, help="1 to 4 dims: 4096x4096, 4096,4096 or 4096 4096"
            )
        dtype_help = "dtype of the shapes without their own :dtype" if sequences else None
        dtype = next(cells).selectbox("dtype", DTYPES, help=dtype_help)
        devices = ["auto", "cpu"] + [f"cuda:{g['index']}" for g in env.get("gpus") or []]
        device = next(cells).selectbox("Device", devices)
        cols = st.columns(3)
        # no min/max on the widgets: an out-of-range value reaches build_spec and gets its
        # message (Streamlit would silently put the default back and run that instead)
        warmup = cols[0].number_input("Warm-up calls", value=10, step=1, help=_range(WARMUP_RANGE))
        repeat = cols[1].number_input("Timed calls", value=50, step=1, help=_range(REPEAT_RANGE))
        l2_flush = cols[2].checkbox("Flush L2 between calls", value=True)
        options = _option_inputs(info.options, experiment)
        submitted = st.form_submit_button("Run", type="primary")
    if not submitted:
        return None
    try:
        spec = build_spec(
            experiment, shape, dtype, device, warmup, repeat, l2_flush, options=options
        )
    except SpecError as exc:
        for name, problem in exc.problems.items():
            st.error(f"**{name}**: {plain(problem)}")
        return None
    problems = check_against_env(spec, env)
    for name, problem in problems.items():
        st.error(f"**{name}**: {plain(problem)}")
    return None if problems else spec


_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_[]<>$!~|"})


def plain(text: str) -> str:
    """Text that quotes user input, as markdown that renders it literally (no links, images,
    HTML, LaTeX or colour directives): a message may show what was typed, never act on it."""
    return text.translate(_MARKDOWN)


def _option_inputs(specs: dict[str, Any], experiment: str = "") -> dict[str, Any]:
    """Lists one per row (their chips need the width), other values in a row, yes/no below."""
    values: dict[str, Any] = {}
    kinds = {"shapes": [], "multi": [], "value": [], "bool": []}
    for name, option in specs.items():
        kinds[option.kind if option.kind in kinds else "value"].append(name)
    for name in kinds["shapes"] + kinds["multi"]:
        values[name] = _option_input(name, specs[name], experiment)
    for row in filter(None, (kinds["value"], kinds["bool"])):
        for col, name in zip(st.columns(max(3, len(row))), row, strict=False):
            with col:
                values[name] = _option_input(name, specs[name], experiment)
    return values


def _sequence_key(experiment: str, name: str) -> str:
    return f"{experiment}-{name}"


def _apply_preset(key: str) -> None:
    chosen = st.session_state[f"{key}-preset"]
    if chosen in PRESETS:
        st.session_state[key] = preset(chosen, int(st.session_state[f"{key}-seed"]))


def _sequence_presets(experiment: str, name: str, option) -> None:
    """A preset picker above the form (a form's widgets act only on Run): it fills the box."""
    key = _sequence_key(experiment, name)
    st.session_state.setdefault(key, str(option.default))
    left, right = st.columns([3, 1])
    left.selectbox(
        f"Preset for {name}",
        ["typed", *PRESETS],
        format_func=lambda p: "as typed below" if p == "typed" else f"{p}: {PRESETS[p][0]}",
        key=f"{key}-preset",
        on_change=_apply_preset,
        args=(key,),
        help="fills the box below; edit it freely afterwards",
    )
    right.number_input(
        "Preset seed",
        0,
        2**31 - 1,
        key=f"{key}-seed",
        on_change=_apply_preset,
        args=(key,),
        help="seed of the random preset",
    )


def _option_input(name: str, option, experiment: str = "") -> Any:
    """One widget per option kind; values go to build_spec as they are (it validates them)."""
    if option.kind == "shapes":
        key = _sequence_key(experiment, name)
        st.session_state.setdefault(key, str(option.default))
        return st.text_area(name, key=key, help=option.help, height=80)
    if option.kind == "multi":
        default = [c for c in str(option.default).split(",") if c in option.choices]
        return st.multiselect(name, option.choices, default=default, help=option.help)
    if option.kind == "sizes":
        return st.text_input(name, str(option.default), help=option.help)
    if option.choices:
        return st.selectbox(
            name, option.choices, index=option.choices.index(option.default), help=option.help
        )
    if option.kind == "bool":
        return st.checkbox(name, value=bool(option.default), help=option.help)
    bounds = _range((option.low, option.high))
    return st.number_input(
        name, value=int(option.default), step=1, help=f"{option.help} ({bounds})"
    )


def _range(bounds: tuple[int, int]) -> str:
    return f"allowed {bounds[0]} to {bounds[1]}"
