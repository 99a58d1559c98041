"""load_param_into_net: copy a loaded checkpoint (name -> Parameter) into a network's
Parameters, checking every shape and dtype before assigning any (MindSpore's behaviour,
split from serialization.py). Net parameters that get no value are returned and named in a
UserWarning (MindSpore logs the same two warnings), so a checkpoint cut short between two
records, which still parses, shows when it is loaded into a network."""
import warnings

from ..common import dtype as mstype
from ..common.tensor import Tensor

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)
_SIGNED_INTS = (mstype.int8, mstype.int16, mstype.int32, mstype.int64)


class _ParamMismatchError(ValueError, RuntimeError):
    """A checkpoint value does not fit the network (MindSpore raises RuntimeError here)."""


def _checked_array(param, value, strict_load):
    """The array `param` will get from checkpoint `value`; raises before anything changes."""
    arr = value.asnumpy()
    if arr.shape != param.shape:
        extra = arr.shape[len(param.shape):]
        if arr.shape[:len(param.shape)] == param.shape and extra and all(d == 1 for d in extra):
            arr = arr.reshape(param.shape)      # (12, 2048, 1, 1) -> (12, 2048), as MindSpore
        else:
            raise _ParamMismatchError(
                f"For 'load_param_into_net', {param.name} in the argument 'net' should have the "
                f"same shape as {param.name} in the argument 'parameter_dict'. But got its shape "
                f"{param.shape} in the argument 'net' and shape {arr.shape} in the argument "
                "'parameter_dict'. The network is unchanged.")
    src = mstype.from_numpy_dtype(arr.dtype)
    if src is not param.dtype:
        same_kind = ({src, param.dtype} <= set(_FLOATS) or {src, param.dtype} <= set(_SIGNED_INTS))
        if strict_load or not same_kind:
            raise _ParamMismatchError(
                f"For 'load_param_into_net', {param.name} in the argument 'net' should have the "
                f"same type as {param.name} in the argument 'parameter_dict'. But got its type "
                f"{param.dtype} in the argument 'net' and type {src} in the argument "
                "'parameter_dict'. The network is unchanged.")
        arr = arr.astype(param.dtype.np)
    return arr


def _match_by_prefix(params, not_loaded, parameter_dict, used):
    """MindSpore's non-strict fallback: 'backbone.fc.w' in the file loads net param 'fc.w'."""
    plan = []
    while not_loaded:
        prefix = next((k[:-len(n)] for n in not_loaded for k, v in parameter_dict.items()
                       if k.endswith(n) and k not in used and isinstance(v, Tensor)), None)
        if prefix is None:
            break
        found = [n for n in not_loaded if prefix + n in parameter_dict
                 and prefix + n not in used and isinstance(parameter_dict[prefix + n], Tensor)]
        if not found:
            break
        for n in found:
            plan.append((params[n], prefix + n))
            used.add(prefix + n)
            not_loaded.remove(n)
    return plan


def load_param_into_net(net, parameter_dict, strict_load=False):
    """Copy `parameter_dict` (name -> Parameter/Tensor) into `net`'s parameters, by name.

    Returns (param_not_load, ckpt_not_load): the net's parameter names that got no
    value, and the dict's names that were not used; a non-empty param_not_load is also
    named in a UserWarning, as MindSpore logs it. Every shape and dtype is checked
    first; non-strict loading converts float<->float and int<->int and matches names
    that differ by a leading prefix. Values are assigned with Parameter.set_data.
    """
    return load_into_net(net, parameter_dict, strict_load, stacklevel=3)


def load_into_net(net, parameter_dict, strict_load, stacklevel):
    """load_param_into_net, warning at `stacklevel` (the user's call)."""
    from ..nn.cell import Cell
    if not isinstance(net, Cell):
        raise TypeError("For 'load_param_into_net', the argument 'net' should be a Cell, but "
                        f"got {type(net).__name__}")
    if not isinstance(parameter_dict, dict):
        raise TypeError("For 'load_param_into_net', the argument 'parameter_dict' should be a "
                        f"dict, but got {type(parameter_dict).__name__}")
    for k, v in parameter_dict.items():
        if not isinstance(k, str) or not isinstance(v, (Tensor, str)):
            raise TypeError("For 'load_param_into_net', the items of 'parameter_dict' should be "
                            f"str -> Parameter, but got {type(k).__name__} -> "
                            f"{type(v).__name__}")
    if not isinstance(strict_load, bool):
        raise TypeError("For 'load_param_into_net', 'strict_load' must be a bool, but got "
                        f"{strict_load!r}")
    params = {p.name: p for _, p in net.parameters_and_names()}
    plan, not_loaded, used = [], [], set()
    for name, param in params.items():
        value = parameter_dict.get(name)
        if value is None:
            not_loaded.append(name)
        elif isinstance(value, Tensor):        # a saved string is skipped, as MindSpore
            plan.append((param, name))
            used.add(name)
    if not_loaded and not strict_load:
        plan += _match_by_prefix(params, not_loaded, parameter_dict, used)
    arrays = [(param, _checked_array(param, parameter_dict[key], strict_load))
              for param, key in plan]
    for param, arr in arrays:
        param.set_data(arr)
    if not_loaded:
        warnings.warn(f"For 'load_param_into_net', {len(not_loaded)} parameters in the 'net' are "
                      "not loaded, because they are not in the 'parameter_dict' (a different "
                      "network structure, or a checkpoint cut short): "
                      f"{not_loaded} are not loaded.", UserWarning, stacklevel=stacklevel)
    return not_loaded, [k for k in parameter_dict if k not in used]
