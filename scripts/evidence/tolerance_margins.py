"""Each catalog workload's error against float64, eager and compiled, over its float64 bound.

Issue 41: the bound (runtime_lab/workloads/tolerance.py, docs/measurement.md) must pass every
correct answer with room to spare. One line per workload and mode: observed ÷ allowed (under 1
passes; the C in the bound was chosen so that correct answers stay under about 0.5), the rule
that decided, and whether the elementwise rule before issue 41 (rtol/atol against eager) held.

On a GPU (every workload at its llama3-8b preset, or its default shape):
    python -m scripts.evidence.tolerance_margins --device cuda --dtype bfloat16
On the CPU (its CPU shape):
    python -m scripts.evidence.tolerance_margins --device cpu --dtype bfloat16 --modes eager
"""

from __future__ import annotations

import argparse

import torch

from runtime_lab.fusion.run import correctness
from runtime_lab.workloads import ops
from runtime_lab.workloads.registry import NAMES, get


def run_shape(name: str, device: str) -> tuple[tuple[int, ...], dict]:
    info = get(name)
    if device == "cpu":
        return info.cpu_shape, info.param_defaults() | dict(info.cpu_params)
    preset = next((p for p in info.presets if p.name.startswith("llama3-8b")), None)
    if preset:
        return preset.shape, info.param_defaults() | dict(preset.params)
    return info.default_shape, info.param_defaults()


def _row(name: str, args) -> list[str]:
    shape, params = run_shape(name, args.device)
    work = ops.load(name, shape, args.dtype, torch.device(args.device), 0, params)
    eager = work.call()
    ref = ops.reference(work)
    rtol, atol = ops.tolerance(work, args.dtype)
    reductions = ops.reduction_lengths(work)
    lines = []
    for mode in args.modes.split(","):
        fn = work.fn if mode == "eager" else torch.compile(work.fn, mode=None)
        try:
            out = fn(*work.inputs).clone()
            found = correctness.check(out, eager, ref, args.dtype, reductions, atol)
        except Exception as exc:  # one workload's failure is a line, not the end of the table
            lines.append(f"{name:<20} {mode:<9} failed: {type(exc).__name__}: {exc}"[:200])
            continue
        old = out.shape == eager.shape and bool(torch.allclose(out, eager, rtol=rtol, atol=atol))
        if found["not_timed"]:
            lines.append(f"{name:<20} {mode:<9} not timed: {found['not_timed']}")
            continue
        ratio = found["max_abs_diff_fp64"] / max(found["allowed_err_fp64"], 1e-300)
        lines.append(
            f"{name:<20} {mode:<9} {'x'.join(map(str, shape)):<16} K={sum(reductions):<7} "
            f"err {found['max_abs_diff_fp64']:.3e} allowed {found['allowed_err_fp64']:.3e} "
            f"ratio {ratio:6.3f} {'pass' if found['tolerance_passed'] else 'FAIL'} "
            f"({found['tolerance_rule']}); old rule vs eager: {'pass' if old else 'FAIL'}"
        )
        torch._dynamo.reset()
    del work, eager, ref
    if args.device == "cuda":
        torch.cuda.empty_cache()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--modes", default="eager,inductor")
    parser.add_argument("--workloads", default=",".join(NAMES))
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {args.device}, {args.dtype}")
    for name in args.workloads.split(","):
        for line in _row(name, args):
            print(line, flush=True)


if __name__ == "__main__":
    main()
