"""Delegates (MindSpore Lite's mindspore::Delegate): another engine runs part of the graph.

    class Delegate:        init() ; build(model: DelegateModel)
    DelegateModel          .kernels (the scheduled kernels, in order), get_primitive(kernel)
                           -> (op type, table fields), replace(start, end, kernel)
    OnnxRuntimeDelegate    claims the kernels it can express in ONNX, turns each run of
                           consecutive claimed kernels into one ONNX model (built in memory
                           with the `onnx` package from the Lite nodes) run by onnxruntime

Set one with `Context.delegate = OnnxRuntimeDelegate()`. The scheduler calls build() after
making the kernels and before grouping them; a delegate kernel is its own arch, so the
mindlite kernels around it form separate SubGraph kernels. A build() that raises leaves the
kernels as they were, with a RuntimeWarning (scheduler.py).
"""
import numpy as np

from ..common.tensor import Tensor
from . import schema as S
from .kernel import LiteKernel


class Delegate:
    """Base of delegates: override build(model) (and init())."""

    def init(self):
        return True

    def build(self, model):
        raise NotImplementedError(f"{type(self).__name__} defines no build(model)")


class DelegateModel:
    """The kernels of one subgraph, their tensors' abstracts, and the subgraph's outputs."""

    def __init__(self, model, kernels, abstracts, outputs=()):
        self.model, self.kernels, self.abstracts = model, list(kernels), abstracts
        self.outputs = list(outputs)

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
_ACT_ONNX = {1: "Relu", 2: "Sigmoid", 10: "Tanh"}
_BINARY = {"AddFusion": "Add", "SubFusion": "Sub", "MulFusion": "Mul", "DivFusion": "Div",
           "RealDiv": "Div", "Maximum": "Max", "Minimum": "Min"}
_UNARY = {"Neg": "Neg", "Log": "Log", "Sqrt": "Sqrt", "Abs": "Abs", "Floor": "Floor",
          "ExpFusion": "Exp", "Sin": "Sin", "Cos": "Cos"}


def _supported(kernel):
    t, a = kernel.type, kernel.node.attrs
    if not isinstance(kernel, LiteKernel) or kernel.arch != "CPU":
        return False
    act = a.get("activation_type", 0)
    if act and act not in _ACT_ONNX:
        return False
    if t == "Conv2DFusion":
        return a["pad_mode"] in (S.PAD_MODE["PAD"], S.PAD_MODE["VALID"]) and a["format"] == 0
    if t in ("MaxPoolFusion", "AvgPoolFusion"):
        return a["pad_mode"] == S.PAD_MODE["VALID"] and not a["global"]
    if t == "ExpFusion":
        return (a["base"], a["scale"], a["shift"]) == (-1.0, 1.0, 0.0)
    if t == "Softmax":
        return len(a["axis"] or [-1]) == 1
    return t in ("MatMulFusion", "Reshape", "Flatten", "BiasAdd", "Activation") or t in _BINARY \
        or t in _UNARY


class _OnnxBuilder:
    """Lite nodes -> ONNX nodes (opset 17)."""

    def __init__(self, model):
        from onnx import helper, numpy_helper
        self.h, self.nh, self.model = helper, numpy_helper, model
        self.nodes, self.inits, self.count, self.consts = [], [], 0, set()

    def name(self, t):
        """The ONNX name of tensor t; a constant becomes an initializer on first use."""
        n = f"t{t}"
        c = self.model.tensors[t].const
        if c is not None and n not in self.consts:
            self.consts.add(n)
            self.inits.append(self.nh.from_array(c.asnumpy(), n))
        return n

    def tmp(self):
        self.count += 1
        return f"tmp{self.count}"

    def add(self, op, ins, outs, **attrs):
        self.nodes.append(self.h.make_node(op, ins, outs, **attrs))

    def const(self, arr):
        n = self.tmp()
        self.inits.append(self.nh.from_array(np.asarray(arr), n))
        return n

    def act(self, node, value, out):
        act = node.attrs.get("activation_type", 0)
        if act:
            self.add(_ACT_ONNX[act], [value], [out])
        elif value != out:
            self.add("Identity", [value], [out])

    def node(self, node):
        t, a = node.op_type, node.attrs
        ins = [self.name(i) for i in node.inputs[:1 if t == "Reshape" else None]]
        out = self.name(node.outputs[0])
        mid = self.tmp() if a.get("activation_type", 0) else out
        if t == "Conv2DFusion":
            pads = list(a["pad_list"] or [0] * 4) if a["pad_mode"] == S.PAD_MODE["PAD"] else [0] * 4
            self.add("Conv", ins, [mid], kernel_shape=list(a["kernel_size"]),
                     strides=list(a["stride"]), dilations=list(a["dilation"]), group=a["group"],
                     pads=[pads[0], pads[2], pads[1], pads[3]])
        elif t == "MatMulFusion":
            self.add("Gemm", ins, [mid], transA=int(a["transpose_a"]),
                     transB=int(a["transpose_b"]))
        elif t in ("MaxPoolFusion", "AvgPoolFusion"):
            self.add("MaxPool" if t == "MaxPoolFusion" else "AveragePool", ins, [mid],
                     kernel_shape=list(a["kernel_size"]), strides=list(a["strides"]))
        elif t == "Reshape":
            shape = self.model.tensors[node.inputs[1]].const.asnumpy().astype(np.int64)
            self.add("Reshape", [ins[0], self.const(shape)], [out])
        elif t == "BiasAdd":
            rank = len(self.model.tensors[node.inputs[0]].dims)
            axes = self.const(np.arange(1, rank - 1, dtype=np.int64)) if rank > 2 \
                else None
            bias = ins[1]
            if axes is not None:
                bias = self.tmp()
                self.add("Unsqueeze", [ins[1], axes], [bias])
            self.add("Add", [ins[0], bias], [out])
        elif t == "Flatten":
            self.add("Flatten", ins, [out], axis=int(a["axis"]))
        elif t == "Activation":
            self.act(node, ins[0], out)
        elif t == "Softmax":
            self.add("Softmax", ins, [out], axis=int(a["axis"][0]) if a["axis"] else -1)
        elif t in _BINARY:
            self.add(_BINARY[t], ins, [mid])
        else:
            self.add(_UNARY[t], ins, [mid])
        if mid != out:
            self.act(node, mid, out)


class OnnxRuntimeKernel(DelegateKernel):
    def __init__(self, model, kernels, in_tensors, out_tensors, abstracts, threads=0):
        super().__init__("OnnxRuntime", kernels, in_tensors, out_tensors)
        import onnx
        import onnxruntime as ort
        b = _OnnxBuilder(model)
        for k in kernels:
            b.node(k.node)

        def info(t):
            a = abstracts[t]
            return b.h.make_tensor_value_info(b.name(t), b.h.np_dtype_to_tensor_dtype(
                np.dtype(a.np)), list(a.shape))
        graph = b.h.make_graph(b.nodes, "lite_delegate", [info(t) for t in in_tensors],
                               [info(t) for t in out_tensors], b.inits)
        proto = b.h.make_model(graph, opset_imports=[b.h.make_opsetid("", 17)])
        onnx.checker.check_model(proto)
        opts = ort.SessionOptions()
        if threads:
            opts.intra_op_num_threads = threads
        self.session = ort.InferenceSession(proto.SerializeToString(), opts,
                                            providers=["CPUExecutionProvider"])
        self.feeds = [b.name(t) for t in in_tensors]
        self.onnx_model = proto

    def execute(self, env, session=None):
        outs = self.session.run(None, {n: env[t].asnumpy() for n, t in
                                       zip(self.feeds, self.in_tensors)})
        for t, v in zip(self.out_tensors, outs):
            env[t] = Tensor(v)


class OnnxRuntimeDelegate(Delegate):
    """Runs every run of consecutive supported kernels in onnxruntime. `ops`: restrict the
    claim to these Lite op types; `threads`: onnxruntime's intra-op threads (0: its own)."""

    def __init__(self, ops=None, threads=0):
        self.ops = None if ops is None else set(ops)
        self.threads = threads
        self.kernels = []                  # the kernels built, for inspection

    def claims(self, kernel):
        return _supported(kernel) and (self.ops is None or kernel.type in self.ops)

    def build(self, model):
        i = 0
        while i < len(model.kernels):
            if not self.claims(model.kernels[i]):
                i += 1
                continue
            j = i
            while j < len(model.kernels) and self.claims(model.kernels[j]):
                j += 1
            run = model.kernels[i:j]
            produced = {t for k in run for t in k.out_tensors}
            ins = list(dict.fromkeys(t for k in run for t in k.runtime_inputs()
                                     if t not in produced))
            after = model.used_after(j)
            outs = [t for k in run for t in k.out_tensors if t in after]
            kernel = OnnxRuntimeKernel(model.model, run, ins, outs, model.abstracts,
                                       self.threads)
            model.replace(i, j, kernel)
            self.kernels.append(kernel)
            i += 1
