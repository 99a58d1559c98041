"""Parameter: a named, trainable Tensor; its data may be created lazily from an initializer.

As in MindSpore, `Parameter(initializer('normal', (3, 4)), name='w')` allocates
nothing until `init_data()`, which `Primitive.__call__` triggers the first time a
primitive sees the parameter (and nn.Cell / the optimizers call as needed).
"""
import numpy as np

from . import abstract
from . import dtype as mstype
from .tensor import Tensor


class Parameter(Tensor):
    """`Parameter(default_input, name=None, requires_grad=True, layerwise_parallel=False)`."""
    __slots__ = ("name", "requires_grad", "layerwise_parallel", "_inited_name")

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        from .initializer import Initializer
        if isinstance(default_input, Initializer):
            if default_input.shape is None or default_input.dtype is None:
                raise ValueError("For 'Parameter', an initializer used as default_input needs a "
                                 f"shape and dtype, but got {default_input!r}")
            self._set_lazy(default_input, default_input.dtype, default_input.shape)
        elif isinstance(default_input, Tensor):
            if default_input._arr is None:
                self._set_lazy(default_input._init, default_input.dtype, default_input.shape)
            else:
                self._arr = np.array(default_input._arr)
                self._abs = abstract.abstract_of_array(self._arr)
        elif isinstance(default_input, (np.ndarray, list, tuple, int, float, bool, np.generic)):
            Tensor.__init__(self, default_input)
        else:
            raise TypeError("For 'Parameter', 'default_input' must be a Tensor, Initializer, numpy "
                            f"array or number, but got {type(default_input).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"For 'Parameter', 'name' must be a str, but got {type(name).__name__}")
        if not isinstance(requires_grad, bool):
            raise TypeError("For 'Parameter', 'requires_grad' must be a bool, but got "
                            f"{type(requires_grad).__name__}")
        self.name = name if name is not None else "Parameter"
        self._inited_name = name is not None
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel

    @property
    def data(self):
        return self

    def set_data(self, data, slice_shape=False):
        """Replace the value in place, cast to the Parameter's dtype as MindSpore's (a new
        shape is a new signature: no stale runner). MindSpore's `slice_shape` marks a
        parameter sharded by auto-parallel; a shape change is accepted either way (as
        MindSpore 2.10's does), and mindlite shards nothing, so it changes nothing here."""
        if isinstance(data, Tensor) and data._arr is None:
            data.init_data()
        if self._arr is not None:
            arr = data.asnumpy() if isinstance(data, Tensor) else np.asarray(data)
            if arr.dtype != self._arr.dtype:
                if self.dtype in mstype.int_type and arr.dtype.kind == "f" and arr.ndim == 0 \
                        and not isinstance(data, Tensor):
                    raise TypeError(f"Incoming Parameter dtype can not be converted to current "
                                    f"dtype implicitly. Current dtype is {self.dtype}, and "
                                    f"incoming is Float32. Use .set_dtype(xxx) to change the "
                                    f"dtype.")
                data = arr.astype(self._arr.dtype)
        return self.assign_value(data)

    def clone(self, init="same"):
        """A new Parameter of the same name, shape and dtype: the same values for 'same', else
        set from `init` (an initializer name, a Tensor or a number), as MindSpore's."""
        if isinstance(init, str) and init == "same":
            return Parameter(Tensor(self._data()), name=self.name,
                             requires_grad=self.requires_grad)
        from .initializer import initializer
        return Parameter(initializer(init, self.shape, self.dtype), name=self.name,
                         requires_grad=self.requires_grad)

    def __repr__(self):
        return (f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    def __reduce__(self):
        return (_rebuild, (self._data(), self.name, self.requires_grad))


def _rebuild(arr, name, requires_grad):
    return Parameter(arr, name=name, requires_grad=requires_grad)


class ParameterTuple(tuple):
    """A tuple of Parameters (the `weights` argument of grad APIs)."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        for i, p in enumerate(items):
            if not isinstance(p, Parameter):
                raise TypeError(f"For 'ParameterTuple', element {i} must be a Parameter, but got "
                                f"{type(p).__name__}")
        return tuple.__new__(cls, items)

    def clone(self, prefix, init="same"):
        """The Parameters cloned (Parameter.clone(init)), named `prefix + '.' + name`."""
        if not isinstance(prefix, str) or not prefix:
            raise TypeError(f"For 'ParameterTuple.clone', 'prefix' must be a non-empty str, but "
                            f"got {prefix!r}")
        out = []
        for p in self:
            q = p.clone(init)
            q.name = f"{prefix}.{p.name}"
            out.append(q)
        return ParameterTuple(out)
