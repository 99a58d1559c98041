"""ORT: a graph-mode mindlite device plugin running graphs in onnxruntime.

Its GraphExecutor converts a FuncGraph (the whole graph, or each run of nodes it supports:
mindlite's GraphCompiler splits the rest off to CPU) to ONNX with
mindlite.onnx.export_onnx_model and compiles it into an onnxruntime InferenceSession: the
SuperKernel, called with the graph's parameters as host arrays. Eager ops on ORT run as
one-node graphs (compiled once per op signature). Registered through the entry point

    [project.entry-points."mindlite.devices"]
    ORT = "mindlite_ort_device:make_context"

so `ms.set_context(device_target="ORT")` finds it once the package is installed.
"""
import numpy as np

from mindlite.abstract import AbstractTensor
from mindlite.device import DeviceContext, DeviceResManager, GraphExecutor
from mindlite.ir.anf import ParameterNode, ValueNode

DTYPES = frozenset(map(np.dtype, (np.float32, np.float64, np.int32, np.int64, np.bool_)))
# stateful / random primitives never leave mindlite (ONNX graphs are pure functions)
NEVER = frozenset(("Assign", "AssignAdd", "AssignSub", "Dropout", "BatchNorm", "Print",
                   "Custom", "ApplyMomentum", "SGD", "Adam", "ApplyAdam"))


class OrtResManager(DeviceResManager):
    """onnxruntime's CPU execution provider reads and writes host memory: blocks are
    ndarrays kept by address; copies are memcpy."""

    def __init__(self, device):
        super().__init__(device)
        self.blocks = {}

    def allocate(self, nbytes):
        buf = np.empty(nbytes, np.uint8)
        self.blocks[buf.ctypes.data] = buf
        return buf.ctypes.data

    def free(self, ptr):
        self.blocks.pop(ptr)

    def _block(self, addr):
        return self.blocks[addr.ptr][:addr.nbytes].view(addr.dtype).reshape(addr.shape)

    def copy_host_to_device(self, addr, array):
        np.copyto(self._block(addr), np.asarray(array, addr.dtype).reshape(addr.shape))

    def copy_device_to_host(self, array, addr):
        np.copyto(array, self._block(addr))


class SuperKernel:
    """One compiled ONNX graph: call with the host arrays of the graph's parameters."""

    def __init__(self, session, graph_name):
        self.session = session
        self.inputs = [i.name for i in session.get_inputs()]
        self.name = f"ORT:{graph_name}"

    def __call__(self, arrays):
        feeds = {n: np.ascontiguousarray(a) for n, a in zip(self.inputs, arrays)}
        return self.session.run(None, feeds)


class OrtGraphExecutor(GraphExecutor):
    def __init__(self, device, threads=1):
        super().__init__(device)
        self.threads = threads

    def supports(self, node):
        from mindlite.onnx.export import CONVERTERS
        from mindlite.onnx import export_ops, export_ops_array  # noqa: F401  (registers)
        prim = node.inputs[0].value
        name = getattr(prim, "name", None)
        if name not in CONVERTERS or name in NEVER or getattr(prim, "state_inputs", ()):
            return False
        out = node.abstract
        if not isinstance(out, AbstractTensor) or np.dtype(out.np) not in DTYPES \
                or out.is_dynamic:
            return False
        for i in node.inputs[1:]:
            if isinstance(i, ValueNode):
                continue
            a = i.abstract
            if not isinstance(a, AbstractTensor) or np.dtype(a.np) not in DTYPES:
                return False
            if not isinstance(i, ParameterNode) and not hasattr(i, "inputs"):
                return False
        return True

    def compile_graph(self, graph):
        import onnxruntime as ort
        from mindlite.onnx import export_onnx_model
        model = export_onnx_model(graph)
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3            # errors only
        # EliminateIdentity is off: onnxruntime 1.32's pass breaks graphs where a value feeds
        # both a later node and an output's Identity (the graph then fails to load)
        session = ort.InferenceSession(model.SerializeToString(), options,
                                       providers=["CPUExecutionProvider"],
                                       disabled_optimizers=["EliminateIdentity"])
        return SuperKernel(session, graph.name)


def make_context(device_id=0):
    """The factory the entry point names: the ORT DeviceContext (graph mode)."""
    import onnxruntime  # noqa: F401  (fail here, naming the plugin, if it is missing)
    if device_id != 0:
        raise ValueError(f"ORT has one device (id 0), got id {device_id}")
    return DeviceContext("ORT", device_id, OrtResManager("ORT"),
                         graph_executor=OrtGraphExecutor("ORT"), plugin="ORT (mindlite-ort-device)")
