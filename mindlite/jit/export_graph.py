"""The FuncGraph a model file is written from: `graph_for_export(net_or_fn, *inputs)`.

Model files (MINDIR, ONNX, MindSpore Lite's .ms; train/serialization and lite/) hold
MindSpore's own primitives, so the graph is compiled by the usual front end and pipeline
(parse, inline, constant folding, simplification, CSE, DCE) but without mindlite's fusions
(FusedElemwise, FusedMatMulBiasAdd are mindlite kernels, not ops another runtime knows) and
without the registered user passes (those belong to the converter, lite/converter).

The result: `graph.parameters` are the inputs (default None, in the order given) followed by
the weights (default = the live Parameter; its `.name` is the checkpoint name);
`graph.output` is one node or a MakeTuple of them, constant results included (a function
returning `(x, 5)` has the output MakeTuple(x * .., ValueNode(5)): a model file's outputs are
all graph outputs, while @jit keeps constants outside its graphs); control flow the pipeline
could not fold stays as Switch + nested FuncGraphs (ValueNodes).
"""
from ..common.tensor import Tensor
from .passes.device import CPU_FUSIONS as FUSIONS   # the stages making mindlite-only kernels
from .api import JitFunction
from .passes.pipeline import skipping


def graph_for_export(net_or_fn, *inputs):
    """Compile `net_or_fn` (a Cell or a function of Tensors) for `inputs` (Tensors, or
    Tensor(shape=[None, ...]) placeholders for dynamic dims) into a fresh FuncGraph."""
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TypeError(f"export: input {i} must be a Tensor, got {type(x).__name__}")
    construct = getattr(type(net_or_fn), "construct", None)
    with skipping(*FUSIONS, user_passes=True):
        if construct is not None:              # a Cell: its construct with the cell as self
            return JitFunction(construct, const_outputs=True).graph(net_or_fn, *inputs)
        fn = getattr(net_or_fn, "fn", net_or_fn)   # a @jit function: the Python function
        if not callable(fn):
            raise TypeError(f"export: net must be a Cell or a function, got "
                            f"{type(net_or_fn).__name__}")
        return JitFunction(fn, const_outputs=True).graph(*inputs)
