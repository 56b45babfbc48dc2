"""The snapshot integrator on a real H200 snapshot (tests/fixtures/h200/alloc-snapshot.json.gz).

Recorded by scripts/evidence/capture_gpu_fixtures.py: silu(x + y) * (x - y) at 1024², 4096², 2048² and
1024² fp32 with del after each, then empty_cache(); 96 MiB of an earlier test stayed live.
"""

import pickle

import h200data
import pytest

from runtime_lab.allocator.run import memtrace

MIB = 2**20


@pytest.fixture(scope="module")
def snapshot():
    return h200data.snapshot()


@pytest.fixture(scope="module")
def points(snapshot):
    return memtrace.integrate(snapshot)


def test_final_segments_are_the_three_live_32_mib_blocks(snapshot):
    seg = memtrace.summarize_segments(snapshot)
    assert seg.segments == 3
    assert seg.reserved == 96 * MIB and seg.allocated == 96 * MIB
    assert seg.inactive == 0 and seg.pending_free == 0 and seg.fragmentation == 0.0
    assert sorted(seg.by_stream.values()) == [(32 * MIB, 32 * MIB)] * 3
    assert len(seg.by_stream) == 3  # one default-stream segment, two of side streams
    assert seg.by_pool == {"(0, 0)": 96 * MIB}


def test_start_state_is_the_end_minus_the_recorded_deltas(snapshot):
    assert memtrace.start_state(snapshot) == (96 * MIB, 0, 96 * MIB)


def test_curve_has_one_point_per_entry_and_the_eager_peaks(points):
    assert len(points) == 84
    # 4096² fp32 is 64 MiB: x, y, silu(x + y), x − y and the product live at once
    assert max(p.allocated for p in points) == 96 * MIB + 5 * 64 * MIB
    # one 20 MiB segment for the 4 MiB blocks of 1024², five 64 MiB segments for 4096²
    assert max(p.reserved for p in points) == 96 * MIB + 20 * MIB + 5 * 64 * MIB
    # no record_stream here: a block is pending only between its free_requested and the
    # free_completed logged right after it
    assert all((p.pending_free > 0) == (p.action == "free_requested") for p in points)
    assert points[0].action == "segment_alloc" and points[0].reserved == 116 * MIB


def test_after_del_allocated_drops_while_reserved_stays_then_empty_cache_drops_it(points):
    first_segment_free = next(i for i, p in enumerate(points) if p.action == "segment_free")
    before = points[first_segment_free - 1]  # every step's tensors deleted, nothing returned
    assert before.allocated == 96 * MIB
    assert before.reserved == 436 * MIB
    # 2048² (16 MiB blocks) and the second 1024² were served from the cache: no new segment
    assert sum(p.action == "segment_alloc" for p in points) == 6
    assert points[-1].allocated == 96 * MIB and points[-1].reserved == 96 * MIB


def test_peak_per_stream(snapshot):
    assert memtrace.peak_by_stream(snapshot) == {0: 5 * 64 * MIB}


def test_downsample_is_bounded_and_keeps_the_peaks(points):
    many = points * 50  # 4200 points
    kept = memtrace.downsample(many, 200)
    assert len(kept) <= 200
    assert max(p.allocated for p in kept) == 416 * MIB
    assert max(p.reserved for p in kept) == 436 * MIB
    assert min(p.reserved for p in kept) == 96 * MIB
    assert kept[-1] is many[-1]
    assert memtrace.downsample(points, 200) == points  # short traces are kept whole


def test_a_ring_buffer_that_lost_its_start_is_still_anchored(snapshot):
    cut = {**snapshot, "device_traces": [snapshot["device_traces"][0][40:]]}
    points = memtrace.integrate(cut)
    assert len(points) == 44
    assert points[-1].reserved == 96 * MIB and points[-1].allocated == 96 * MIB
    assert max(p.reserved for p in points) == 436 * MIB  # the 4096² segments are still held


def test_record_stream_pending_free_is_tracked():
    entries = [
        {"action": "segment_alloc", "addr": 0, "size": 2 * MIB, "stream": 0, "time_us": 1},
        {"action": "alloc", "addr": 0, "size": MIB, "stream": 0, "time_us": 2},
        {"action": "free_requested", "addr": 0, "size": MIB, "stream": 0, "time_us": 3},
        {"action": "free_completed", "addr": 0, "size": MIB, "stream": 0, "time_us": 9},
    ]
    snap = {
        "segments": [
            {
                "device": 0,
                "stream": 0,
                "total_size": 2 * MIB,
                "allocated_size": 0,
                "segment_pool_id": (0, 0),
                "blocks": [{"size": 2 * MIB, "state": "inactive"}],
            }
        ],
        "device_traces": [entries],
    }
    points = memtrace.integrate(snap)
    assert [(p.allocated, p.pending_free) for p in points] == [
        (0, 0),
        (MIB, 0),
        (MIB, MIB),  # Python freed it; the side stream may still read it
        (0, 0),
    ]
    seg = memtrace.summarize_segments(snap)
    assert seg.inactive == 2 * MIB and seg.largest_inactive == 2 * MIB


def test_the_probe_keeps_a_snapshot_with_segments_beside_the_end_one(
    snapshot, tmp_path, monkeypatch
):
    """The probe's CUDA bookkeeping, fed the H200 snapshot (no GPU here): the pickle saved before
    the final empty_cache is written, named, loadable and recorded on the scenario's info."""
    import torch

    from runtime_lab.allocator.run.probe import Probe

    probe = Probe(torch.device("cpu"), tmp_path, max_entries=20000)
    probe.keep_segments("sequence")  # on CPU: nothing to keep
    assert probe.segments_files == {}
    probe.cuda = True  # from here on as on a GPU, with the snapshot standing in for _snapshot()
    monkeypatch.setattr(probe, "sync", lambda: None)
    monkeypatch.setattr(torch.cuda.memory, "_snapshot", lambda device=None: snapshot)
    probe.keep_segments("sequence")
    probe._keep("sequence", {**snapshot, "segments": []}, start_us=0)
    (info,) = probe.snapshots
    assert info.segments == 0 and info.segments_file.endswith("-sequence-before-empty-cache.pickle")
    with open(info.segments_file, "rb") as fh:
        assert len(pickle.load(fh)["segments"]) == 3
