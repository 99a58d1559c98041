"""The converter (MindSpore Lite's converter_lite): a FuncGraph -> an `.ms` model.

    convert_graph(graph, optimize="general", fmk, input_format="NHWC") -> MsModel
    convert(net_or_fn, *inputs, file_name=None, optimize="general", input_format="NHWC")
    convert_file(fmk, model_file, output_file, optimize="general", input_format="NHWC")
    python -m mindlite.lite.converter --fmk=MINDIR|ONNX --modelFile=m.mindir --outputFile=m
                                      [--optimize=general|none] [--inputDataFormat=NHWC|NCHW]

Graphs come from `mindlite.jit.export_graph.graph_for_export` (a Cell or function), from
`mindlite.load` (MINDIR) or `mindlite.onnx.load_onnx` (ONNX). Conversion runs, in order:
the user passes scheduled at before_fusion (POSITION_BEGIN, registered with
mindlite.registry / mindlite.jit.passes: register_pass + register_scheduled_passes), the
built-in Lite fusions (fusion.py; skipped with optimize="none"), the user passes scheduled
at after_fusion (POSITION_END), dead node elimination; the IR is linted after each user pass.
Last, the layout passes (layout.py) give the graph MindSpore Lite's layouts: its NHWC ops
NHWC with KHWC weights, the 4-D inputs NHWC unless `input_format="NCHW"` (converter_lite's
--inputDataFormat), Transposes where layouts meet. The file then runs in MindSpore Lite 2.x.
"""
import argparse
import os
import sys

from ..ir.anf import FUNC, SWITCH, CNode, FuncGraph, ValueNode
from ..ir.manager import FuncGraphManager, LintError, lint
from ..jit.passes import registry as passes
from ..jit.passes.pipeline import run_pass
from . import fusion
from .layout import FORMATS, convert_layout
from .ms_export import export_graph
from .ms_file import write_ms

OPTIMIZE = ("general", "none")
FMKS = ("MINDIR", "ONNX")


def fill_call_abstracts(manager):
    """Give graph calls the abstract their callee returns (Switch: FUNC), for graphs read
    from files whose call nodes carry none (MINDIR's Partial wrappers)."""
    for _ in range(len(manager.graphs()) + 1):
        changed = False
        for g in manager.graphs():
            for node in g.order:
                if node.abstract is not None and node.abstract is not FUNC:
                    continue
                callee = node.inputs[0]
                fn = callee.value if isinstance(callee, ValueNode) else None
                if fn is SWITCH:
                    new = FUNC
                elif isinstance(fn, FuncGraph):
                    new = fn.output.abstract
                elif isinstance(callee, CNode) and _is_switch(callee):
                    new = callee.inputs[2].value.output.abstract
                else:
                    continue
                if new is not None and new is not node.abstract:
                    node.abstract, changed = new, True
        if not changed:
            return


def _is_switch(node):
    return isinstance(node.inputs[0], ValueNode) and node.inputs[0].value is SWITCH and \
        isinstance(node.inputs[2], ValueNode) and isinstance(node.inputs[2].value, FuncGraph)


def run_passes(graph, optimize="general", input_format="NHWC"):
    """The converter's pass pipeline on `graph` (in place); returns [(name, changed)]."""
    if optimize not in OPTIMIZE:
        raise ValueError(f"For 'converter', 'optimize' must be one of {OPTIMIZE}, but got "
                         f"{optimize!r}")
    if input_format not in FORMATS:
        raise ValueError(f"For 'converter', 'input_format' must be one of {FORMATS}, but got "
                         f"{input_format!r}")
    manager = FuncGraphManager(graph)
    fill_call_abstracts(manager)
    report = []
    stages = [(n, passes.resolve(n), True) for n in passes.scheduled_passes(passes.BEFORE_FUSION)]
    if optimize == "general":
        stages.append(("lite_fusion", fusion.run, False))
    stages += [(n, passes.resolve(n), True) for n in passes.scheduled_passes(passes.AFTER_FUSION)]
    for name, fn, user in stages:
        changed = run_pass(name, fn, graph, manager, user)
        manager.rebuild()
        try:
            lint(graph)
        except LintError as err:
            raise LintError(f"converter: after the pass '{name}': {err}") from None
        report.append((name, changed))
    report.append(("dead_node_elimination", manager.dce()))
    report.append(("lite_layout", convert_layout(graph, manager, input_format)))
    lint(graph)
    return report


def convert_graph(graph, optimize="general", fmk="MINDIR", input_format="NHWC"):
    """Run the converter passes on `graph` (in place) and export it to an MsModel."""
    run_passes(graph, optimize, input_format)
    return export_graph(graph, fmk, input_format)


def convert(net_or_fn, *inputs, file_name=None, optimize="general", input_format="NHWC"):
    """Compile `net_or_fn` for `inputs` (graph_for_export) and convert it; returns the .ms
    bytes, also written to `file_name` (".ms" appended when missing) when given. 4-D inputs
    are NHWC in the model unless input_format="NCHW" (as converter_lite)."""
    from ..jit.export_graph import graph_for_export
    data = write_ms(convert_graph(graph_for_export(net_or_fn, *inputs), optimize,
                                  input_format=input_format))
    if file_name is not None:
        path = file_name if file_name.endswith(".ms") else file_name + ".ms"
        with open(path, "wb") as f:
            f.write(data)
    return data


def load_model_file(fmk, model_file):
    """The FuncGraph of a MINDIR or ONNX file."""
    if fmk not in FMKS:
        raise ValueError(f"converter: --fmk must be one of {FMKS}, but got {fmk!r}")
    if not os.path.isfile(model_file):
        raise FileNotFoundError(f"converter: --modelFile {model_file!r} does not exist")
    if fmk == "MINDIR":
        import mindlite
        load = getattr(mindlite, "load", None)
        if load is None:
            raise RuntimeError("converter: this mindlite has no MINDIR loader (mindlite.load)")
        graph = load(model_file)
    else:
        from ..onnx import load_onnx
        graph = load_onnx(model_file)
    return getattr(graph, "graph", graph)       # a GraphCell-like wrapper or the FuncGraph


def convert_file(fmk, model_file, output_file, optimize="general", input_format="NHWC"):
    """converter_lite: read `model_file` (fmk MINDIR or ONNX), write `output_file`.ms."""
    graph = load_model_file(fmk, model_file)
    model = convert_graph(graph, optimize, fmk, input_format)
    path = output_file if output_file.endswith(".ms") else output_file + ".ms"
    with open(path, "wb") as f:
        f.write(write_ms(model))
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m mindlite.lite.converter",
                                 description="Convert a MINDIR or ONNX model to MindSpore "
                                             "Lite's .ms format (converter_lite's flags).")
    ap.add_argument("--fmk", required=True, choices=FMKS)
    ap.add_argument("--modelFile", required=True)
    ap.add_argument("--outputFile", required=True)
    ap.add_argument("--optimize", default="general", choices=OPTIMIZE)
    ap.add_argument("--inputDataFormat", default="NHWC", choices=FORMATS)
    args = ap.parse_args(argv)
    try:
        path = convert_file(args.fmk, args.modelFile, args.outputFile, args.optimize,
                            args.inputDataFormat)
    except (ValueError, TypeError, RuntimeError, OSError, NotImplementedError) as err:
        print(f"CONVERT RESULT FAILED: {err}", file=sys.stderr)
        return 1
    print(f"CONVERT RESULT SUCCESS:0 ({path})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
