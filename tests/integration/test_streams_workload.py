"""Streams with a side-stream op from the catalog: the real worker on CPU, the CLI, the page."""

import json

import pytest
from apphelpers import open_page, widget

from runtime_lab import registry, ui
from runtime_lab.registry import result_from_record, summary
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec
from runtime_lab.workloads.registry import WORKLOADS
from tests.helpers.bundledata import cli

PAGE = "app_pages/streams.py"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """rms_norm at a small shape on the side stream, through the worker on CPU."""
    jobs = JobManager(data_dir=tmp_path_factory.mktemp("streams-rms"), timeout_s=300)
    try:
        spec = build_spec(
            "streams", "64x128", device="cpu", warmup=1, repeat=5, options={"workload": "rms_norm"}
        )
        return jobs.wait(jobs.submit(spec), 300).as_run()
    finally:
        jobs.close()


def test_the_worker_checks_and_times_the_workloads_op(run):
    assert run["status"] == "done", run.get("error")
    result = result_from_record("streams", run["result"])
    assert result.workload == "rms_norm" and result.tolerance_passed
    assert result.output_shape == (64, 128) and not result.streams_supported
    assert result.steps == (
        "cpu: z = rms_norm(x, w)",
        "cpu: compare z with the reference rms_norm(x, w)",
    )
    [timing] = result.timings
    assert timing.label == "rms_norm (cpu)" and len(timing.host_ms) == 5
    assert min(timing.host_ms) > 0
    key = summary(run)
    assert key["workload"] == "rms_norm" and key["op_ms_median"] > 0


def test_the_report_names_the_workload_and_what_needs_cuda(run):
    report = registry.build_report(run)
    assert report.headline.startswith(
        "No CUDA streams on this CPU: the rms_norm ran on the host twice and the results "
        "matched exactly (max |side − reference| 0)"
    )
    said = next(n for n in report.notes if n.startswith("What happened"))
    assert "on CPU only the correctness branch ran (rms_norm at 64x128 takes" in said
    assert "the race window, the orderings and overlap need a GPU" in said
    assert any("need CUDA and were not run" in n for n in report.notes)
    assert any(n.startswith("What to look for (rms_norm)") for n in report.notes)


def test_the_cli_runs_a_workload_on_the_side_stream(tmp_path):
    done = cli(
        tmp_path, "run", "streams", "--workload", "softmax", "--shape", "32x64",
        "--device", "cpu", "--repeat", "3", "--warmup", "1", "--json", "-",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    document, _ = json.JSONDecoder().raw_decode(done.stdout, done.stdout.index("{"))
    assert document["spec"]["options"]["workload"] == "softmax"
    assert document["result"]["workload"] == "softmax"
    assert document["result"]["output_shape"] == [32, 64]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--workload", "rms_norm", "--shape", "8x64x32"], "rms_norm takes 2: tokens × hidden"),
        (["--shape", "1x2x3x4x5"], "expected 1 to 4 positive integers"),  # matmul: x's shape
    ],
)
def test_a_shape_the_op_refuses_is_one_line_and_exit_2(tmp_path, args, said):
    done = cli(tmp_path, "run", "streams", "--device", "cpu", *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert said in done.stderr and "Traceback" not in done.stderr


def _shape(at):
    return widget(at.text_input, "Shape").value


def test_choosing_a_workload_on_the_streams_page_fills_its_shape_and_runs_it(app):
    at = open_page(app, PAGE)
    picker = widget(at.selectbox, "Workload")
    assert picker.value == "matmul"
    gpu = bool(ui.manager().env.get("gpus"))
    default = "4096x4096" if gpu else "1024x1024"
    assert _shape(at) == default  # the streams shape, not the catalog matmul's m × k × n
    assert widget(at.selectbox, "Preset shape").options == ["as typed"]
    picker.set_value("rms_norm").run()
    work = WORKLOADS["rms_norm"]
    assert _shape(at) == "x".join(map(str, work.default_shape if gpu else work.cpu_shape))
    assert "llama3-8b-4k: 4096x4096" in widget(at.selectbox, "Preset shape").options
    assert any(work.look_for[:40] in c.value for c in at.caption)
    widget(at.selectbox, "Workload").set_value("matmul").run()
    assert _shape(at) == default  # back to the streams shape
    assert any("y is x with its last two dims swapped" in c.value for c in at.caption)
    widget(at.selectbox, "Workload").set_value("rms_norm").run()
    widget(at.text_input, "Shape").set_value("64x128")
    widget(at.selectbox, "Device").set_value("cpu")
    at.button[0].click()
    at.run()
    assert not at.exception and not at.error
    assert at.query_params["workload"] == "rms_norm" and at.query_params["shape"] == "64x128"
    assert "job:streams" in at.session_state  # submitted


def test_a_shape_the_workload_refuses_is_a_message_on_the_page(app):
    at = open_page(app, PAGE)
    widget(at.selectbox, "Workload").set_value("attention").run()
    widget(at.text_input, "Shape").set_value("64x64")
    at.button[0].click()
    at.run()
    said = [e.value for e in at.error]
    assert any("attention takes 4: batch × heads × seq × head_dim" in e for e in said), said
    assert ui.manager().history.list() == []
