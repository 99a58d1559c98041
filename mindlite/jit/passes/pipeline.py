"""The pass pipeline every compile runs (api.py `_compile`, after parsing), in this order:

    inline                    calls of non-recursive graphs -> their nodes, in the caller
    constant_folding          pure calls of constants -> constants; Switch on a constant
    algebraic_simplify        x*1, x+0, x-0, x/1, neg(neg x), no-op reshape/transpose/cast,
                              reshape/transpose chains, TupleGetItem(MakeTuple)
    cse                       equal pure calls of equal inputs -> one node
    dead_node_elimination     unused nodes and unreferenced nested graphs
    <before_fusion>           user passes scheduled at "before_fusion" (POSITION_BEGIN)
    conv_biasadd_fusion       Conv2D -> BiasAdd (-> ReLU), Conv2D -> ReLU -> FusedConv2DBiasAdd
    conv_act_fusion           large Conv2D -> BiasAdd / Add(residual) / ReLU(6) -> FusedConvAct
    matmul_biasadd_fusion     MatMul -> BiasAdd (-> ReLU) -> FusedMatMulBiasAdd
    elementwise_fusion        elementwise DAGs -> FusedElemwise (one pass per output)
    <after_fusion>            user passes scheduled at "after_fusion" (POSITION_END)
    dead_node_elimination_final   what the fusions and user passes left unused

A pass is `run(graph, manager) -> changed` over the root graph and every graph reachable
from it (passes/<name>.py). Each built-in pass runs to its own fixpoint; the list runs once.
With save_graphs on, the graph is written after parsing and after every stage
(jit/save_graphs.py). User passes are checked by ir.lint as soon as they return, so a pass
that breaks the IR is named in the error; `run_pipeline(..., check=True)` lints after every
stage (the tests do).
"""
import contextlib
import contextvars

from ...ir.manager import FuncGraphManager, LintError, lint
from . import (algebraic, constant_folding, cse, dce, fuse_conv, fuse_conv_act, fuse_elementwise,
               fuse_matmul, inline)
from .registry import AFTER_FUSION, BEFORE_FUSION, SCHEDULED, resolve

PIPELINE = [
    ("inline", inline.run),
    ("constant_folding", constant_folding.run),
    ("algebraic_simplify", algebraic.run),
    ("cse", cse.run),
    ("dead_node_elimination", dce.run),
    BEFORE_FUSION,
    ("conv_biasadd_fusion", fuse_conv.run),          # these first: they take the ReLU
    ("conv_act_fusion", fuse_conv_act.run),          # of Conv2d / Dense
    ("matmul_biasadd_fusion", fuse_matmul.run),
    ("elementwise_fusion", fuse_elementwise.run),
    AFTER_FUSION,
    ("dead_node_elimination_final", dce.run),
]
BUILTIN = {entry[0]: entry[1] for entry in PIPELINE if not isinstance(entry, str)}


# Stage names a compile leaves out (export: model files hold MindSpore's primitives, not
# mindlite's fused ones; see jit/export_graph.py).
_SKIPPED = contextvars.ContextVar("skipped_stages", default=frozenset())
USER_PASSES = "<user passes>"


@contextlib.contextmanager
def skipping(*names, user_passes=False):
    """Compiles inside this block leave out the named built-in stages, and the registered
    user passes too when `user_passes` is true."""
    unknown = set(names) - set(BUILTIN)
    if unknown:
        raise ValueError(f"skipping: unknown built-in stage(s) {sorted(unknown)}; "
                         f"expected names from {sorted(BUILTIN)}")
    extra = {USER_PASSES} if user_passes else set()
    token = _SKIPPED.set(_SKIPPED.get() | frozenset(names) | extra)
    try:
        yield
    finally:
        _SKIPPED.reset(token)


def stages():
    """(name, run, is_user) for this compile, user passes at their positions."""
    skipped = _SKIPPED.get()
    out = []
    for entry in PIPELINE:
        if isinstance(entry, str):
            if USER_PASSES not in skipped:
                out.extend((name, resolve(name), True) for name in SCHEDULED[entry])
        elif entry[0] not in skipped:
            out.append((entry[0], entry[1], False))
    return out


def stage_names():
    return [name for name, _, _ in stages()]


def run_pass(name, fn, root, manager, user):
    try:
        changed = bool(fn(root, manager))
    except Exception as err:
        if not user:
            raise
        raise RuntimeError(f"The user pass '{name}' failed: {type(err).__name__}: {err}") \
            from err
    return changed


def run_pipeline(root, check=False, dumper=None):
    """Run every stage on `root` in place; returns [(stage name, changed)]. `dumper` (a
    save_graphs.GraphDumper) writes the graph after parsing and after each stage."""
    if dumper is not None:
        dumper.dump("parse", root)
    manager = FuncGraphManager(root)
    report = []
    for name, fn, user in stages():
        changed = run_pass(name, fn, root, manager, user)
        if changed or user:
            manager.rebuild()
        if user or check:
            try:
                lint(root)
            except LintError as err:
                raise LintError(f"after the pass '{name}': {err}") from None
        report.append((name, changed))
        if dumper is not None:
            dumper.dump(name, root)
    return report


def compile_passes(root):
    """What api.py's `_compile` runs after parsing: the pipeline, with save_graphs dumps per
    the context. Returns the guard (obj, attr, value, None) that makes the compiled graph
    stale once the user passes change (registry.STATE.version)."""
    from ..save_graphs import GraphDumper
    from .registry import STATE
    version = STATE.version
    run_pipeline(root, dumper=GraphDumper.from_context())
    return (STATE, "version", version, None)
