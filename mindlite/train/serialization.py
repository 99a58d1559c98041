"""Checkpoints in MindSpore's .ckpt format: save_checkpoint, load_checkpoint, load_param_into_net.

A file written here loads in MindSpore 2.x and the other way round: the same
protobuf records (train/_ckpt_proto.py), the same `tensor_type` names
("Float32", "UInt8", "Bool", ...), 512 MiB slices for large tensors, strings from
`append_dict` stored as type "str", and MindSpore's optional CRC-32 trailer; for
the same values the bytes are identical to MindSpore 2.10's. As MindSpore, tensors
with no elements are not written (its loader would read a shape-(0,) record as a
scalar). Differences, all on the safe side:

- a save is atomic: the file is written to a temporary file in the same folder,
  fsync'ed and renamed over the target, so a crash mid-save leaves the previous
  checkpoint intact;
- a load checks every record (field layout, data size against dims * itemsize,
  slices, duplicate names) and raises ValueError naming the file for anything
  damaged, truncated or not a checkpoint; a CRC trailer, when present, is always
  verified;
- load_param_into_net checks every shape and dtype before it assigns any, so a
  mismatch raises (ValueError, also a RuntimeError as in MindSpore) and leaves the
  network unchanged.

NOTE: the format has no record count, so a file cut exactly between two records (or just
before the CRC trailer) parses as a shorter checkpoint; only the CRC trailer of a file saved
with crc_check=True (its absence warns under crc_check=True) or a net to load into can tell.
Net parameters left without a value are named in a UserWarning, also through
load_checkpoint(path, net=net) (MindSpore logs the same warning; its return value, the dict,
is kept).
"""
import math
import os
import sys
import warnings

import numpy as np

from ..common import dtype as mstype
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from .param_loading import load_into_net, load_param_into_net
# MindSpore's mindspore.train.serialization also holds the model-file API (code imports it
# from here): export_api imports nothing of this module's until a call
from .export_api import export, load  # noqa: F401

__all__ = ["load_checkpoint", "load_param_into_net", "save_checkpoint"]

_TYPE_NAMES = {mstype.bool_: "Bool", mstype.int8: "Int8", mstype.int16: "Int16",
               mstype.int32: "Int32", mstype.int64: "Int64", mstype.uint8: "UInt8",
               mstype.uint16: "UInt16", mstype.uint32: "UInt32", mstype.uint64: "UInt64",
               mstype.float16: "Float16", mstype.float32: "Float32", mstype.float64: "Float64",
               mstype.complex64: "Complex64", mstype.complex128: "Complex128"}
_TYPES_BY_NAME = {name: t for t, name in _TYPE_NAMES.items()}
_TYPE_NAMES[mstype.bfloat16] = "BFloat16"   # loaded with ml_dtypes as bfloat16, else float32


def _proto():
    from . import _ckpt_proto
    return _ckpt_proto


# ---- save ------------------------------------------------------------------------------------
def _save_items(save_obj):
    from ..nn.cell import Cell
    if isinstance(save_obj, Cell):
        return [(p.name, p) for _, p in save_obj.parameters_and_names()]
    if isinstance(save_obj, dict):
        for k in save_obj:
            if not isinstance(k, str):
                raise TypeError("For 'save_checkpoint', the keys of a dict 'save_obj' must be "
                                f"str, but got {type(k).__name__}")
        return list(save_obj.items())
    if isinstance(save_obj, list):
        items = []
        for i, e in enumerate(save_obj):
            if isinstance(e, Parameter):
                items.append((e.name, e))
            elif isinstance(e, dict) and "name" in e and "data" in e:
                if not isinstance(e["name"], str):
                    raise TypeError(f"For 'save_checkpoint', save_obj[{i}]['name'] must be a "
                                    f"str, but got {type(e['name']).__name__}")
                items.append((e["name"], e["data"]))
            else:
                raise TypeError("For 'save_checkpoint', a list 'save_obj' must hold Parameters "
                                "or dicts {'name': str, 'data': Tensor}, but element "
                                f"{i} is {type(e).__name__}")
        return items
    raise TypeError("For 'save_checkpoint', 'save_obj' must be a Cell, a list or a dict, but got "
                    f"{type(save_obj).__name__}")


def _record(name, value, from_append_dict=False):
    """-> (name, tensor_type, dims, raw little-endian bytes as a uint8 array or bytes)."""
    if isinstance(value, str):
        arr = np.array(value)
        return name, "str", [0], arr.astype(arr.dtype.newbyteorder("<")).tobytes()
    if isinstance(value, Tensor):
        arr = value.asnumpy()
    elif isinstance(value, np.ndarray):
        arr = value
    elif from_append_dict and isinstance(value, (bool, int, float)):
        arr = Tensor(value).asnumpy()
    else:
        raise TypeError(f"For 'save_checkpoint', the value of '{name}' must be a Tensor, "
                        f"Parameter, numpy array or str, but got {type(value).__name__}")
    try:
        type_name = _TYPE_NAMES[mstype.from_numpy_dtype(arr.dtype)]
    except TypeError:
        raise TypeError(f"For 'save_checkpoint', '{name}' has dtype {arr.dtype}, which a "
                        "checkpoint cannot hold") from None
    arr = np.asarray(arr, dtype=arr.dtype.newbyteorder("<"), order="C")
    return name, type_name, list(arr.shape), arr.reshape(-1).view(np.uint8)


def _atomic_write(path, records, crc_check):
    folder = os.path.dirname(path) or "."
    import uuid
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{uuid.uuid4().hex}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                     0o666)
    except OSError as e:                    # name the target, not the hidden temporary file
        raise type(e)(e.errno, f"For 'save_checkpoint', cannot write the checkpoint file "
                      f"({e.strerror})", path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            _proto().write_records(f, records, crc_check)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if hasattr(os, "O_DIRECTORY"):          # make the rename itself durable (POSIX)
        try:
            dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            os.fsync(dfd)
        except OSError:
            pass
        finally:
            os.close(dfd)


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, *, append_dict=None,
                    choice_func=None, crc_check=False):
    """Save `save_obj` (a Cell, a list of Parameters or {"name", "data"} dicts, or a dict
    name -> Tensor/Parameter/ndarray/str) to `ckpt_file_name` (".ckpt" appended if missing).

    `append_dict` adds entries (int, float, bool, str, Tensor); `choice_func(name)` keeps
    the names it returns True for; `crc_check=True` appends MindSpore's CRC-32 trailer
    (read by MindSpore >= 2.3). `integrated_save` only matters for parallel training;
    on one device every parameter is saved whole. The write is atomic.
    """
    if not isinstance(ckpt_file_name, str):
        raise TypeError("For 'save_checkpoint', 'ckpt_file_name' must be a str, but got "
                        f"{type(ckpt_file_name).__name__}")
    for arg, v in (("integrated_save", integrated_save), ("crc_check", crc_check)):
        if not isinstance(v, bool):
            raise TypeError(f"For 'save_checkpoint', '{arg}' must be a bool, but got {v!r}")
    if choice_func is not None and not callable(choice_func):
        raise TypeError("For 'save_checkpoint', 'choice_func' must be callable or None, but got "
                        f"{type(choice_func).__name__}")
    path = os.path.realpath(ckpt_file_name)
    if os.path.isdir(path):
        raise IsADirectoryError(f"For 'save_checkpoint', 'ckpt_file_name' {path} is a "
                                "directory; it must be a file name")
    if not path.endswith(".ckpt"):
        path += ".ckpt"
    items = [(n, v, False) for n, v in _save_items(save_obj)]
    if append_dict is not None:
        if not isinstance(append_dict, dict) or not all(isinstance(k, str) for k in append_dict):
            raise TypeError("For 'save_checkpoint', 'append_dict' must be a dict with str keys, "
                            f"but got {append_dict!r}")
        items += [(n, v, True) for n, v in append_dict.items()]
    if choice_func is not None:
        items = [it for it in items if choice_func(it[0])]
    seen = set()
    for name, _, _ in items:
        if name in seen:
            raise ValueError(f"For 'save_checkpoint', the name '{name}' occurs twice; "
                             "checkpoint names must be unique")
        seen.add(name)
    records = [r for r in (_record(n, v, extra) for n, v, extra in items)
               if r[1] == "str" or len(r[3])]
    _atomic_write(path, records, crc_check)


# ---- load ------------------------------------------------------------------------------------
def _fail(path, detail):
    raise _proto().CheckpointFormatError(
        f"Failed to read the checkpoint file {path}: {detail}. The file may be damaged, "
        "truncated or not a MindSpore checkpoint.")


def _check_prefix(arg, prefix):
    if prefix is None:
        return ()
    prefix = (prefix,) if isinstance(prefix, str) else prefix
    if not isinstance(prefix, (list, tuple)) or not prefix or not all(
            isinstance(p, str) and p for p in prefix):
        raise TypeError(f"For 'load_checkpoint', '{arg}' must be a non-empty str or a non-empty "
                        f"list/tuple of non-empty str, but got {prefix!r}")
    return tuple(prefix)


def _values(path, body):
    proto = _proto()
    it = proto.iter_values(body)
    while True:
        try:
            item = next(it)
        except StopIteration:
            return
        except proto.CheckpointFormatError as e:
            _fail(path, str(e))
        yield item


def _group_values(path, body):
    """-> [[tag, tensor_type, dims, [content pieces]]], consecutive slices merged."""
    groups, seen = [], set()
    for start, v in _values(path, body):
        if not v.HasField("tag"):
            _fail(path, f"the record at byte {start} has no name (tag)")
        kind = v.WhichOneof("value")
        if kind == "maptensor":
            raise ValueError(f"For 'load_checkpoint', '{v.tag}' in {path} is a MapParameter "
                             "(maptensor), which mindlite does not support")
        if kind is None or not v.tensor.HasField("tensor_type"):
            _fail(path, f"the record of '{v.tag}' at byte {start} has no tensor type")
        t = v.tensor
        dims = list(t.dims)
        if groups and groups[-1][0] == v.tag:
            if groups[-1][1] != t.tensor_type or groups[-1][2] != dims:
                _fail(path, f"the slices of '{v.tag}' disagree on shape or type")
            groups[-1][3].append(t.tensor_content)
            continue
        if v.tag in seen:
            _fail(path, f"the name '{v.tag}' occurs twice")
        seen.add(v.tag)
        groups.append([v.tag, t.tensor_type, dims, [t.tensor_content]])
    return groups


def _decode(path, tag, type_name, dims, pieces):
    content = pieces[0] if len(pieces) == 1 else b"".join(pieces)
    if type_name == "str":
        if len(content) % 4:
            _fail(path, f"the string '{tag}' has {len(content)} bytes, not a multiple of 4")
        n = len(content) // 4
        return str(np.frombuffer(content, f"<U{n}")[0]) if n else ""
    if type_name == "BFloat16":
        # NOTE: read as the raw 16 bits; bfloat16 with ml_dtypes, else exact float32 values
        np_dtype, itemsize = np.dtype("<u2"), 2
    elif type_name in _TYPES_BY_NAME:
        np_dtype = _TYPES_BY_NAME[type_name].np.newbyteorder("<")
        itemsize = np_dtype.itemsize
    else:
        raise ValueError(f"For 'load_checkpoint', '{tag}' in {path} has tensor type "
                         f"'{type_name}', which mindlite does not support (supported: "
                         f"{', '.join(sorted(_TYPES_BY_NAME))}, BFloat16, str)")
    if any(d < 0 for d in dims):
        _fail(path, f"'{tag}' has a negative dimension in its shape {dims}")
    shape = tuple(dims)
    if shape == (0,) and len(content) == itemsize:
        shape = ()                      # MindSpore 1.x wrote dims [0] for a scalar
    need = math.prod(shape) * itemsize
    if len(content) != need:
        _fail(path, f"'{tag}' holds {len(content)} bytes of data, but its shape {list(shape)} "
                    f"and type {type_name} need {need}")
    if type_name == "Bool":
        arr = np.frombuffer(content, np.uint8) != 0
    else:
        arr = np.frombuffer(content, np_dtype)
        if type_name == "BFloat16":
            arr = arr.astype(np.uint16).view(mstype.bfloat16.np) \
                if mstype.bfloat16.np is not None else \
                (arr.astype(np.uint32) << 16).view(np.float32)
        elif sys.byteorder != "little":
            arr = arr.astype(np_dtype.newbyteorder("="))
    return Parameter(arr.reshape(shape), name=tag)


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, *,
                    specify_prefix=None, choice_func=None, crc_check=False):
    """Read a MindSpore .ckpt file -> dict name -> Parameter (str for saved strings).

    `specify_prefix` keeps only names starting with it, `filter_prefix` drops them,
    `choice_func(name)` keeps names it returns True for (ignored when a prefix is
    given, as MindSpore). With `net`, the values are loaded into it
    (load_param_into_net). A CRC trailer, if present, is verified; `crc_check=True`
    also warns when the file has none.
    """
    if not isinstance(ckpt_file_name, str):
        raise TypeError("For 'load_checkpoint', 'ckpt_file_name' must be a str, but got "
                        f"{type(ckpt_file_name).__name__}")
    if not ckpt_file_name.endswith(".ckpt"):
        raise ValueError("For 'load_checkpoint', the checkpoint file should end with '.ckpt', "
                         f"but got {ckpt_file_name!r}")
    path = os.path.realpath(ckpt_file_name)
    if not os.path.isfile(path):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file {path} does not exist")
    if not isinstance(crc_check, bool):
        raise TypeError(f"For 'load_checkpoint', 'crc_check' must be a bool, but got {crc_check!r}")
    specify, filt = _check_prefix("specify_prefix", specify_prefix), _check_prefix(
        "filter_prefix", filter_prefix)
    if choice_func is not None and not callable(choice_func):
        raise TypeError("For 'load_checkpoint', 'choice_func' must be callable or None, but got "
                        f"{type(choice_func).__name__}")
    with open(path, "rb") as f:
        data = f.read()
    proto = _proto()
    body, stored = proto.split_crc(memoryview(data))
    if stored is not None and proto.crc32(body) != stored:
        _fail(path, "its CRC-32 check failed")
    if stored is None and crc_check:
        warnings.warn(f"For 'load_checkpoint', {path} has no CRC code to check", stacklevel=2)
    groups = _group_values(path, body)
    if not groups:
        _fail(path, "it holds no parameters")
    result = {}
    for tag, type_name, dims, pieces in groups:
        if specify and not tag.startswith(specify):
            continue
        if filt and tag.startswith(filt):
            continue
        if not specify and not filt and choice_func is not None and not choice_func(tag):
            continue
        result[tag] = _decode(path, tag, type_name, dims, pieces)
    if not result:
        raise ValueError(f"For 'load_checkpoint', no parameter of {path} is left after the "
                         "filter; check 'specify_prefix', 'filter_prefix' and 'choice_func'")
    if net is not None:
        load_into_net(net, result, strict_load, stacklevel=3)
    return result

