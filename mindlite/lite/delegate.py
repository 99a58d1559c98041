"""Delegates (MindSpore Lite's mindspore::Delegate): another engine runs part of the graph.

    class Delegate:        init() ; build(model: DelegateModel)
    DelegateModel          .kernels (the scheduled kernels, in order), get_primitive(kernel)
                           -> (op type, table fields), replace(start, end, kernel)
    OnnxRuntimeDelegate    claims the kernels onnxruntime runs (their mindlite graph exports
                           to ONNX and builds in onnxruntime), turns
                           each run of consecutive claimed kernels into one ONNX model
                           (mindlite.onnx.export_onnx_model, in memory) run by onnxruntime

Set one with `Context.delegate = OnnxRuntimeDelegate()`. The scheduler calls build() after
making the kernels and before grouping them; a delegate kernel is its own arch, so the
mindlite kernels around it form separate SubGraph kernels. A build() that raises leaves the
kernels as they were, with a RuntimeWarning (scheduler.py).
"""
from ..common.tensor import Tensor
from ..ir.anf import MAKE_TUPLE, IRPrim, ValueNode
from .graph_build import GraphBuilder
from .kernel import LiteKernel


class Delegate:
    """Base of delegates: override build(model) (and init())."""

    def init(self):
        return True

    def build(self, model):
        raise NotImplementedError(f"{type(self).__name__} defines no build(model)")


class DelegateModel:
    """The kernels of one subgraph, their tensors' abstracts, and the subgraph's outputs."""

    def __init__(self, model, kernels, abstracts, outputs=(), folded=None):
        self.model, self.kernels, self.abstracts = model, list(kernels), abstracts
        self.outputs = list(outputs)
        self.folded = {} if folded is None else folded     # tensors computed at build

    def used_after(self, end):
        """Tensors read by kernels[end:] or returned by the subgraph."""
        return set(self.outputs) | {t for k in self.kernels[end:] for t in k.runtime_inputs()}

    def get_primitive(self, kernel):
        return kernel.type, dict(kernel.node.attrs)

    def replace(self, start, end, kernel):
        """kernels[start:end] -> the delegate's kernel."""
        if not 0 <= start < end <= len(self.kernels):
            raise ValueError(f"DelegateModel.replace: bad range [{start}, {end}) of "
                             f"{len(self.kernels)} kernels")
        self.kernels[start:end] = [kernel]


class DelegateKernel:
    """A delegate's kernel over some Lite kernels: in/out tensors, execute(env)."""

    def __init__(self, arch, kernels, in_tensors, out_tensors):
        self.arch, self.kernels = arch, list(kernels)
        self.name = f"{arch}({kernels[0].name}..{kernels[-1].name})"
        self.type = arch
        self.in_tensors, self.out_tensors = list(in_tensors), list(out_tensors)

    def runtime_inputs(self):
        return list(self.in_tensors)


# ---- onnxruntime -----------------------------------------------------------------------------
def _graph(model, kernels, abstracts, outs):
    """The FuncGraph of Lite kernels (mindlite primitives, weights as Parameters, inputs
    first as graph_for_export makes them) and its input tensor indices."""
    b = GraphBuilder(model, "lite_delegate", abstracts, getattr(kernels[0], "folded", None))
    for k in kernels:
        b.add(k.node)
    pairs = sorted(zip(b.fg.parameters, b.sources), key=lambda ps: ps[0].default is not None)
    b.fg.parameters = [p for p, _ in pairs]
    nodes = [b.env[t] for t in outs]
    b.fg.set_output(nodes[0] if len(nodes) == 1 else b.fg.new_cnode(
        [ValueNode(MAKE_TUPLE)] + nodes, tuple(n.abstract for n in nodes)))
    return b.fg, [src for p, src in pairs if p.default is None]


def _exportable(model, kernel, abstracts, opts=None):
    """Whether onnxruntime runs the kernel: its mindlite graph exports to ONNX (every
    primitive has a converter and every value it gives has an ONNX form: BatchNorm's single
    output in inference) and onnxruntime builds a session for it. Custom ops export too, but
    onnxruntime has no kernel for them, and control flow stays on mindlite: not claimed."""
    from ..onnx import _lib, export_onnx_model, exportable_primitives
    if not isinstance(kernel, LiteKernel) or kernel.arch != "CPU" or kernel.type == "Custom":
        return False                     # a Custom op's kernel is mindlite's, not ONNX's
    try:
        fg, _ = _graph(model, [kernel], abstracts, kernel.out_tensors)
    except ValueError:
        return False
    names = exportable_primitives()
    if not all(isinstance(n.inputs[0].value, IRPrim) or n.inputs[0].value.name in names
               for n in fg.order):
        return False
    try:
        proto = export_onnx_model(fg)
        ort = _lib.onnxruntime()
        ort.InferenceSession(proto.SerializeToString(), opts or ort.SessionOptions(),
                             providers=["CPUExecutionProvider"])
    except Exception:                    # any refusal: the kernel stays on mindlite
        return False
    return True


class OnnxRuntimeKernel(DelegateKernel):
    """Lite kernels exported to ONNX in memory (mindlite.onnx.export_onnx_model) and run by
    onnxruntime."""

    def __init__(self, model, kernels, out_tensors, abstracts, threads=0):
        from ..onnx import _lib, export_onnx_model
        ort = _lib.onnxruntime()
        fg, in_tensors = _graph(model, kernels, abstracts, out_tensors)
        super().__init__("OnnxRuntime", kernels, in_tensors, out_tensors)
        self.onnx_model = export_onnx_model(fg)
        opts = ort.SessionOptions()
        if threads:
            opts.intra_op_num_threads = threads
        self.session = ort.InferenceSession(self.onnx_model.SerializeToString(), opts,
                                            providers=["CPUExecutionProvider"])
        self.feeds = [i.name for i in self.session.get_inputs()]

    def execute(self, env, session=None):
        outs = self.session.run(None, {n: env[t].asnumpy() for n, t in
                                       zip(self.feeds, self.in_tensors)})
        for t, v in zip(self.out_tensors, outs):
            env[t] = Tensor(v)


class OnnxRuntimeDelegate(Delegate):
    """Runs every run of consecutive kernels onnxruntime can run (their mindlite graph
    exports to ONNX and onnxruntime builds it) in onnxruntime.
    `ops`: restrict the claim to these Lite op types; `threads`: onnxruntime's intra-op
    threads (0: its own default)."""

    def __init__(self, ops=None, threads=0):
        self.ops = None if ops is None else set(ops)
        self.threads = threads
        self.kernels = []                  # the kernels built, for inspection

    def claims(self, model, kernel):
        return (self.ops is None or kernel.type in self.ops) and \
            _exportable(model.model, kernel, model.abstracts)

    def build(self, model):
        answers = {}                       # this build's answer per kernel (builds may overlap)

        def claimed(k):
            if id(k) not in answers:
                answers[id(k)] = self.claims(model, k)
            return answers[id(k)]
        i = 0
        while i < len(model.kernels):
            if not claimed(model.kernels[i]):
                i += 1
                continue
            j = i
            while j < len(model.kernels) and claimed(model.kernels[j]):
                j += 1
            run = model.kernels[i:j]
            after = model.used_after(j)
            outs = [t for k in run for t in k.out_tensors if t in after]
            kernel = OnnxRuntimeKernel(model.model, run, outs, model.abstracts, self.threads)
            model.replace(i, j, kernel)
            self.kernels.append(kernel)
            i += 1
