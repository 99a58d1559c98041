"""Custom ops (ops.Custom) in MINDIR files, with MindSpore's attribute names.

MindSpore writes a Custom as a PRIMITIVE "Custom" whose attributes say where its function
lives: `func_type` ("pyfunc", "aot", ...), `func_name` (the function's name; for "aot" the
"path:function" of the library), `imply_path` (the Python file of a pyfunc); the output's
shape and dtype are the node's abstract. mindlite writes the same plus `type` (the Custom
type, MindSpore Lite's Custom.type) and `custom_attr:<name>` per attribute.

Reading rebuilds ops.Custom with the node's abstract as out_shape/out_dtype, its function
found, in this order, as: kernels registered for the type (`register_kernel(type,
custom=True)`: no function needed); the "aot" library path; a pyfunc/numba function named
func_name in an already imported module whose file is imply_path. Loading a model never
imports or executes Python code named by the file; an unresolvable Custom raises naming the
op, its type and what to register or import.
"""
import inspect
import os
import sys

from ...common.abstract import AbstractTensor
from ...kernels import registry
from ...ops.operations.custom_ops import Custom
from .values import MindIRFormatError

ATTR_PREFIX = "custom_attr:"


def encode_custom(prim):
    """The attributes a Custom is written with."""
    func, func_type = prim.func, prim.func_type
    attrs = {"func_type": func_type, "type": prim.custom_type, "multi_output": False,
             "primitive_target": "CPU"}
    if func_type == "aot":
        attrs["func_name"] = func or ""
    elif func is not None:
        attrs["func_name"] = getattr(func, "__name__", "")
        try:
            attrs["imply_path"] = inspect.getsourcefile(func) or ""
        except TypeError:
            attrs["imply_path"] = ""
    for name, value in prim.attr_values.items():
        attrs[ATTR_PREFIX + name] = value
    return attrs


def _loaded_function(path, name):
    real = os.path.realpath(path) if path else None
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if file and real and os.path.realpath(file) == real:
            fn = getattr(module, name, None)
            if callable(fn):
                return fn
    return None


def decode_custom(attrs, abstract):
    """ops.Custom from the file's attributes and the node's abstract."""
    func_type = attrs.get("func_type", "pyfunc")
    func_name = attrs.get("func_name", "")
    ctype = attrs.get("type") or (func_name.rsplit(":", 1)[-1] if func_name else None)
    custom_attrs = {k[len(ATTR_PREFIX):]: v for k, v in attrs.items()
                    if k.startswith(ATTR_PREFIX)}
    out_shape = out_dtype = None
    if isinstance(abstract, AbstractTensor) and all(d >= 0 for d in abstract.shape):
        out_shape, out_dtype = tuple(abstract.shape), abstract.dtype
    kwargs = dict(out_shape=out_shape, out_dtype=out_dtype, attrs=custom_attrs or None)
    if ctype and registry.KERNELS.get(f"Custom:{ctype}"):
        func = None
        func_type = func_type if func_type in ("pyfunc", "numba", "aot") else "pyfunc"
    elif func_type == "aot":
        func = func_name
    elif func_type in ("pyfunc", "numba"):
        func = _loaded_function(attrs.get("imply_path", ""), func_name)
        if func is None:
            raise MindIRFormatError(
                f"op 'Custom' (type {ctype!r}): its {func_type} function '{func_name}' from "
                f"{attrs.get('imply_path')!r} is not loaded: import its module before "
                f"loading, or register a kernel for Custom type {ctype!r}")
    else:
        raise MindIRFormatError(f"op 'Custom' (type {ctype!r}): func_type {func_type!r} is "
                                f"not supported on mindlite's CPU")
    try:
        return Custom(func, func_type=func_type, type=ctype, **kwargs)
    except (TypeError, ValueError) as e:
        raise MindIRFormatError(f"op 'Custom' (type {ctype!r}): {e}") from None
