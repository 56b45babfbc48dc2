"""Generated kernels joined to their ATen ops and user lines, from a structured compile trace."""

from __future__ import annotations

import json
import re
from pathlib import PurePath

from runtime_lab.compiler.log import KernelSource, Record, by_compile

_KERNEL_DEF = re.compile(r"^((?:triton|cpp)_\w+) = async_compile\.(?:triton|cpp_pybinding|cpp)\(")
_SORTED = re.compile(r"Source Nodes: \[([^\]]*)\], Original ATen: \[([^\]]*)\]")
_NODE = re.compile(r'^\s*(\w+): "[^"]*" = (.+?)(?:;  .*)?$')
_FILE = re.compile(r"^\s*# File: (.+?):(\d+) in [^,]+, code: (.*)$")
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in [^\n]*\n\s*([^\n]*)')
_BINARY = {"+": "add", "-": "sub", "*": "mul", "/": "div", "@": "matmul", "**": "pow"}


def _json(payload: str) -> dict:
    try:
        found = json.loads(payload)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def graph_nodes(payload: str) -> dict[str, tuple[str, str | None]]:
    """node → (its expression, the '# File: …' source line above it) of a printed FX graph."""
    found, source = {}, None
    for line in payload.splitlines():
        place = _FILE.match(line)
        if place:
            source = f"{PurePath(place[1]).name}:{place[2]}  {place[3].strip()}"
            continue
        node = _NODE.match(line)
        if node:
            found[node[1]] = (node[2], source)
    return found


def aten_name(expression: str) -> str | None:
    """The ATen op a graph node calls: torch.ops.aten.add.Tensor(…) → aten.add, a user-level
    F.silu(…) → aten.silu (what it dispatches to), l_x_ + l_y_ → aten.add."""
    ops = re.match(r"torch\.ops\.(\w+)\.(\w+)", expression)
    if ops:
        return f"{ops[1]}.{ops[2]}"
    call = re.match(r"(?:torch\.nn\.functional|torch|torch\._C\._nn)\.(\w+)\(", expression)
    if call:
        return f"aten.{call[1]}"
    binary = re.match(r"\w+ (\*\*|[-+*/@]) \w+$", expression)
    if binary:
        return f"aten.{_BINARY[binary[1]]}"
    method = re.match(r"\w+\.(\w+)\(", expression)
    return f"aten.{method[1]}" if method else None


def source_lines(stacks: list[str]) -> tuple[str, ...]:
    """'file.py:N  code' of each stack's innermost frame, once each, in order."""
    found = []
    for stack in stacks:
        frames = _FRAME.findall(stack or "")
        if frames:
            path, line, code = frames[-1]
            found.append(f"{PurePath(path).name}:{line}  {code.strip()}")
    return tuple(dict.fromkeys(found))


def kernel_sources(records: list[Record]) -> tuple[KernelSource, ...]:
    """Every generated kernel of every compile, joined as far as the trace allows."""
    found = []
    for compile_id, group in by_compile(records).items():
        found += _compile_kernels(compile_id, group)
    return tuple(found)


def _last(group: list[Record], kind: str) -> str | None:
    payloads = [r.payload for r in group if r.kind == kind and r.payload]
    return payloads[-1] if payloads else None


def _compile_kernels(compile_id: str, group: list[Record]) -> list[KernelSource]:
    code = _last(group, "inductor_output_code") or ""
    mappings = _json(_last(group, "artifact:inductor_provenance_tracking_node_mappings") or "")
    stacks = _json(_last(group, "artifact:inductor_provenance_tracking_kernel_stack_traces") or "")
    pre = graph_nodes(_last(group, "dynamo_output_graph") or "")
    post = graph_nodes(_last(group, "artifact:inductor_post_grad_graph") or "")
    comments = _code_kernels(code)
    to_post = mappings.get("cppCodeToPost") or mappings.get("tritonCodeToPost") or {}
    names = list(dict.fromkeys([*comments, *(_bare(k) for k in to_post)]))
    kernels = []
    for name in names:
        keys = [k for k in to_post if _bare(k) == name]
        post_nodes = [n for k in keys for n in to_post[k]]
        kernel_stacks = [s for k in keys for s in stacks.get(k, [])]
        kernels.append(
            _kernel(
                compile_id, name, comments.get(name), post_nodes, kernel_stacks, mappings, pre, post
            )
        )
    return kernels


def _bare(key: str) -> str:
    return re.sub(r":\d+$", "", key)


def _code_kernels(code: str) -> dict[str, tuple[list[str], list[str]] | None]:
    """kernel → (source nodes, Original ATen) from the comment above each definition."""
    found, pending = {}, None
    for line in code.splitlines():
        sorted_nodes = _SORTED.search(line) if line.startswith("#") else None
        if sorted_nodes:
            pending = (_items(sorted_nodes[1]), _items(sorted_nodes[2]))
            continue
        kernel = _KERNEL_DEF.match(line)
        if kernel:
            found[kernel[1]] = pending
            pending = None
    return found


def _items(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _kernel(compile_id, name, comment, post_nodes, stacks, mappings, pre, post) -> KernelSource:
    post_to_pre = mappings.get("postToPre") or {}
    # the graph order of the lowered nodes, so the ops read as the code runs them
    ordered = [n for n in post if n in post_nodes] + [n for n in post_nodes if n not in post]
    pre_nodes = list(dict.fromkeys(p for n in ordered for p in post_to_pre.get(n, [])))
    if comment and not pre_nodes:
        pre_nodes = comment[0]
    post_ops = tuple(
        dict.fromkeys(filter(None, (aten_name(post[n][0]) for n in ordered if n in post)))
    )
    if comment and comment[1]:
        aten_ops, origin = tuple(comment[1]), "generated code comments"
    else:
        aten_ops = tuple(
            dict.fromkeys(filter(None, (aten_name(pre[n][0]) for n in pre_nodes if n in pre)))
        )
        origin = "graph comments"
    if post_nodes:
        origin = "provenance tracking"
    lines = source_lines(stacks) or tuple(
        dict.fromkeys(pre[n][1] for n in pre_nodes if n in pre and pre[n][1])
    )
    return KernelSource(compile_id, name, aten_ops, post_ops, lines, origin)
