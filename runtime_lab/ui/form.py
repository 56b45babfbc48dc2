"""The run form: common inputs, each experiment's options, presets, and their messages."""

from __future__ import annotations

from typing import Any

import streamlit as st

import runtime_lab.ui.links as links
import runtime_lab.ui.workload_pick as wp
from runtime_lab.env import gpu_likely
from runtime_lab.options import choices_here, form_defaults, inactive
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.shapes import DTYPES, PRESETS, preset
from runtime_lab.spec import (
    REPEAT_RANGE,
    WARMUP_RANGE,
    SpecError,
    build_spec,
    check_against_env,
    spec_from_values,
)
from runtime_lab.store.estimate import estimate
from runtime_lab.view.text import markdown as markdown_text
from runtime_lab.workloads.registry import WORKLOADS
from runtime_lab.workloads.sequence import form_presets


def spec_form(experiment: str, env: dict[str, Any], past: list[dict[str, Any]] | None = None):
    """The common inputs plus the experiment's own options; returns a valid RunSpec or None.
    Without a GPU the form starts from the experiment's CPU defaults, the full set one click
    away; under it, how long the default Run took or is expected to take here."""
    info = EXPERIMENTS[experiment]
    gpu = bool(env.get("gpus")) if env else gpu_likely()
    full = gpu or st.session_state.get(f"full-{experiment}", False)
    devices = ["auto", "cpu"] + [f"cuda:{g['index']}" for g in env.get("gpus") or []]
    values = {"dtype": "float32", "device": "auto", "l2_flush": True, **form_defaults(info, full)}
    query = {k: st.query_params[k] for k in st.query_params}
    values, link_problems = links.from_query(info, query, values, devices)
    profile = _profile(experiment, "full" if full else "cpu", query)
    sequences = [name for name, o in info.options.items() if o.kind == "shapes"]
    workload = info.option_of("workload")
    chosen = wp.picker(info, values, profile, full) if workload else None
    for name in sequences:  # under the picker: a workload's presets go along its named dims
        presets = form_presets(chosen, full)
        _sequence_presets(experiment, name, values[name], profile, presets)
    with st.form(f"form-{experiment}"):
        cells = iter(st.columns(3))
        shape = values["shape"]  # with a shape sequence the main shape is ignored: no input
        if workload and not sequences:  # the picker above fills it (session state)
            shape = next(cells).text_input(
                "Shape",
                help=info.own_shapes.get(chosen)
                or f"{WORKLOADS[chosen].dims_text}: one number per dim, or a preset's name",
                key=wp.keys(experiment, profile)["shape"],
            )
        elif not sequences:
            shape = next(cells).text_input(
                "Shape",
                values["shape"],
                help="1 to 4 dims: 4096x4096, 4096,4096 or 4096 4096",
                key=f"{experiment}-{profile}-shape",
            )
        dtype_help = "dtype of the shapes without their own :dtype" if sequences else None
        dtype = next(cells).selectbox(
            "dtype",
            DTYPES,
            index=DTYPES.index(values["dtype"]),
            help=dtype_help,
            key=f"{experiment}-{profile}-dtype",
        )
        device = next(cells).selectbox(
            "Device",
            devices,
            index=devices.index(values["device"]),
            key=f"{experiment}-{profile}-device",
        )
        cols = st.columns(3)
        # no min/max on the widgets: an out-of-range value reaches build_spec and gets its
        # message (Streamlit would silently put the default back and run that instead)
        warmup = cols[0].number_input(
            "Warm-up calls",
            value=values["warmup"],
            step=1,
            help=_range(WARMUP_RANGE),
            key=f"{experiment}-{profile}-warmup",
        )
        repeat = cols[1].number_input(
            "Timed calls",
            value=values["repeat"],
            step=1,
            help=_range(REPEAT_RANGE),
            key=f"{experiment}-{profile}-repeat",
        )
        l2_flush = cols[2].checkbox(
            "Flush L2 between calls",
            value=bool(values["l2_flush"]),
            key=f"{experiment}-{profile}-l2_flush",
        )
        shown = {n: o for n, o in info.options.items() if n != workload}
        options = _option_inputs(shown, experiment, values, profile, (gpu, chosen))
        if workload:
            options[workload] = chosen
        submitted = st.form_submit_button("Run", type="primary")
    _defaults_note(info, env, gpu, full, past)
    if off := _off_here(info, gpu, chosen):
        st.caption(f":material/block: {plain(off)}")
    for name, problem in link_problems.items():
        st.error(f"**{plain(name)}** (from the link): {plain(problem)}")  # a link's own key
    if not submitted:
        return None
    try:
        spec = build_spec(
            experiment,
            shape,
            dtype,
            device,
            warmup,
            repeat,
            l2_flush,
            seed=values.get("seed", 0),  # no widget: a link may carry one
            options=options,
        )
    except SpecError as exc:
        for name, problem in exc.problems.items():
            st.error(f"**{name}**: {plain(problem)}")
        return None
    problems = check_against_env(spec, env)
    for name, problem in problems.items():
        st.error(f"**{name}**: {plain(problem)}")
    if problems:
        return None
    # the address now holds the spec: copying it shares it, opening it fills this form again
    written = links.to_query(spec)
    st.query_params.from_dict(written)
    st.session_state[_held(experiment)] = (links.tag(written), profile)
    return spec


def _held(experiment: str) -> str:
    return f"form-profile:{experiment}"


def _profile(experiment: str, sizes: str, query: dict[str, str]) -> str:
    """The widget keys' profile: the sizes (cpu or full) and the link's digest, so a new link
    (or the other sizes) refills the form. A link this form wrote itself on Run keeps the
    profile it was written from: the widgets already hold those values and whatever was typed
    since, which new keys would throw away (the next Run would measure the old spec again)."""
    held = st.session_state.get(_held(experiment))
    if held and held[0] == links.tag(query) and held[1].startswith(sizes):
        return held[1]
    return sizes + links.tag(query)


def _defaults_note(info, env: dict[str, Any], gpu: bool, full: bool, past) -> None:
    """Which defaults the form holds, a button for the others, and the default Run's estimate."""
    kind = "cuda" if gpu else "cpu"
    values = form_defaults(info, gpu=full)
    found = estimate(info, _default_spec(info, values), kind, past or [], env.get("hostname"))
    said = f"The default Run takes {found.text()}." if found else ""
    if gpu or not info.cpu_defaults:
        if said:
            st.caption(f":material/timer: {said}")
        return
    left, right = st.columns([4, 1])
    if full:
        left.caption(f":material/timer: The full set, as on a GPU. {said}")
        right.button(
            "CPU-sized defaults", key=f"cpu-{info.name}", on_click=_choose, args=(info.name, False)
        )
    else:
        left.caption(f":material/timer: Sized for this CPU: {info.cpu_defaults_why} {said}")
        right.button(
            "Full set", key=f"full-{info.name}-button", on_click=_choose, args=(info.name, True)
        )


def _choose(experiment: str, full: bool) -> None:
    st.session_state[f"full-{experiment}"] = full
    st.query_params.clear()  # a link's values would otherwise hold the form where it was


def _default_spec(info, values: dict[str, Any]) -> dict[str, Any]:
    try:
        return spec_from_values(info.name, values).to_dict()
    except SpecError:
        return {}


def plain(text: str) -> str:
    """Text that quotes user input, as markdown that renders it literally (no links, images,
    HTML, LaTeX or colour directives): a message may show what was typed, never act on it."""
    return markdown_text(text)


ROW = 5  # values side by side at most: more cut their labels ("recompile_li|mit")


def _option_inputs(
    specs: dict[str, Any], experiment: str, defaults: dict[str, Any], profile: str, here=None
) -> dict[str, Any]:
    """Lists one per row (their chips need the width), other values in rows of at most ROW,
    yes/no below. `here`: (whether this machine has a GPU, the workload chosen): a control that
    does nothing here is disabled, with why (options.inactive)."""
    gpu, workload = here or (True, None)
    values: dict[str, Any] = {}
    kinds = {"shapes": [], "multi": [], "value": [], "bool": []}
    for name, option in specs.items():
        kinds[option.kind if option.kind in kinds else "value"].append(name)
    for name in kinds["shapes"] + kinds["multi"]:
        values[name] = _option_input(
            name, specs[name], experiment, defaults[name], profile, gpu, workload
        )
    rows = [kinds["value"][i : i + ROW] for i in range(0, len(kinds["value"]), ROW)]
    for row in filter(None, (*rows, kinds["bool"])):
        for col, name in zip(st.columns(max(3, len(row))), row, strict=False):
            with col:
                values[name] = _option_input(
                    name, specs[name], experiment, defaults[name], profile, gpu, workload
                )
    return values


def _off_here(info, gpu: bool, workload: str | None) -> str:
    """One line under the form: the controls that do nothing here, and the choices hidden."""
    off = [n for n, o in info.options.items() if inactive(o, gpu, workload)]
    hidden = [
        f"{n} {', '.join(c for c in o.choices if c not in choices_here(o, gpu))}"
        for n, o in info.options.items()
        if o.kind == "multi" and choices_here(o, gpu) != o.choices
    ]
    parts = []
    if off:
        parts.append(f"Off here (hover for why): {', '.join(off)}.")
    if hidden:
        parts.append(f"Not offered without a GPU (they need CUDA): {'; '.join(hidden)}.")
    return " ".join(parts)


def _sequence_key(experiment: str, name: str, profile: str) -> str:
    return f"{experiment}-{profile}-{name}"


def _apply_preset(key: str, presets=PRESETS) -> None:
    chosen = st.session_state[f"{key}-preset"]
    if chosen in presets:
        st.session_state[key] = preset(chosen, int(st.session_state[f"{key}-seed"]), presets)


def _sequence_presets(
    experiment: str, name: str, default: Any, profile: str, presets=PRESETS
) -> None:
    """A preset picker above the form (a form's widgets act only on Run): it fills the box."""
    key = _sequence_key(experiment, name, profile)
    st.session_state.setdefault(key, str(default))
    left, right = st.columns([3, 1])
    left.selectbox(
        f"Preset for {name}",
        ["typed", *presets],
        format_func=lambda p: "as typed below" if p == "typed" else f"{p}: {presets[p][0]}",
        key=f"{key}-preset",
        on_change=_apply_preset,
        args=(key, presets),
        help="fills the box below; edit it freely afterwards",
    )
    right.number_input(
        "Preset seed",
        0,
        2**31 - 1,
        key=f"{key}-seed",
        on_change=_apply_preset,
        args=(key, presets),
        help="seed of the random preset",
    )


def _option_input(
    name: str,
    option,
    experiment: str,
    default: Any,
    profile: str,
    gpu: bool = True,
    workload: str | None = None,
) -> Any:
    """One widget per option kind; values go to build_spec as they are (it validates them). A
    control that does nothing here is disabled, its help saying why; choices that need CUDA
    are not offered without a GPU."""
    off = inactive(option, gpu, workload)
    what = f"**Off here: {off}.** {option.help}" if off else option.help
    if option.kind == "shapes":
        key = _sequence_key(experiment, name, profile)
        st.session_state.setdefault(key, str(default))
        return st.text_area(name, key=key, help=what, height=80, disabled=bool(off))
    key = f"{experiment}-{profile}-{name}"
    if option.kind == "multi":
        offered = choices_here(option, gpu)
        if offered != option.choices:
            what += f" (without a GPU: {option.needs_cuda}, so not offered)"
        chosen = [c for c in str(default).split(",") if c in offered]
        return st.multiselect(name, offered, default=chosen, help=what, key=key, disabled=bool(off))
    if option.kind in ("sizes", "dims", "marks"):
        return st.text_input(name, str(default), help=what, key=key, disabled=bool(off))
    if option.kind == "params":  # the workload picker fills it (session state)
        st.session_state.setdefault(key, str(default or ""))
        return st.text_input(name, help=what, key=key, disabled=bool(off))
    if option.choices:
        index = option.choices.index(default)
        return st.selectbox(
            name, option.choices, index=index, help=what, key=key, disabled=bool(off)
        )
    if option.kind == "bool":
        return st.checkbox(name, value=bool(default), help=what, key=key, disabled=bool(off))
    bounds = _range((option.low, option.high))
    return st.number_input(
        name,
        value=int(default),
        step=1,
        help=f"{what} ({bounds})",
        key=key,
        disabled=bool(off),
    )


def _range(bounds: tuple[int, int]) -> str:
    return f"allowed {bounds[0]} to {bounds[1]}"
