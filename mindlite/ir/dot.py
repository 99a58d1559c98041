"""A FuncGraph as Graphviz `.dot` text, as MindSpore's save_graphs level 3 writes it.

One cluster per graph; ParameterNodes blue, ValueNodes purple, CNodes yellow; a CNode's
input 0 (the function it calls) is a dashed edge, its arguments solid edges labelled
with their position; a ValueNode holding a FuncGraph links to that graph's cluster in
blue. The text needs nothing installed; `render_svg` runs Graphviz's `dot` when it is on
PATH (FuncGraph._repr_svg_ uses it, so a graph shows inline in a notebook).
"""
import shutil
import subprocess

from .anf import CNode, FuncGraph, ParameterNode, ValueNode
from .dump import type_str, value_str
from .manager import reachable_graphs

COLORS = {"param": "#9fc5f8", "value": "#d5a6bd", "cnode": "#ffe599"}


def _q(text):
    text = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + text + '"'


def to_dot(root):
    """The `.dot` text of `root` and every graph it reaches."""
    lines = [f"digraph {_q(root.name)} {{", "  compound=true;", "  node [fontname=Helvetica];"]
    value_ids = iter(range(1, 1 << 30))
    for g in reachable_graphs(root):
        lines.append(f"  subgraph {_q('cluster_' + str(g.id))} {{")
        lines.append(f"    label={_q('@' + g.name)};")
        for p in g.parameters:
            label = _q(p.name + ' ' + type_str(p.abstract))
            lines.append(f"    n{p.id} [shape=hexagon, style=filled, fillcolor="
                         f"{_q(COLORS['param'])}, label={label}];")
        for node in g.order:
            lines.append(f"    n{node.id} [shape=box, style=filled, fillcolor="
                         f"{_q(COLORS['cnode'])}, label={_q(_cnode_label(node))}];")
            for i, inp in enumerate(node.inputs):
                src = f"n{inp.id}"
                if isinstance(inp, ValueNode):
                    src = f"v{next(value_ids)}"
                    lines.append(f"    {src} [shape=plaintext, style=filled, fillcolor="
                                 f"{_q(COLORS['value'])}, label={_q(value_str(inp.value))}];")
                    if isinstance(inp.value, FuncGraph):
                        lines.append(f"    {src} -> ret{inp.value.id} [color=blue, "
                                     f"lhead={_q('cluster_' + str(inp.value.id))}];")
                style = "style=dashed" if i == 0 else f"label={i}"
                lines.append(f"    {src} -> n{node.id} [{style}];")
        out = g.output
        lines.append(f"    ret{g.id} [shape=box, label=\"Return\"];")
        if isinstance(out, (CNode, ParameterNode)):
            lines.append(f"    n{out.id} -> ret{g.id};")
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _cnode_label(node):
    name = f"CNode_{node.id}" + (f"${node.name}" if node.name else "")
    return f"{name}\n{type_str(node.abstract)}"


def render_svg(root):
    """SVG text of the graph, or None when Graphviz's `dot` is not installed."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    done = subprocess.run([exe, "-Tsvg"], input=to_dot(root).encode(), capture_output=True,
                          timeout=60, check=False)
    return done.stdout.decode() if done.returncode == 0 else None
