"""A hand-made CUDA-like fusion result (4096², three modes) and its stored run, for the tests
that draw, compare or export fusion runs without a worker."""

from dataclasses import replace

import h200data

from runtime_lab.fusion.result import (
    Autotune,
    AutotuneChoice,
    AutotuneOp,
    ClockReading,
    CompileLatency,
    FusionResult,
    GradCheck,
    KernelRow,
    ModeResult,
    SavedForBackward,
    SweepPoint,
)
from runtime_lab.results import GpuState, Timing, TritonKernel, stats, to_plain

N = 4096 * 4096
EAGER_BYTES = 11 * 4 * N
FUSED_BYTES = 3 * 4 * N
CEILING = 4000.0
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)"
MUL = "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int)"
FUSED = "triton_poi_fused_add_mul_silu_sub_0"


def timing(label, device_ms, host_ms):
    n = len(device_ms)
    return Timing(label, "cuda-events", tuple(device_ms), tuple(host_ms), 900.0, 2, n, True)


def kernel(name, total_us, calls=1.0, grid="65536x1x1"):
    return KernelRow(name, calls, total_us, total_us / calls, 7, grid, "128x1x1", 24)


COLD = CompileLatency(
    "cold", 10.0, 9.0, 8.0, 7.0, 6.0, 2.0, fx_cache_misses=1, aot_cache_misses=1, compiles=1
)
WARM = CompileLatency(
    "warm-cache", 0.5, 0.3, 0.2, None, None, 0.05, fx_cache_hits=1, aot_cache_hits=1, compiles=1
)
# phases left over from the warm-cache compile: longer than this call, so not its own
PROCESS = CompileLatency("warm-process", 0.001, 0.3, 0.2, None, None, 0.05, compiles=1)


def result(trace_file=None, reduce_overhead_tolerance=True):
    eager = ModeResult(
        mode="eager",
        ran=True,
        max_abs_diff=0.0,
        max_abs_diff_fp64=2e-6,
        rel_err_fp64=1e-7,
        tolerance_passed=True,
        kernels=(
            kernel(ADD, 1500.0, calls=2.0),
            kernel(MUL, 800.0),
            kernel("silu_kernel", 700.0),
        ),
        kernel_count=4.0,
        timing=timing("eager", [3.0] * 5, [0.04] * 5),
        transfers_per_element=11,
        bytes_moved=EAGER_BYTES,
        trace_file=trace_file,
    )
    inductor = ModeResult(
        mode="inductor",
        ran=True,
        max_abs_diff=2.4e-7,
        max_abs_diff_fp64=2e-6,
        rel_err_fp64=1e-7,
        tolerance_passed=True,
        kernels=(kernel(FUSED, 1000.0),),
        kernel_count=1.0,
        timing=timing("inductor", [1.0] * 5, [0.9] * 5),
        transfers_per_element=3,
        bytes_moved=FUSED_BYTES,
        unique_graphs=1,
        graph_breaks=0,
        compile=(COLD, WARM, PROCESS),
        generated_code="def call(args):\n    triton_poi_fused_add_mul_silu_sub_0.run()\n",
    )
    slow = ModeResult(
        mode="inductor-reduce-overhead",
        ran=reduce_overhead_tolerance,
        max_abs_diff=0.0 if reduce_overhead_tolerance else 1.0,
        tolerance_passed=reduce_overhead_tolerance,
        error=None if reduce_overhead_tolerance else "output outside tolerance: not timed",
        kernels=(kernel(FUSED, 4000.0),) if reduce_overhead_tolerance else (),
        kernel_count=1.0 if reduce_overhead_tolerance else None,
        timing=timing("inductor-reduce-overhead", [4.0] * 5, [0.01] * 5)
        if reduce_overhead_tolerance
        else None,
        transfers_per_element=3,
        bytes_moved=FUSED_BYTES,
        unique_graphs=1,
        graph_breaks=1,
        break_reasons=("print() (×1)",),
        cuda_graph_compatible=False,
        cudagraph_skip="mutated inputs",
    )
    return FusionResult(
        device="cuda:0",
        dtype="float32",
        shape=(4096, 4096),
        numel=N,
        element_bytes=4,
        rtol=1.3e-6,
        atol=1e-5,
        modes=(eager, inductor, slow),
        copy_ceiling_gbps=CEILING,
        sweep=(
            SweepPoint("eager", 256, 0.01, 0.001, 11 * 4 * 256 * 256),
            SweepPoint("inductor", 256, 0.02, 0.001, 3 * 4 * 256 * 256),
            SweepPoint("eager", 4096, 3.0, 0.01, EAGER_BYTES),
            SweepPoint("inductor", 4096, 1.0, 0.01, FUSED_BYTES),
        ),
    )


def run(result, sweep="256,4096"):
    spec = {"experiment": "fusion", "shape": [4096, 4096], "dtype": "float32"}
    spec["options"] = {"sweep": sweep}
    return {"id": 7, "status": "done", "spec": spec, "result": to_plain(result)}


INDUCTOR_MS = (0.9, 0.95, 1.0, 1.05, 1.1)  # median 1.0, IQR 0.1: the lab's spread is 10 %


def lab_clock(samples):
    s = stats(samples)
    return ClockReading("lab", s.median, s.iqr, tuple(samples), "the lab's harness: events")


def bench_clock(name, samples):
    s = stats(samples)
    return ClockReading(name, s.median, s.iqr, tuple(samples), f"{name} method")


def with_clocks(add_gbps=195.0, copy_gbps=150.0, numel=None) -> FusionResult:
    """result() as this code records it: clocks per mode, copy and add, timed before profiling."""
    base = result()
    eager, inductor, slow = base.modes
    eager = replace(
        eager,
        clocks=(
            lab_clock(eager.timing.primary_ms),
            bench_clock("torch.utils.benchmark", [3.1] * 4),  # 1.033×: inside 5 %
            bench_clock("triton.do_bench", [3.3] * 9),  # 1.1×: flagged
        ),
    )
    inductor = replace(
        inductor,
        timing=timing("inductor", INDUCTOR_MS, [0.9] * 5),
        clocks=(
            lab_clock(INDUCTOR_MS),
            bench_clock("torch.utils.benchmark", [1.08] * 4),  # 8 %: inside the lab's 10 % spread
            ClockReading("triton.do_bench", 0.85, 0.02, (), "quantiles only"),  # 0.85×: flagged
        ),
    )
    best = max(add_gbps, copy_gbps)
    return replace(
        base,
        modes=(eager, inductor, slow),
        numel=base.numel if numel is None else numel,
        copy_ceiling_gbps=copy_gbps,
        add_gbps=add_gbps,
        ceiling_gbps=best,
        ceiling_source="add (2 reads + 1 write)" if add_gbps >= copy_gbps else "copy",
        theoretical_detail="not available: memory clock and bus width not both reported",
        timed_before_profiling=True,
    )


CHAIN_FUSED = "triton_poi_fused_add_mul_0"


def with_resources(variant="long-chain", fused_ms=None) -> FusionResult:
    """with_clocks() with kernel rows as the profiler records them: eager's from a recorded H200 trace
    (the sin kernel: 128 threads, 32 registers, a 64-block grid), the compiled modes' Triton
    kernels hand-made, max-autotune's without trace registers (Triton's fill in)."""
    from runtime_lab.lab import profiling

    sin = profiling._cuda_rows(h200data.H200 / "streams-overlap.json", 10)[0]
    base = with_clocks()
    eager, inductor, slow = base.modes
    eager = replace(eager, kernels=(replace(sin, bytes_per_launch=8 * 4 * 64 * 128 * 4),))
    row = KernelRow(
        CHAIN_FUSED, 1.0, 700.0, 700.0, 7, "16384x1x1", "128x1x1", 168, 0, 124.1, 496, 19
    )
    inductor = replace(
        inductor,
        kernels=(replace(row, bytes_per_launch=inductor.bytes_moved),),
        triton_kernels=(TritonKernel(CHAIN_FUSED, 4, 1, 168, 0, 0, "XBLOCK=1024, num_warps=4"),),
    )
    if fused_ms:
        inductor = replace(inductor, timing=replace(inductor.timing, device_ms=(fused_ms,) * 5))
    tuned = replace(
        slow,
        mode="inductor-max-autotune-no-cudagraphs",
        kernels=(replace(row, grid="65536x1x1", registers=None, profiler_occupancy_pct=75),),
        triton_kernels=(TritonKernel(CHAIN_FUSED, 4, 1, 40, 0, 0, "XBLOCK=256, num_warps=4"),),
    )
    return replace(
        base,
        modes=(eager, inductor, tuned),
        device_limits=h200data.device_limits(),
        variant=variant,
    )


def with_catalog(name="swiglu_mlp") -> FusionResult:
    """A CUDA-like run recorded since the workload catalog: bytes model, FLOPs, both ceilings."""
    base = with_clocks()
    n = base.numel * base.element_bytes
    return replace(
        base,
        variant=name,
        params=(("intermediate", 14336),),
        bound="compute",
        ideal_bytes=3 * n,
        eager_bytes=11 * n,
        flops_per_call=400 * base.numel,
        matmul_tflops=700.0,
        matmul_detail="torch.matmul 8192×8192×8192, median of 20 calls",
        peak_tflops=989.4,
        peak_detail="H200 bfloat16: NVIDIA datasheet, dense",
    )


# rms_norm 4096² float32: what each mode's forward saved for the backward (x, w, and eager's
# x·rstd and rstd; Inductor's rstd alone)
SAVED = {
    "eager": SavedForBackward(6, 2 * 4 * N + 4 * 4096 + 4 * 4096, 4 * N + 4 * 4096),
    "inductor": SavedForBackward(3, 4 * N + 4 * 4096 + 4 * 4096, 4 * 4096),
}


def grad_check(name, err, allowed, lengths=(4096,)) -> GradCheck:
    """One gradient judged by the float64 bound (failed where err > allowed)."""
    passed = err <= allowed
    return GradCheck(name, err, err / 10, allowed, "float64 bound", passed, lengths)


def with_training(step="fwd_bwd", wrong_grad=False) -> FusionResult:
    """A training step's run (issue 39): each mode's kernels split by pass, its gradients
    against float64 (wrong_grad: inductor's gradient of w is outside its bound), what each
    forward saved for the backward."""
    base = with_catalog("rms_norm")
    split = {
        "eager": ((kernel("aten::mul", 5.0, 4.0),), (kernel("aten::sum", 9.0, 8.0),)),
        "inductor": ((kernel("triton_red_fused_0", 4.0),), (kernel("triton_red_fused_1", 6.0),)),
    }
    modes = []
    for mode in base.modes:
        if mode.mode not in split:
            modes.append(mode)
            continue
        forward, backward = split[mode.mode]
        forward = forward if step != "bwd" else ()  # bwd times no forward
        w_err = 0.5 if wrong_grad and mode.mode == "inductor" else 2e-3
        checks = (grad_check("x", 1e-6, 2e-5), grad_check("w", w_err, 0.03, (4096, 4096)))
        worst = checks[1]
        modes.append(
            replace(
                mode,
                forward_kernels=sum(k.calls_per_run for k in forward) if step != "bwd" else None,
                backward_kernels=sum(k.calls_per_run for k in backward),
                forward_kernel_rows=forward,
                backward_kernel_rows=backward,
                kernels=forward + backward,
                kernel_count=sum(k.calls_per_run for k in forward + backward),
                grad_max_abs_diff_fp64=worst.max_abs_diff_fp64,
                grad_rel_err_fp64=worst.rel_err_fp64,
                grad_allowed_err_fp64=worst.allowed_err_fp64,
                grad_tolerance_rule=worst.tolerance_rule,
                grad_tolerance_passed=all(c.tolerance_passed for c in checks),
                grad_checks=checks,
                saved=SAVED[mode.mode],
            )
        )
    # rms_norm 4096² fp32: grad_output is the output's size; x's and w's gradients are written
    return replace(
        base,
        modes=tuple(modes),
        training_pass=step,
        grad_output_bytes=4 * N,
        grad_bytes=4 * N + 4 * 4096,
    )


# session 12's H100 run (docs/evidence/2026-12-06-session-12.md): swiglu_mlp llama3-8b-4k bf16,
# the down projection's autotune, as far as the evidence log kept it (3 of its 20 choices)
TUNED = "inductor-max-autotune-no-cudagraphs"
DOWN_PROJ = "mm(4096x14336, 14336x4096)"
TRITON_58 = (
    "ACC_TYPE='tl.float32', ALLOW_TF32=False, BLOCK_K=64, BLOCK_M=128, BLOCK_N=128, EVEN_K=True, "
    "GROUP_M=8, USE_FAST_ACCUM=False, num_stages=5, num_warps=8"
)


def autotune_op() -> AutotuneOp:
    return AutotuneOp(
        DOWN_PROJ,
        (
            AutotuneChoice("mm", "extern", "", 0.5843, True),
            AutotuneChoice("triton_mm_58", "triton", TRITON_58, 0.6935),
            AutotuneChoice("triton_mm_57", "triton", "", 0.7616),
        ),
        autotune_s=0.8154,
        precompile_s=0.0061,
    )


def with_autotune(autotune: Autotune | None = None, device="cuda:0") -> FusionResult:
    """with_catalog("swiglu_mlp") whose third mode is max-autotune with the choices it benchmarked
    (session 12's, by default; `autotune` in its place, e.g. a note and no ops)."""
    base = with_catalog("swiglu_mlp")
    found = Autotune((autotune_op(),)) if autotune is None else autotune
    tuned = replace(base.modes[2], mode=TUNED, autotune=found if device != "cpu" else None)
    return replace(base, device=device, modes=(*base.modes[:2], tuned))


def with_tolerance() -> FusionResult:
    """with_catalog() judged against float64 (issue 41): eager within the bound, inductor timed
    on a wrong answer (K = 4096 + 14336), reduce-overhead not timed (NaN in its output)."""
    base = with_catalog()
    eager, inductor, slow = base.modes
    judged = {"tolerance_rule": "float64 bound", "allowed_err_fp64": 0.0937}
    eager = replace(eager, max_abs_diff_fp64=0.0117, tolerance_passed=True, **judged)
    inductor = replace(
        inductor, max_abs_diff=0.25, max_abs_diff_fp64=0.2461, tolerance_passed=False, **judged
    )
    nan = "12 of 16,777,216 output values are NaN or infinite where float64's are finite"
    slow = replace(
        slow,
        ran=False,
        timing=None,
        kernels=(),
        kernel_count=None,
        max_abs_diff=None,
        tolerance_passed=False,
        tolerance_rule="finite output",
        not_timed=nan,
        error=f"{nan}: not timed",
    )
    return replace(
        base, dtype="bfloat16", modes=(eager, inductor, slow), reduction_lengths=(4096, 14336)
    )


def gpu_state(mhz: float, capped: float | None = None) -> GpuState:
    """NVML over a timed phase: the SM clock at `mhz` throughout, power-capped `capped` %."""
    return GpuState((mhz,) * 4, 1980.0, 690.0 if capped else 420.0, 700.0, capped, 0.0)


def with_gpu_clock(eager_mhz=1650.0, eager_capped=85.0, inductor_mhz=1980.0) -> FusionResult:
    """with_clocks() whose eager arm was timed at the power cap, at a lower SM clock than the
    compiled arm: the GEMM-chain case of issue 41."""
    base = with_clocks()
    eager, inductor, slow = base.modes
    eager = replace(eager, timing=replace(eager.timing, gpu=gpu_state(eager_mhz, eager_capped)))
    inductor = replace(inductor, timing=replace(inductor.timing, gpu=gpu_state(inductor_mhz)))
    return replace(base, modes=(eager, inductor, slow))


OWN, EARLIER = "a" * 32, "b" * 32  # this run's cache token and run #6's (issue 49)


def cached(record: CompileLatency, dirs: str, before: int, writers=(), runs=()) -> CompileLatency:
    """A compile record with the cache state it ran with; its hits and misses stay its own."""
    hits = tuple(f"fxkey{i}" for i in range(record.fx_cache_hits))
    misses = tuple(f"fxnew{i}" for i in range(record.fx_cache_misses))
    return replace(
        record,
        cache_dirs=dirs,
        cache_entries_before=before,
        cache_hit_keys=hits,
        cache_miss_keys=misses,
        cache_writers=tuple(writers),
        warm_from_runs=tuple(runs),
    )


def with_cache_states() -> FusionResult:
    """with_clocks() as issue 49 records it: the naive arm's first call compiled with empty cache
    folders, the warm-cache compile found what run #6 wrote, reduce-overhead's first call a
    cache with entries but none for its graph, the fresh process and mega-cache in children."""
    base = with_clocks()
    eager, inductor, slow = base.modes
    first = CompileLatency(
        "first call", 2.0, 1.5, 1.2, 1.0, 0.5, 0.2, fx_cache_misses=1, compiles=1
    )
    fresh = CompileLatency("fresh-process", 12.0, compiles=1, fx_cache_misses=1)
    mega = CompileLatency("mega-cache", 6.5, compiles=1, fx_cache_hits=1, artifact_bytes=157_193)
    inductor = replace(
        inductor,
        compile=(
            cached(first, "empty", 0),
            cached(COLD, "empty", 0),
            cached(WARM, "persistent", 3, writers=(EARLIER,), runs=(6,)),
            cached(replace(PROCESS, compiles=0), "persistent", 3),
            cached(fresh, "empty", 0),
            cached(mega, "empty", 0, writers=(OWN,)),
        ),
    )
    slow_first = CompileLatency("first call", 0.9, compiles=1, fx_cache_misses=1)
    slow = replace(slow, compile=(cached(slow_first, "persistent", 3),))
    return replace(base, modes=(eager, inductor, slow), cache_token=OWN)


def with_reused_compile(lender: int = 6) -> FusionResult:
    """with_cache_states() as a run that took its compile records from run #lender stores them
    (issue 49, speed): each taken record names that run, its own first call kept beside them."""
    base = with_cache_states()
    own = cached(
        CompileLatency("this run's first call", 0.3, compiles=1, fx_cache_hits=1),
        "persistent",
        5,
        writers=(EARLIER,),
        runs=(lender,),
    )
    modes = tuple(
        replace(m, compile=(*(replace(c, measured_in_run=lender) for c in m.compile), own))
        if m.mode == "inductor"
        else m
        for m in base.modes
    )
    return replace(base, modes=modes, compile_from_run=lender)
