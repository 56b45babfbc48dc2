"""Each catalog workload's gradients against float64, eager and compiled, over their bound.

Issue 39: a training step's gradients are judged as outputs are (docs/measurement.md, "The
gradients"): the float64 bound over each gradient's own reduction lengths
(ops.grad_reduction_lengths). One line per workload, mode and gradient: observed ÷ allowed
(under 1 passes; correct answers should stay under about 0.5, as the forward's do), the rule
that decided, K, and the bytes the forward saved for the backward.

On a GPU (every workload at its llama3-8b preset, or its default shape):
    python -m scripts.evidence.grad_margins --device cuda --dtype bfloat16
On the CPU (its CPU shape):
    python -m scripts.evidence.grad_margins --device cpu --dtype bfloat16 --modes eager
"""

from __future__ import annotations

import argparse

import torch

from runtime_lab.fusion.run import grads
from runtime_lab.lab import saved, training
from runtime_lab.spec import build_spec
from runtime_lab.workloads import ops
from runtime_lab.workloads.registry import NAMES, get
from scripts.evidence.tolerance_margins import run_shape


def _lines(name: str, args) -> list[str]:
    if get(name).no_backward:
        return [f"{name:<20} no backward: {get(name).no_backward}"]
    shape, params = run_shape(name, args.device)
    work = ops.load(name, shape, args.dtype, torch.device(args.device), 0, params)
    spec = build_spec(
        "fusion",
        "x".join(map(str, shape)),
        args.dtype,
        "cpu",
        options={"workload": name, "pass": "fwd_bwd"},
    )
    made = {
        "work": work,
        "tolerance": ops.tolerance(work, args.dtype),
        "reductions": ops.reduction_lengths(work),
        "notes": [],
    }
    grads.prepare(spec, made)
    lines = []
    for mode in args.modes.split(","):
        fn = work.fn if mode == "eager" else torch.compile(work.fn, mode=None)
        try:
            step = training.step(fn, work.inputs, "fwd_bwd", work.module)
            step()
            found = grads.checks(step, made)
            kept = saved.count(step)
        except Exception as exc:  # one workload's failure is a line, not the end of the table
            lines.append(f"{name:<20} {mode:<9} failed: {type(exc).__name__}: {exc}"[:200])
            continue
        for check in found.get("grad_checks", ()):
            if check.problem:
                lines.append(f"{name:<20} {mode:<9} d{check.name:<6} {check.problem}")
                continue
            ratio = check.max_abs_diff_fp64 / max(check.allowed_err_fp64, 1e-300)
            lines.append(
                f"{name:<20} {mode:<9} d{check.name:<6} K={sum(check.reduction_lengths):<8} "
                f"err {check.max_abs_diff_fp64:.3e} allowed {check.allowed_err_fp64:.3e} "
                f"ratio {ratio:6.3f} {'pass' if check.tolerance_passed else 'FAIL'} "
                f"({check.tolerance_rule})"
            )
        lines.append(
            f"{name:<20} {mode:<9} saved for backward: {kept['tensors']} tensors, "
            f"{kept['bytes']:,} B ({kept['activation_bytes']:,} B besides the inputs)"
        )
        torch._dynamo.reset()
    del work, made
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
        for line in _lines(name, args):
            print(line, flush=True)


if __name__ == "__main__":
    main()
