"""The seed chapter's reference script, the lab's first oracle: stream/event matmul and fusion.

Run: python examples/gpu_runtime_reference.py
On CUDA: side-stream matmul ordered by events vs a default-stream reference, and the CUDA
kernels the profiler sees for silu(x + y) * (x - y), eager vs torch.compile. On CPU: the
correctness branch only (streams, events and CUDA kernels need a GPU).
"""

import platform
import warnings

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

torch.manual_seed(199)
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def pointwise(x, y):
    return F.silu(x + y) * (x - y)


def cuda_kernel_names(fn):
    """Run fn once under the profiler; the names of the CUDA kernels it launched."""
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        output = fn()
        torch.cuda.synchronize()
    # device-side annotations such as "## Call CompiledFxGraph ... ##" are not kernels
    names = [
        e.name
        for e in prof.events()
        if e.device_type == torch.autograd.DeviceType.CUDA and not e.name.startswith("##")
    ]
    return output, names


def stream_event_matmul(x, y):
    side = torch.cuda.Stream()
    inputs_ready, work_done = torch.cuda.Event(), torch.cuda.Event()
    inputs_ready.record(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        side.wait_event(inputs_ready)
        side_output = x @ y
        work_done.record(side)
    torch.cuda.current_stream().wait_event(work_done)
    return side_output


def cuda_branch(x, y):
    side_output = stream_event_matmul(x, y)
    reference = x @ y
    torch.testing.assert_close(side_output, reference)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        compiled = torch.compile(pointwise, fullgraph=True)
        compiled(x, y)  # compile first: never profile the compiling call
    torch.cuda.synchronize()
    eager, eager_kernels = cuda_kernel_names(lambda: pointwise(x, y))
    compiled_output, compiled_kernels = cuda_kernel_names(lambda: compiled(x, y))
    torch.testing.assert_close(compiled_output, eager, rtol=1e-5, atol=1e-6)
    assert len(eager_kernels) >= 3 and len(compiled_kernels) <= len(eager_kernels)
    print(f"stream_event_matmul_max_abs_diff={(side_output - reference).abs().max():.3e}")
    print(f"eager_cuda_kernel_count={len(eager_kernels)} names={eager_kernels}")
    print(f"compiled_cuda_kernel_count={len(compiled_kernels)} names={compiled_kernels}")
    print(f"compiled_vs_eager_max_abs_diff={(compiled_output - eager).abs().max():.3e}")


def cpu_branch(x, y):
    eager = pointwise(x, y)
    compiled = torch.compile(pointwise, backend="eager", fullgraph=True)
    compiled_output = compiled(x, y)
    torch.testing.assert_close(compiled_output, eager)
    print("stream_event_matmul=CUDA unavailable; CPU correctness branch")
    print("kernel_counts=CUDA profiler unavailable")
    print(f"compiled_vs_eager_max_abs_diff={(compiled_output - eager).abs().max():.3e}")


def main():
    shape = (512, 512) if DEVICE.type == "cuda" else (64, 64)
    x = torch.randn(shape, device=DEVICE)
    y = torch.randn_like(x)
    (cuda_branch if DEVICE.type == "cuda" else cpu_branch)(x, y)
    name = torch.cuda.get_device_name(0) if DEVICE.type == "cuda" else "CPU"
    print(f"python={platform.python_version()} torch={torch.__version__}")
    print(f"device={DEVICE} name={name} dtype={x.dtype} shape={shape}")


if __name__ == "__main__":
    with torch.inference_mode():
        main()
