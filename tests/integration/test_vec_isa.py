"""A cold compile in a fresh interpreter leaves the CPU's vector-ISA check out of its figure: the
check's test programs are built in the machine's cache, never in the compile's empty one."""

import re

from runtime_lab.fusion.run.fresh_process import isa_phase
from runtime_lab.lab import child

KERNEL = re.compile(r'extern "C"\s+void\s+kernel\(')  # a compiled graph's C++ entry point
CHECK = "__avx_chk_kernel"  # the function every test program of Inductor's ISA check defines


def test_the_fresh_processs_empty_cache_gets_only_its_own_kernel(tmp_path):
    caches = {"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor")}
    caches["TRITON_CACHE_DIR"] = str(tmp_path / "triton")
    args = {"device": "cpu", "shape": [64, 64], "dtype": "float32", "mode": None}
    doc, why = child.run_module(
        "runtime_lab.fusion.run.fresh_child", args | {"role": "fresh", "path": ""}, 300, caches
    )
    assert why is None, why
    sources = list((tmp_path / "inductor").rglob("*.cpp"))
    assert sources, "the compile wrote no C++ kernel into its cache"
    assert not [p for p in sources if CHECK in p.read_text()], "the ISA check built here"
    assert any(KERNEL.search(p.read_text()) for p in sources)  # the workload's own kernel
    # its own phase, said apart from the compile
    assert doc["isa_s"] > 0 and doc["compile_s"] > 0
    assert isa_phase(doc).startswith("CPU vector-ISA check ")
    assert isa_phase({"isa_s": None}) == ""  # a GPU device: no such phase
