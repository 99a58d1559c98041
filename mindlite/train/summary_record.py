"""SummaryRecord (mindspore.train.SummaryRecord): writes scalars, tensors, histograms and images
to a summary file in MindSpore's format (summary_proto.py), the files MindInsight reads.

    with SummaryRecord("./summary") as record:
        record.add_value("scalar", "loss", loss)          # a one-element Tensor
        record.add_value("histogram", "fc.weight", w)     # any non-0-d Tensor
        record.record(step)                               # one Event holding the values added

The file is `{log_dir}/{prefix}.out.events.summary.{unix time}.{device id}.{host}{suffix}`
(device id: the rank under a multi-process communicator, else the context's device_id); it
starts with a version Event and holds one Event per record() with values. Values are packed
as MindSpore's _summary_adapter does: a scalar is the first element as float32, a tensor its
elements as float_data with dims and data_type, a histogram MindSpore's bucket count (1, 2, 3,
count // 10 + 1 up to 880 values, then 90) over [min, max] of the finite values with
nan/inf counts, an image batch (N, C, H, W) (C 1 or 3) tiled 8 a row into one RGB PNG,
scaled to 0..255 as MindSpore scales it. `export_options={"tensor_format": "npy"}` also saves
each tensor value as `export_{time}/tensor/{tag}_{step}.npy`.

Differences from MindSpore: events are written by the calling thread at record() (MindSpore
hands them to a writer process pool), and no graph, lineage or loss-landscape data is written
(add_value with those plugins raises; `network=` is accepted and no graph is written). Like
MindSpore, one SummaryRecord may be open per process; close() (or the `with` block) ends it.
"""
import atexit
import io
import os
import platform
import re
import threading
import time
import warnings
from urllib.parse import quote

import numpy as np

from ..common.tensor import Tensor

__all__ = ["SummaryRecord"]

_PLUGINS = ("tensor", "scalar", "image", "histogram")
_UNSUPPORTED = ("graph", "train_lineage", "eval_lineage", "dataset_graph",
                "custom_lineage_data", "landscape")
_NAME_RE = re.compile(r"^\w+[0-9a-zA-Z_.]*$", re.ASCII)
_LOCK = threading.Lock()


def _proto():
    """summary_proto (imports protobuf, so only when a summary is written: `import mindlite`
    stays light)."""
    from . import summary_proto
    return summary_proto


def make_directory(path, arg_name):
    if not isinstance(path, str) or not path.strip():
        raise TypeError(f"For 'SummaryRecord', '{arg_name}' must be a non-empty str, but got "
                        f"{path!r}")
    path = os.path.realpath(path)
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def _device_id():
    from ..communication.management import GlobalComm, get_group_size, get_rank
    if GlobalComm.INITED and get_group_size() > 1:
        return get_rank()
    from ..context import get_context
    return get_context("device_id")


def to_numpy(plugin, value):
    """The checked ndarray of a value for `plugin` (MindSpore's _check_to_numpy)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"For 'SummaryRecord', the parameter 'value' expect to be Tensor, but got "
                        f"{type(value).__name__}")
    arr = value.asnumpy().copy()
    if plugin == "scalar" and arr.size != 1:
        raise ValueError(f"For 'SummaryRecord', a scalar value must hold one element, but got "
                         f"shape {arr.shape}")
    if plugin == "image" and arr.ndim != 4:
        raise ValueError(f"For 'SummaryRecord', the tensor seems not to hold a valid image: an "
                         f"image value must be 4-d (N, C, H, W), but got shape {arr.shape}")
    if plugin in ("tensor", "histogram") and arr.ndim == 0:
        raise ValueError(f"For 'SummaryRecord', a {plugin} value should not be 0-d")
    if plugin != "image" and arr.dtype not in _proto().DATA_TYPES:
        raise TypeError(f"For 'SummaryRecord', a {plugin} value must be a bool, int, uint or "
                        f"float Tensor, but got {arr.dtype}")
    return arr


def _fill_tensor(arr, proto):
    proto.data_type = _proto().DATA_TYPES[arr.dtype]
    proto.float_data.extend(arr.reshape(-1).astype(np.float32).tolist())
    proto.dims.extend(arr.shape)


def _bins(count):
    if count <= 5:
        return 2 if count else 1
    if count <= 10:
        return 3
    return count // 10 + 1 if count <= 880 else 90


def _fill_histogram(arr, h):
    finite = np.isfinite(arr) if arr.dtype.kind in "fc" else np.ones(arr.shape, bool)
    valid = arr[finite]
    h.count = arr.size
    if arr.dtype.kind in "fc":
        h.nan_count = int(np.isnan(arr).sum())
        h.pos_inf_count = int(np.isposinf(arr).sum())
        h.neg_inf_count = int(np.isneginf(arr).sum())
    if valid.size == 0:
        warnings.warn(f"SummaryRecord: a histogram of {arr.size} values has no finite value",
                      stacklevel=4)
        return
    h.min, h.max = float(valid.min()), float(valid.max())
    h.sum = float(valid.sum(dtype=np.float64))
    first, last = h.min, h.max
    if not first < last:
        first, last = first - 0.5, last + 0.5
    edges = np.linspace(first, last, _bins(valid.size) + 1, dtype=arr.dtype)
    counts, edges = np.histogram(valid, bins=edges)
    for count, left, right in zip(counts, edges, edges[1:]):
        h.buckets.add(left=float(left), width=float(right - left), count=int(count))


def _fill_image(arr, image):
    """False (the value is dropped, as MindSpore) when it is no (N, 1 or 3, H, W) image."""
    if arr.shape[1] not in (1, 3) or 0 in arr.shape:
        warnings.warn(f"SummaryRecord: an image value must be (N, C, H, W) with C 1 or 3 and no "
                      f"zero dimension, but got shape {arr.shape}; it is not recorded",
                      stacklevel=4)
        return False
    try:
        from PIL import Image
    except ImportError as err:
        raise ImportError("SummaryRecord: image values are encoded as PNG with Pillow, which is "
                          "not installed (pip install pillow)") from err
    if arr.shape[1] == 1:
        arr = np.concatenate([arr] * 3, 1)
    n, _, h, w = arr.shape
    cols = min(n, 8)
    rows = -(-n // cols)
    canvas = np.zeros((3, h * rows, w * cols))
    for i in range(n):
        y, x = divmod(i, cols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = arr[i]
    hi, lo = canvas.max(), canvas.min()
    scale, shift = 1.0, 0.0
    if arr.dtype != np.uint8:
        if hi <= 1 and lo >= 0:
            scale = 255.0
        else:
            scale = 255 / (hi - lo + 1) if hi != lo else 1.0
            shift = lo
    pixels = ((canvas.transpose(1, 2, 0).astype(np.float32) - shift) * scale).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    image.height, image.width, image.colorspace = pixels.shape[0], pixels.shape[1], 3
    image.encoded_image = out.getvalue()
    return True


def package_event(pool, step, wall_time):
    """The serialized summary Event of the values in `pool` ({plugin: [(tag, ndarray)]})."""
    event = _proto().Event(wall_time=wall_time, step=int(step))
    summary = event.summary
    for plugin, values in pool.items():
        for tag, arr in values:
            value = summary.value.add(tag=tag)
            if plugin == "scalar":
                value.scalar_value = float(arr.reshape(-1)[0])
            elif plugin == "tensor":
                _fill_tensor(arr, value.tensor)
            elif plugin == "histogram":
                _fill_histogram(arr, value.histogram)
            elif not _fill_image(arr, value.image):
                del summary.value[-1]
    return event.SerializeToString()


class SummaryRecord:
    """SummaryRecord(log_dir, file_prefix="events", file_suffix="_MS", num_process=32,
    network=None, max_file_size=None, raise_exception=False, export_options=None)."""

    count = 0

    def __init__(self, log_dir, file_prefix="events", file_suffix="_MS", num_process=32,
                 network=None, max_file_size=None, raise_exception=False, export_options=None):
        with _LOCK:
            if SummaryRecord.count > 0:
                raise RuntimeError("For 'SummaryRecord', only one instance is supported in a "
                                   "training process; close the open one first")
            for name, value in (("file_prefix", file_prefix), ("file_suffix", file_suffix)):
                if not isinstance(value, str) or not _NAME_RE.match(value):
                    raise ValueError(f"For 'SummaryRecord', '{name}' must be a str of letters, "
                                     f"digits, '_' and '.', but got {value!r}")
            if max_file_size is not None and (isinstance(max_file_size, bool)
                                              or not isinstance(max_file_size, int)):
                raise TypeError(f"For 'SummaryRecord', 'max_file_size' must be an int or None, "
                                f"but got {type(max_file_size).__name__}")
            if not isinstance(raise_exception, bool):
                raise TypeError(f"For 'SummaryRecord', 'raise_exception' must be a bool, but got "
                                f"{type(raise_exception).__name__}")
            self._export = _check_export_options(export_options)
            log_path = make_directory(log_dir, "log_dir")
            stamp = str(int(time.time()))
            name = (f"{file_prefix}.out.events.summary.{stamp}.{_device_id()}."
                    f"{platform.node()}{file_suffix}")
            self.file_info = {"file_name": name, "file_path": os.path.join(log_path, name)}
            self._export_dir = os.path.join(log_path, f"export_{stamp}") if self._export else None
            self._budget = max_file_size if max_file_size is None or max_file_size >= 0 else None
            self.network, self.raise_exception = network, raise_exception
            self._mode, self._pool, self._closed, self._file = "train", {}, False, None
            self._warned_graph = False
            SummaryRecord.count += 1
        atexit.register(self.close)

    def __enter__(self):
        if self._closed:
            raise ValueError("For 'SummaryRecord', SummaryRecord has been closed, please check if "
                             "close() method is called")
        return self

    def __exit__(self, *err):
        self.close()

    @property
    def log_dir(self):
        """The path of the summary file."""
        return self.file_info["file_path"]

    def set_mode(self, mode):
        if mode not in ("train", "eval"):
            raise ValueError(f"For 'SummaryRecord.set_mode', {mode!r} is not a recognized mode, "
                             f"expect the parameter 'mode' is 'train' or 'eval'")
        self._mode = mode

    def add_value(self, plugin, name, value):
        """Queue `value` (a Tensor) under tag `name` for the next record()."""
        if plugin in _UNSUPPORTED:
            raise ValueError(f"For 'SummaryRecord.add_value', mindlite does not write the "
                             f"{plugin!r} plugin (only {list(_PLUGINS)})")
        if plugin not in _PLUGINS:
            raise ValueError(f"For 'SummaryRecord.add_value', no such 'plugin' of {plugin!r}, "
                             f"expect one of {list(_PLUGINS)}")
        if not name or not isinstance(name, str):
            raise ValueError(f"For 'SummaryRecord', the parameter 'name' must be a non-empty str, "
                             f"but got {name!r}")
        arr = to_numpy(plugin, value)
        values = self._pool.setdefault(plugin, [])
        if any(tag == name for tag, _ in values):
            warnings.warn(f"For 'SummaryRecord.add_value', '{name}/{plugin}' has duplicate "
                          f"values. Only the newest one will be recorded.", stacklevel=2)
            values[:] = [(tag, a) for tag, a in values if tag != name]
        values.append((name, arr))

    def record(self, step, train_network=None, plugin_filter=None):
        """Write the values added since the last record() as one Event at `step` (those whose
        plugin `plugin_filter(plugin)` accepts, when given). -> False once closed."""
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"For 'SummaryRecord.record', 'step' must be an int, but got "
                            f"{type(step).__name__}")
        from ..nn.cell import Cell
        if train_network is not None and not isinstance(train_network, Cell):
            raise TypeError(f"For 'SummaryRecord.record', 'train_network' must be a Cell or "
                            f"None, but got {type(train_network).__name__}")
        if self._closed:
            warnings.warn("For 'SummaryRecord', the record writer is closed", stacklevel=2)
            return False
        if self.network is not None and not self._warned_graph:
            warnings.warn("For 'SummaryRecord', mindlite writes no graph: 'network' is not "
                          "recorded", stacklevel=2)
            self._warned_graph = True
        pool, self._pool = self._pool, {}
        if plugin_filter is not None:
            pool = {k: v for k, v in pool.items() if plugin_filter(k)}
        if self._export and pool.get("tensor"):
            self._export_npy(pool["tensor"], step)
        if any(pool.values()):
            self._write(package_event(pool, step, time.time()))
        return True

    def flush(self):
        """Write buffered events to disk."""
        if self._closed:
            warnings.warn("For 'SummaryRecord', the record writer is closed and can not flush",
                          stacklevel=2)
        elif self._file is not None:
            self._file.flush()

    def close(self):
        """Flush and close the file (read-only afterwards, as MindSpore leaves it)."""
        with _LOCK:
            if self._closed:
                return
            self._closed = True
            SummaryRecord.count -= 1
        atexit.unregister(self.close)
        if self._file is not None:
            self._file.close()
            os.chmod(self.log_dir, 0o400)

    # ---- writing -----------------------------------------------------------------------
    def _write(self, payload):
        sp = _proto()
        data = sp.frame(payload)
        if self._file is None:            # the file starts with the version Event
            version = sp.Event(wall_time=time.time(), version="MindSpore.Event:1")
            data = sp.frame(version.SerializeToString()) + data
        if self._budget is not None:
            if self._budget < len(data):
                warnings.warn(f"SummaryRecord: 'max_file_size' reached: {self._budget} bytes "
                              f"remain, but the event needs {len(data)}; nothing more is "
                              f"written to {self.log_dir}", stacklevel=3)
                self._budget = -1
                return
            self._budget -= len(data)
        try:
            if self._file is None:
                self._file = open(self.log_dir, "wb")
            self._file.write(data)
        except OSError as err:
            if self.raise_exception:
                raise
            warnings.warn(f"SummaryRecord: writing {self.log_dir} failed: {err}", stacklevel=3)

    def _export_npy(self, values, step):
        path = os.path.join(self._export_dir, "tensor")
        os.makedirs(path, mode=0o700, exist_ok=True)
        for tag, arr in values:
            np.save(os.path.join(path, f"{quote(tag, safe='')}_{int(step)}.npy"), arr)


def _check_export_options(options):
    if options is None:
        return None
    if not isinstance(options, dict):
        raise TypeError(f"For 'SummaryRecord', 'export_options' must be a dict or None, but got "
                        f"{type(options).__name__}")
    for key, fmt in options.items():
        if key != "tensor_format":
            raise ValueError(f"For 'SummaryRecord', the key {key!r} of 'export_options' is "
                             f"unsupported, expect 'tensor_format'")
        if fmt not in ("npy", None):
            raise ValueError(f"For 'SummaryRecord', the export format {fmt!r} of "
                             f"'export_options' is unsupported, expect 'npy' or None")
    return options.get("tensor_format") == "npy"
