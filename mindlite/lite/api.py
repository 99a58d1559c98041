"""The `mindspore_lite` Python API over mindlite's Lite runtime:

    ctx = Context(); ctx.target = ["cpu"]; ctx.cpu.thread_num = 2; ctx.delegate = ...
    model = Model(); model.build_from_file("m.ms", ModelType.MINDIR_LITE, ctx)
    inputs = model.get_inputs(); inputs[0].set_data_from_numpy(x)
    outputs = model.predict(inputs); outputs[0].get_data_to_numpy()
    model.resize(inputs, [[32, 1, 28, 28]])

`predict(inputs, before_callback=None, after_callback=None)`: the callbacks are MindSpore
Lite's KernelCallBack, called around every kernel with (input Tensors, output Tensors,
CallBackParam(node_name, node_type)). ModelType.MINDIR builds from a .mindir file: it is
loaded with mindlite.load and converted in memory (converter.py) first.
"""
import enum
import math

import numpy as np

from .. import _C
from ..common.tensor import Tensor as _MsTensor
from .session import LiteModel, LiteSession


class ModelType(enum.IntEnum):
    MINDIR = 0
    MINDIR_LITE = 4


class DataType(enum.IntEnum):
    """mindspore_lite.DataType: the numbers are MindSpore's TypeIds."""
    BOOL = 30
    INT8 = 32
    INT16 = 33
    INT32 = 34
    INT64 = 35
    UINT8 = 37
    FLOAT16 = 42
    FLOAT32 = 43
    FLOAT64 = 44


class CPUDeviceInfo:
    """Context.cpu: thread_num (0: mindlite's measured split; k: every parallel launch and
    BLAS call of a predict uses k threads), thread_affinity_mode (0 none, 1 big cores, 2
    little cores), thread_affinity_core_list, precision_mode. The affinity settings are
    checked and kept, not applied: mindlite's thread pool does not pin its threads."""

    def __init__(self):
        self.thread_num = 0
        self.thread_affinity_mode = 0
        self.thread_affinity_core_list = []
        self.precision_mode = "preferred_fp32"

    def __setattr__(self, name, value):
        if name == "thread_num" and (isinstance(value, bool) or not isinstance(value, int)
                                     or value < 0):
            raise TypeError(f"For 'Context.cpu', 'thread_num' must be an int >= 0, but got "
                            f"{value!r}")
        if name == "thread_affinity_mode" and value not in (0, 1, 2):
            raise ValueError(f"For 'Context.cpu', 'thread_affinity_mode' must be 0, 1 or 2, "
                             f"but got {value!r}")
        if name == "precision_mode" and value not in ("preferred_fp32", "force_fp32"):
            raise ValueError(f"For 'Context.cpu', 'precision_mode' must be 'preferred_fp32' or "
                             f"'force_fp32' on mindlite, but got {value!r}")
        object.__setattr__(self, name, value)


class Context:
    """mindspore_lite.Context: target (["cpu"]), cpu options, and a Delegate."""

    def __init__(self):
        self._target = ["cpu"]
        self.cpu = CPUDeviceInfo()
        self._delegate = None

    @property
    def delegate(self):
        return self._delegate

    @delegate.setter
    def delegate(self, value):
        if value is not None and not (callable(getattr(value, "build", None))
                                      and callable(getattr(value, "init", None))):
            raise TypeError(f"For 'Context', 'delegate' must be a mindlite.lite.Delegate (with "
                            f"init() and build(model)) or None, but got {value!r}")
        self._delegate = value

    @property
    def target(self):
        return list(self._target)

    @target.setter
    def target(self, value):
        if isinstance(value, str) or not isinstance(value, (list, tuple)) or not value:
            raise TypeError(f"For 'Context', 'target' must be a non-empty list of str, but got "
                            f"{value!r}")
        bad = [t for t in value if not isinstance(t, str) or t.lower() != "cpu"]
        if bad:
            raise ValueError(f"For 'Context', target {bad[0]!r} is not available: mindlite's "
                             "Lite runtime runs on 'cpu' (other engines: Context.delegate)")
        self._target = [t.lower() for t in value]


class Tensor:
    """mindspore_lite.Tensor: name, shape, dtype, data as numpy."""

    def __init__(self, tensor=None, name="", shape=None, dtype=None):
        self.name = name
        self._data = None
        if tensor is not None:
            arr = tensor.asnumpy() if isinstance(tensor, _MsTensor) else np.asarray(tensor)
            self._shape, self._dtype = list(arr.shape), arr.dtype
            self._data = np.ascontiguousarray(arr)
        else:
            self._shape = list(shape or [])
            self._dtype = np.dtype(dtype or np.float32)

    shape = property(lambda self: list(self._shape))
    dtype = property(lambda self: DataType(_type_id(self._dtype)))
    element_num = property(lambda self: math.prod(self._shape))
    data_size = property(lambda self: self.element_num * self._dtype.itemsize)

    def set_data_from_numpy(self, numpy_obj):
        if not isinstance(numpy_obj, np.ndarray):
            raise TypeError(f"For 'Tensor.set_data_from_numpy', 'numpy_obj' must be a numpy "
                            f"ndarray, but got {type(numpy_obj).__name__}")
        if numpy_obj.dtype == self._dtype and list(numpy_obj.shape) == self._shape:
            self._data = np.array(numpy_obj, order="C")     # the common case: same shape
            return
        if any(d < 0 for d in self._shape):
            raise ValueError(f"For 'Tensor.set_data_from_numpy' of {self.name!r}, the tensor has "
                             f"dynamic dims {self._shape}: call Model.resize first")
        if numpy_obj.dtype != self._dtype:
            raise TypeError(f"For 'Tensor.set_data_from_numpy' of {self.name!r}, the data type "
                            f"{numpy_obj.dtype} is not the tensor's {self._dtype}")
        if numpy_obj.nbytes != self.data_size:
            raise ValueError(f"For 'Tensor.set_data_from_numpy' of {self.name!r}, the data size "
                             f"{numpy_obj.nbytes} bytes (shape {list(numpy_obj.shape)}) is not "
                             f"the tensor's {self.data_size} (shape {self._shape})")
        self._data = np.array(numpy_obj, order="C").reshape(self._shape)    # a copy, as Lite

    @classmethod
    def _of(cls, arr, name):
        """A result Tensor over `arr` (owned by it: a model output's fresh buffer)."""
        t = cls.__new__(cls)
        t.name, t._data, t._shape, t._dtype = name, arr, list(arr.shape), arr.dtype
        return t

    def get_data_to_numpy(self):
        if self._data is None:
            raise ValueError(f"Tensor {self.name!r} has no data")
        return self._data

    def __repr__(self):
        return f"tensor_name: {self.name}, shape: {self._shape}, dtype: {self._dtype}"


def _type_id(dtype):
    from .schema import TYPE_ID
    return TYPE_ID[np.dtype(dtype)]


class Model:
    """mindspore_lite.Model: build_from_file, get_inputs, predict, resize, get_outputs."""

    def __init__(self):
        self._session = None
        self._inputs = []
        self._outputs = []

    def build_from_file(self, model_path, model_type, context=None, config_path=""):
        if not isinstance(model_path, str):
            raise TypeError(f"For 'Model.build_from_file', 'model_path' must be a str, but got "
                            f"{type(model_path).__name__}")
        if not isinstance(model_type, ModelType):
            raise TypeError(f"For 'Model.build_from_file', 'model_type' must be a ModelType, "
                            f"but got {model_type!r}")
        context = Context() if context is None else context
        if not isinstance(context, Context):
            raise TypeError(f"For 'Model.build_from_file', 'context' must be a Context, but got "
                            f"{type(context).__name__}")
        if model_type == ModelType.MINDIR:
            from .converter import load_model_file
            from .ms_file import write_ms
            from .ms_export import export_graph
            from .converter import run_passes
            graph = load_model_file("MINDIR", model_path)
            run_passes(graph, input_format="NCHW")   # MindSpore's layout, as Lite's MINDIR
            data = write_ms(export_graph(graph))
        else:
            with open(model_path, "rb") as f:
                data = f.read()
        self.build_from_buffer(data, context, model_path)

    def build_from_buffer(self, data, context=None, name="<buffer>"):
        model = LiteModel.construct_model(data, name)
        self._session = LiteSession(Context() if context is None else context)
        self._session.compile_graph(model)
        self._make_io()

    def _make_io(self):
        """Input/output Tensors with the scheduled shapes (before a dynamic model's resize:
        the file's dims, -1 for the dynamic ones)."""
        s = self._session
        m = s.model
        self._inputs = [Tensor(name=m.tensors[t].name, shape=dims, dtype=m.tensors[t].dtype)
                        for t, dims in zip(m.inputs, s.input_dims)]
        outs = [(list(a.shape), a.np) for a in s.main.out_abstracts] if s.main is not None \
            else [(m.tensors[t].dims, m.tensors[t].dtype) for t in m.outputs]
        self._outputs = [Tensor(name=m.tensors[t].name, shape=shape, dtype=dtype)
                         for t, (shape, dtype) in zip(m.outputs, outs)]

    def _check(self, what):
        if self._session is None:
            raise RuntimeError(f"For 'Model.{what}', build the model first (build_from_file)")

    def get_inputs(self):
        self._check("get_inputs")
        return list(self._inputs)

    def get_outputs(self):
        self._check("get_outputs")
        return list(self._outputs)

    def predict(self, inputs, outputs=None, before_callback=None, after_callback=None):
        self._check("predict")
        if not isinstance(inputs, (list, tuple)) or len(inputs) != len(self._inputs):
            raise TypeError(f"For 'Model.predict', 'inputs' must be a list of "
                            f"{len(self._inputs)} Tensors, but got {inputs!r}")
        args = []
        abstracts = self._session.input_abstracts if self._session.main is not None else ()
        for i, (x, want) in enumerate(zip(inputs, self._inputs)):
            if not isinstance(x, Tensor):
                raise TypeError(f"For 'Model.predict', input {i} must be a "
                                f"mindlite.lite.Tensor, but got {type(x).__name__}")
            if x._shape != want._shape or x._dtype != want._dtype or not abstracts:
                raise ValueError(f"For 'Model.predict', input {i} ({want.name!r}) must have "
                                 f"shape {want.shape} and dtype {want._dtype}, but got "
                                 f"{x.shape} {x._dtype}: call Model.resize for new shapes")
            data = x.get_data_to_numpy()
            args.append(_C.wrap(data, abstracts[i]) if data.flags.c_contiguous
                        else _MsTensor(data))
        outs = self._session.run_arrays(args, _wrap_callback(before_callback),
                                        _wrap_callback(after_callback))
        result = [Tensor._of(o, t.name) for t, o in zip(self._outputs, outs)]
        self._outputs = result
        return list(result)

    def resize(self, inputs, dims):
        self._check("resize")
        if not isinstance(dims, (list, tuple)) or len(dims) != len(self._inputs) or not all(
                isinstance(d, (list, tuple)) and all(isinstance(v, int) and v >= 0 for v in d)
                for d in dims):
            raise ValueError(f"For 'Model.resize', 'dims' must be {len(self._inputs)} lists of "
                             f"non-negative ints, but got {dims!r}")
        for x, d in zip(self._inputs, dims):
            if len(d) != len(x.shape):
                raise ValueError(f"For 'Model.resize', input {x.name!r} has rank "
                                 f"{len(x.shape)}, but got new shape {list(d)}")
        self._session.compile_graph(self._session.model, [list(d) for d in dims])
        self._make_io()
        for x, new in zip(inputs, self._inputs):
            if isinstance(x, Tensor):
                x._shape, x._data = list(new.shape), None


def _wrap_callback(cb):
    """Lite's KernelCallBack sees mindspore_lite Tensors."""
    if cb is None:
        return None

    def call(ins, outs, info):
        return cb([Tensor(t.asnumpy()) for t in ins if isinstance(t, _MsTensor)],
                  [Tensor(t.asnumpy()) for t in outs if isinstance(t, _MsTensor)], info)
    return call
