"""ForwardExecutor: the first call of an op signature, in the five steps of MindSpore's PyNative.

    1. cast inputs          the primitive's signature: promotion of same-type inputs,
                            Python scalars converted (weakly typed), constants extracted
    2. forward node         a CNode(prim, input abstracts) for the grad recorder / graphs
    3. input abstracts      interned AbstractTensor per tensor input, values for constants
    4. output abstract      prim.infer, cached (LRU, INFER_CAP) by (prim, attrs, input
                            abstracts); a provider's
                            InferShape (register_kernel_interface) overrides it when that
                            provider's kernel is selected
    5. output               constant folding (infer gave a value), const prims (no tensor
                            input: computed once; not random ones, with a "seed" or
                            side_effect_hidden attribute), else the backend session by policy

Step 5 also builds the runner (pynative/runner.py) that every later call with the
same signature executes directly, and installs it in the primitive's runner cache.
"""
import numpy as np

from ..common import abstract
from ..cache_limits import LRUCache
from ..common.abstract import AbstractTensor
from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..context import CONTEXT
from ..common.signature import (K, L, S, T, _check_infer_result, _group_type,  # noqa: F401
                                _hashable, _scalar_py_type, check_no_inplace_cast,
                                const_value)
from ..ir.primitive import signature_key
from ..backend.session import session_factory
from ..kernels import registry
from . import runner as runner_mod

class CNode:
    """A forward node: the primitive applied to input abstracts (one op of a graph)."""
    __slots__ = ("prim", "inputs", "abstract")

    def __init__(self, prim, inputs):
        self.prim = prim
        self.inputs = inputs
        self.abstract = None

    def __repr__(self):
        return f"CNode({self.prim!r}, {list(self.inputs)!r}) -> {self.abstract!r}"


class OpRunInfo:
    """Everything known about one call while it walks the pipeline (FrontendOpRunInfo)."""

    def __init__(self, prim, args):
        self.prim = prim
        self.args = args
        self.key = signature_key(prim, args)
        self.kinds = []           # per input: T / S / L / K
        self.types = []           # per input: target Type (T, S) or tuple of Types (L)
        self.values = []          # per input: cast ndarray, list of ndarrays, or const value
        self.cnode = None
        self.input_abstracts = None
        self.output_abstract = None


class ForwardExecutor:
    def __init__(self, grad_executor):
        self.grad_executor = grad_executor
        self.infer_cache = LRUCache("INFER_CAP")
        registry.LISTENERS.append(self.infer_cache.clear)   # a new InferShape may apply

    def run_op(self, prim, args):
        info = OpRunInfo(prim, args)
        self._check_arity(info)
        self.cast_inputs(info)                       # 1
        info.cnode = CNode(prim, info.key)           # 2
        self.make_input_abstracts(info)              # 3
        self.infer_output_abstract(info)             # 4
        return self.get_output(info)                 # 5

    def prepare(self, prim, args, node=CNode):
        """Steps 1-4 of run_op without running anything: the OpRunInfo with its cast inputs,
        forward node (built by `node`: the jit lowering passes its own) and inferred output
        abstract, for the tools that look at a call (kernel selection, the profiler, the
        compiled runner's lowering). run_op keeps the steps inline: it is the eager hot path."""
        info = OpRunInfo(prim, args)
        self._check_arity(info)
        self.cast_inputs(info)
        info.cnode = node(prim, info.key)
        self.make_input_abstracts(info)
        self.infer_output_abstract(info)
        return info

    def _check_arity(self, info):
        names = info.prim.input_names
        if names is not None and len(info.args) != len(names):
            raise TypeError(f"For '{info.prim.name}', expected {len(names)} inputs "
                            f"({', '.join(names)}), but got {len(info.args)}")

    # 1 ------------------------------------------------------------------------------------
    def cast_inputs(self, info):
        prim, args = info.prim, info.args
        for i, a in enumerate(args):
            if i in prim.const_inputs:
                info.kinds.append(K)
                info.types.append(None)
                info.values.append(const_value(a))
            elif isinstance(a, Tensor):
                info.kinds.append(T)
                info.types.append(a._abs.dtype)
                info.values.append(a._arr)
            elif isinstance(a, (tuple, list)):
                info.kinds.append(L)
                arrs = [_as_array(prim, i, x) for x in a]
                info.types.append(tuple(mstype.from_numpy_dtype(x.dtype) for x in arrs))
                info.values.append(arrs)
            else:
                info.kinds.append(S)
                info.types.append(_scalar_py_type(prim, i, a))
                info.values.append(a)
        target = _group_type(info)
        for i, kind in enumerate(info.kinds):
            if kind == S:
                t = target if i in prim.same_type_inputs else mstype.scalar_type(info.types[i])
                info.types[i] = t
                info.values[i] = _scalar_array(prim, i, info.args[i], t)
            elif kind == T and i in prim.same_type_inputs and info.types[i] is not target:
                check_no_inplace_cast(prim, i, info.types[i], target)
                info.types[i] = target
                info.values[i] = info.values[i].astype(target.np)

    # 3 ------------------------------------------------------------------------------------
    def make_input_abstracts(self, info):
        out = []
        for kind, value in zip(info.kinds, info.values):
            if kind == K:
                out.append(value)
            elif kind == L:
                out.append(tuple(abstract.abstract_of_array(x) for x in value))
            else:
                out.append(abstract.abstract_of_array(value))
        info.input_abstracts = tuple(out)

    # 4 ------------------------------------------------------------------------------------
    def infer_output_abstract(self, info):
        prim = info.prim
        key = (type(prim), prim.name, prim.attrs_key, _infer_key(info.input_abstracts))
        out = self.infer_cache.get(key)
        if out is None:
            out = prim.infer(*info.input_abstracts)
            _check_infer_result(prim, out)
            self.infer_cache[key] = out
        if registry.INTERFACES:
            out = self._provider_infer(info, key, out)
        info.output_abstract = out
        info.cnode.abstract = out

    def _provider_infer(self, info, key, out):
        """A provider's InferShape (REGISTER_KERNEL_INTERFACE) replaces the primitive's result
        when that provider's kernel is the one selected; the primitive's own infer ran first
        and validated the inputs. Cached by the provider and its InferShape."""
        prim = info.prim
        table = registry.INTERFACES.get(getattr(prim, "kernel_key", None) or prim.name)
        if not table or not isinstance(out, (AbstractTensor, tuple)):
            return out
        info.output_abstract = out
        session = session_factory(CONTEXT.values["device_target"])
        kernel = session.select_kernel(info, CONTEXT.values["backend_policy"],
                                       CONTEXT.values["kernel_provider"])
        fn = table.get(kernel.provider)
        if fn is None:
            return out
        pkey = key + (kernel.provider, fn)
        result = self.infer_cache.get(pkey)
        if result is None:
            from ..ops.operations.custom_ops import interface_outputs
            attrs = dict(getattr(prim, "kernel_attrs", None) or prim.attrs)
            result = interface_outputs(getattr(prim, "label", prim.name), kernel.provider,
                                       fn(list(info.input_abstracts), attrs))
            self.infer_cache[pkey] = result
        return result

    # 5 ------------------------------------------------------------------------------------
    def get_output(self, info):
        prim, out_abs = info.prim, info.output_abstract
        if not isinstance(out_abs, (AbstractTensor, tuple)):
            run = runner_mod.constant_runner(out_abs.value)          # constant folding
        elif isinstance(out_abs, AbstractTensor) and out_abs.value is not None:
            run = runner_mod.constant_runner(out_abs.value)
        else:
            session = session_factory(CONTEXT.values["device_target"])
            graph = session.compile_op(info, CONTEXT.values["backend_policy"],
                                       CONTEXT.values["kernel_provider"])
            random = "seed" in prim.attrs or prim.attrs.get("side_effect_hidden")
            if all(k == K for k in info.kinds) and not prim.dynamic_shape and not random:
                outputs = session.run_op(graph, [])
                run = runner_mod.const_prim_runner(outputs, out_abs)  # const prim
            else:
                outputs = session.run_op(graph, _kernel_inputs(info))
                run = runner_mod.make_runner(info, graph, session.runtime, self.grad_executor)
                prim._runners[info.key] = run
                result = runner_mod.wrap_outputs(outputs, out_abs, prim.dynamic_shape)
                runner_mod.record(self.grad_executor, prim, info.args, result)
                return result
        prim._runners[info.key] = run
        return run(info.args)


def _kernel_inputs(info):
    return [v for kind, v in zip(info.kinds, info.values) if kind != K]


def _scalar_array(prim, i, value, t):
    try:
        return np.asarray(value, dtype=t.np)
    except OverflowError:
        raise ValueError(f"For '{prim.name}', the scalar input {i} ({value!r}) does not fit "
                         f"the dtype {t} it is converted to") from None


def _as_array(prim, i, x):
    if isinstance(x, Tensor):
        return x._data()
    if isinstance(x, (bool, int, float, np.generic)):
        return np.asarray(x, dtype=mstype.scalar_type(_scalar_py_type(prim, i, x)).np)
    raise TypeError(f"For '{prim.name}', the elements of input {i} must be Tensors, but got "
                    f"{type(x).__name__}")


def _infer_key(abstracts):
    return tuple(a if isinstance(a, AbstractTensor)
                 or (isinstance(a, tuple) and a and all(isinstance(x, AbstractTensor) for x in a))
                 else ("const", _hashable(a)) for a in abstracts)
