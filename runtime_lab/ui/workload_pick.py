"""The form's workload choice: a picker above the form, what to look for, presets that fill it."""

from __future__ import annotations

from typing import Any

import streamlit as st

from runtime_lab.options import ExperimentInfo, form_defaults
from runtime_lab.view.text import markdown
from runtime_lab.workloads.declare import WorkloadInfo, shape_text
from runtime_lab.workloads.fit import params_text
from runtime_lab.workloads.registry import WORKLOADS
from runtime_lab.workloads.sequence import starting_sequence

TYPED = "as typed"


def keys(experiment: str, profile: str) -> dict[str, str]:
    """Session keys of the picker and of the form's inputs it fills."""
    base = f"{experiment}-{profile}"
    return {
        "workload": f"{base}-workload",
        "preset": f"{base}-workload-preset",
        "shape": f"{base}-shape",
        "params": f"{base}-params",
        "base": base,  # a sequence's box is f"{base}-{option}" (form._sequence_key)
    }


def picker(info: ExperimentInfo, values: dict[str, Any], profile: str, full: bool) -> str:
    """Above the form (a form's widgets act only on Run): choosing a workload puts its shape
    in the form, a preset its model's shape and parameters. Returns the workload chosen."""
    name = info.option_of("workload")
    key = keys(info.name, profile)
    st.session_state.setdefault(key["workload"], values[name])
    st.session_state.setdefault(key["shape"], str(values["shape"]))
    st.session_state.setdefault(key["params"], str(values.get("params") or ""))
    left, right = st.columns([3, 2])
    chosen = left.selectbox(
        "Workload",
        list(WORKLOADS),
        format_func=_label,
        key=key["workload"],
        on_change=_use_workload,
        args=(key, full, info),
        help="the function every mode runs; choosing one puts its shape in the form",
    )
    work = WORKLOADS[chosen]
    own = info.own_shapes.get(chosen)  # the experiment's shape: the workload's presets don't fit
    if (
        info.option_of("shapes") is None
    ):  # with a sequence the main shape is ignored: presets above it
        right.selectbox(
            "Preset shape",
            [TYPED, *(p.name for p in work.presets if not own)],
            format_func=lambda p: p if p == TYPED else _preset_label(work, p),
            key=key["preset"],
            on_change=_use_preset,
            args=(key,),
            help="a shape from a model config: fills the shape (and parameters) below",
        )
    about = markdown(_about(work) + (f" Here the shape is {own}." if own else ""))
    if st.session_state.get(f"job:{info.name}"):  # a report is shown: it holds the screen
        with st.expander(f"About {chosen}", expanded=False):
            st.caption(about)
    else:
        st.caption(about)
    return chosen


def _label(name: str) -> str:
    work = WORKLOADS[name]
    mine = "" if work.origin == "built-in" else f" · {work.origin}"
    return f"{name}: {work.title}{mine}"


def _about(work: WorkloadInfo) -> str:
    params = ", ".join(f"{k} {v}" for k, v in work.params)
    dims = f"shape: {work.dims_text}" + (f"; parameters: {params}" if params else "")
    return f"{work.formula} · {work.bound}-bound · {dims}. {work.look_for}"


def _preset_label(work: WorkloadInfo, name: str) -> str:
    found = work.preset(name)
    return f"{name}: {found.shape_text}" if found else name


def _use_workload(key: dict[str, str], full: bool, info: ExperimentInfo) -> None:
    work = WORKLOADS[st.session_state[key["workload"]]]
    st.session_state[key["shape"]] = shape_text(work.default_shape if full else work.cpu_shape)
    if work.name in info.own_shapes:  # shaped the experiment's way: its own default shape
        st.session_state[key["shape"]] = str(form_defaults(info, full)["shape"])
    st.session_state[key["params"]] = "" if full else params_text(dict(work.cpu_params))
    st.session_state[key["preset"]] = TYPED
    sequence = info.option_of("shapes")
    if sequence is not None:  # its presets change with the workload's dims: start from growing
        box = f"{key['base']}-{sequence}"
        seed = (
            info.options[info.option_of("workload")].default == work.name
        )  # the seed: the form's own
        st.session_state[box] = (
            str(form_defaults(info, full)[sequence]) if seed else starting_sequence(work.name, full)
        )
        st.session_state[f"{box}-preset"] = "typed"


def _use_preset(key: dict[str, str]) -> None:
    work = WORKLOADS[st.session_state[key["workload"]]]
    found = work.preset(st.session_state[key["preset"]])
    if found is not None:
        st.session_state[key["shape"]] = found.shape_text
        st.session_state[key["params"]] = params_text(dict(found.params))
