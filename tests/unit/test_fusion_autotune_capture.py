"""Max-autotune's choices in the worker: Inductor's printed block parsed, its feedback hook's ops
joined to it, the reason when none was benchmarked, the hook and stderr put back (no compile)."""

import sys
from pathlib import Path
from types import SimpleNamespace

import fusiondata
import pytest
import torch
from torch._inductor import select_algorithm as sa

from runtime_lab.fusion.result import Autotune
from runtime_lab.fusion.run import autotune
from runtime_lab.fusion.run.autotune_text import kind_of, parse
from runtime_lab.results import CompileLatency

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "autotune" / "h100-swiglu-session12.txt"
TEXT = SAMPLE.read_text()
DOWN = "mm(4096x14336, 14336x4096)"
TUNED = "inductor-max-autotune-no-cudagraphs"
CUDA = torch.device("cuda")  # a device object only: nothing here touches a GPU


def _block(name, sizes, lines, took="0.5000 seconds and 0.0100 seconds precompiling for 2"):
    rows = "".join(f"  {line}\n" for line in lines)
    return f"AUTOTUNE {name}({sizes})\n{rows}SingleProcess AUTOTUNE benchmarking takes {took} choices\n"


# Inductor's own classes are told apart by name (its wrappers and versions differ): stand-ins
class ChoiceCaller:
    def __init__(self, name, description=""):
        self.name, self.description = name, description


class ExternKernelCaller(ChoiceCaller):
    pass


class TritonTemplateCaller(ChoiceCaller):
    pass


class CUTLASSTemplateCaller(ChoiceCaller):
    pass


class Node:
    def __init__(self, *size):
        self.size = size

    def get_size(self):
        return self.size


def test_the_session_12_block_parses_to_its_figures():
    [block] = parse(TEXT)
    assert (block.name, block.op, block.count) == ("mm", DOWN, 20)
    assert (block.autotune_s, block.precompile_s) == (0.8154, 0.0061)
    assert [(c, ms) for c, ms, _ in block.choices] == [
        ("mm", 0.5843),
        ("triton_mm_58", 0.6935),
        ("triton_mm_57", 0.7616),
    ]
    configs = [cfg for *_, cfg in block.choices]
    assert configs[0] == "" and configs[2] == ""
    assert configs[1].startswith("ACC_TYPE='tl.float32'") and configs[1].endswith("num_warps=8")
    # the block ends at its seconds line: the stderr line after it is not its
    assert TEXT[: block.end].endswith("for 20 choices\n")


def test_blocks_without_seconds_failed_choices_and_other_lines():
    text = (
        "AUTOTUNE addmm(64x64, 64x32, 32x64)\n"
        "  bias_addmm 0.0100 ms 100.0% \n"
        "  triton_mm_3 inf ms 0.0% BLOCK_M=16\n"
        "  triton_mm_4 0.0000 ms <DIVIDED BY ZERO ERROR>\n"
        "unrelated\n" + _block("bmm", "8x64x64, 8x64x64", ["bmm 0.0200 ms 100.0% "])
    )
    first, second = parse(text)
    assert first.op == "addmm(64x64, 64x32, 32x64)" and first.autotune_s is None
    assert first.choices == (
        ("bias_addmm", 0.01, ""),
        ("triton_mm_3", None, "BLOCK_M=16"),  # inf: the choice failed
        ("triton_mm_4", 0.0, ""),
    )
    assert (second.name, second.autotune_s, second.count) == ("bmm", 0.5, 2)
    assert parse("nothing autotuned here\n  mm 1.0 ms 100.0%\n") == []


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("mm", "extern"),
        ("_mkl_linear", "extern"),
        ("triton_mm_58", "triton"),
        ("decompose_k_mm_256_split", "other"),
        ("cpp_CppMicroGemmFP32Vec_0", "other"),
    ],
)
def test_a_choice_kind_from_its_name(name, kind):
    assert kind_of(name) == kind


def _fed(capture, name="mm", nodes=None, times=None):
    nodes = nodes or (Node(4096, 14336), Node(14336, 4096))
    times = times or {
        ExternKernelCaller("mm"): 0.5843,
        TritonTemplateCaller("triton_mm_57", "BLOCK_M=64"): 0.7616,
        TritonTemplateCaller("triton_mm_58", "BLOCK_M=128"): 0.6935,
        CUTLASSTemplateCaller("cutlass_1"): float("inf"),
    }
    capture.feedback(times, name, list(nodes), ["choices"], lambda: None)


def test_the_hooked_op_takes_its_printed_block_and_ranks_its_choices():
    capture = autotune.Capture()
    capture.write(TEXT)
    _fed(capture)
    [op] = autotune.result(capture, None).ops
    assert (op.op, op.autotune_s, op.precompile_s, op.benchmarked) == (DOWN, 0.8154, 0.0061, True)
    assert [(c.choice, c.kind, c.time_ms, c.winner) for c in op.choices] == [
        ("mm", "extern", 0.5843, True),
        ("triton_mm_58", "triton", 0.6935, False),
        ("triton_mm_57", "triton", 0.7616, False),
        ("cutlass_1", "other", None, False),  # failed (inf): last, never the winner
    ]
    assert op.choices[1].config == "BLOCK_M=128"


def test_an_op_without_a_block_came_from_the_autotune_cache():
    capture = autotune.Capture()
    capture.write(TEXT)
    _fed(capture)  # benchmarked: the block printed just before
    capture.write("other output\n")
    _fed(capture)  # the same op again, nothing printed since: the cache's times
    first, second = autotune.result(capture, None).ops
    assert first.benchmarked and not second.benchmarked
    assert (second.op, second.autotune_s) == ("mm(4096x14336, 14336x4096)", None)
    assert [c.winner for c in second.choices] == [True, False, False, False]


def test_without_the_hook_the_printed_blocks_are_the_ops():
    capture = autotune.Capture()
    capture.write(TEXT)
    [op] = autotune.result(capture, None).ops
    assert [(c.choice, c.kind, c.winner) for c in op.choices] == [
        ("mm", "extern", True),
        ("triton_mm_58", "triton", False),
        ("triton_mm_57", "triton", False),
    ]
    assert op.autotune_s == 0.8154
    assert op == fusiondata.autotune_op()  # the report tests' result holds the same figures


def _latency(**counts):
    return CompileLatency("first call", 1.0, **counts)


@pytest.mark.parametrize(
    ("first", "says"),
    [
        (_latency(compiles=1, fx_cache_hits=1), "Inductor's FX graph cache served the compile"),
        (_latency(compiles=0), "compiled by an earlier job in this worker"),
    ],
)
def test_a_cache_that_skipped_autotuning_is_said(first, says):
    found = autotune.result(autotune.Capture(), first)
    assert found.ops == () and found.note.startswith(autotune.FROM_CACHE) and says in found.note


def test_nothing_to_tune_and_a_hook_that_failed_are_said():
    assert autotune.result(autotune.Capture(), _latency(compiles=1)) == Autotune(
        note=autotune.NOTHING
    )
    capture = autotune.Capture()
    _fed(capture, nodes=(object(),))  # no get_size: the hook must not raise into the compile
    assert capture.fed == [] and capture.failure.startswith("AttributeError")
    assert "not read from this torch" in autotune.result(capture, _latency(compiles=1)).note
    assert autotune.result(None, None) is None


def test_only_max_autotune_on_cuda_is_captured():
    assert autotune.TUNED_MODES == (TUNED,)
    assert autotune.tuned(TUNED, CUDA)
    assert not autotune.tuned(TUNED, torch.device("cpu"))
    assert not autotune.tuned("inductor", CUDA)
    with autotune.capture(TUNED, torch.device("cpu")) as found:
        assert found is None


def _savers():
    return sa.get_algorithm_selector_cache().feedback_saver_fns


def test_the_capture_hooks_inductor_and_tees_stderr_then_puts_both_back():
    before, saved = list(_savers()), sys.stderr
    with autotune.capture(TUNED, CUDA) as found:
        assert isinstance(found, autotune.Capture)
        assert len(_savers()) == len(before) + 1
        sys.stderr.write(TEXT)  # what Inductor's log_results writes
        _savers()[-1](
            {ExternKernelCaller("mm"): 0.5, TritonTemplateCaller("triton_mm_1"): 0.6},
            "mm",
            [Node(4096, 14336), Node(14336, 4096)],
            [],
            None,
        )
    assert sys.stderr is saved and _savers() == before
    [op] = autotune.result(found, None).ops
    assert (op.op, op.autotune_s, [c.time_ms for c in op.choices]) == (DOWN, 0.8154, [0.5, 0.6])
    found.write("after\n")
    found.feedback({}, "mm", [])
    assert found.text[-1] != "after\n" and len(found.fed) == 1  # inert once the call is done


def test_the_tee_passes_writes_through():
    stream = SimpleNamespace(written=[], write=None, flush=lambda: None, encoding="utf-8")
    stream.write = lambda text: stream.written.append(text) or len(text)
    capture = autotune.Capture()
    tee = autotune.Tee(stream, capture)
    assert tee.write("AUTOTUNE x\n") == len("AUTOTUNE x\n")
    assert stream.written == capture.text == ["AUTOTUNE x\n"] and tee.encoding == "utf-8"


class Wrapper:
    """As Inductor's DataProcessorChoiceCallerWrapper: attributes come from the wrapped choice."""

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def __getattr__(self, name):
        return getattr(self._wrapped, name)


class SubgraphChoiceCaller(ChoiceCaller):
    pass


class PersistentTMATemplateCaller(TritonTemplateCaller):
    pass


def test_a_wrapped_or_derived_choice_is_its_kind_and_an_unknown_one_other():
    capture = autotune.Capture()
    times = {
        Wrapper(ExternKernelCaller("_mkl_linear")): 1.0,
        PersistentTMATemplateCaller("triton_tem_fused_mm_4"): 2.0,
        SubgraphChoiceCaller("decompose_k_mm_8_split"): 3.0,
        ChoiceCaller("triton_mm_9"): 4.0,  # an unknown class: its name says Triton
    }
    _fed(capture, times=times)
    [op] = autotune.result(capture, None).ops
    assert [c.kind for c in op.choices] == ["extern", "triton", "other", "triton"]
    assert op.benchmarked is False  # nothing printed: the cache's times
