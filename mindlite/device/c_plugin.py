"""Loading a kernel-mode device plugin written in C/C++ (device/include/mindlite_device.h).

load_library(path) -> (device name, factory): the library is opened with ctypes, every
required entry point checked (a missing one is a PluginError naming the library and the
symbol), the ABI version compared, and a factory returned that builds a DeviceContext of
  CResManager       allocate/free and the two copies through the library (its allocator),
                    the common DevicePool on top
  CKernelExecutor   kernels the library lists; select_kernel asks mindlite_device_supports
                    with the node's shapes/dtypes/params (None: the node goes to CPU);
                    launch passes mindlite_tensor arrays of device addresses
A failing call raises PluginError naming the plugin, the op and the library's own message.
"""
import ctypes
import os
import threading

import numpy as np

from .base import DeviceContext, DeviceKernel, DeviceResManager, KernelExecutor, PluginError

ABI_VERSION = 1
DTYPE_CODES = {np.dtype(np.bool_): 0, np.dtype(np.int8): 1, np.dtype(np.uint8): 2,
               np.dtype(np.int16): 3, np.dtype(np.int32): 4, np.dtype(np.int64): 5,
               np.dtype(np.float16): 6, np.dtype(np.float32): 7, np.dtype(np.float64): 8}


class CTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


class CAttr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_double)]


_P = ctypes.c_void_p
_TENSORS = ctypes.POINTER(CTensor)
_ATTRS = ctypes.POINTER(CAttr)
_INT = ctypes.c_int
REQUIRED = {
    "mindlite_device_abi_version": (_INT, []),
    "mindlite_device_name": (ctypes.c_char_p, []),
    "mindlite_device_init": (_INT, [_INT]),
    "mindlite_device_alloc": (_P, [ctypes.c_size_t]),
    "mindlite_device_free": (_INT, [_P]),
    "mindlite_device_copy_h2d": (_INT, [_P, _P, ctypes.c_size_t]),
    "mindlite_device_copy_d2h": (_INT, [_P, _P, ctypes.c_size_t]),
    "mindlite_device_kernel_count": (_INT, []),
    "mindlite_device_kernel_name": (ctypes.c_char_p, [_INT]),
    "mindlite_device_supports": (_INT, [ctypes.c_char_p, _TENSORS, _INT, _TENSORS, _INT,
                                        _ATTRS, _INT]),
    "mindlite_device_launch": (_INT, [ctypes.c_char_p, _TENSORS, _INT, _TENSORS, _INT,
                                      _ATTRS, _INT]),
    "mindlite_device_last_error": (ctypes.c_char_p, []),
}
OPTIONAL = {"mindlite_device_sync": (_INT, [])}


class _Library:
    """The opened library with typed entry points; `plugin` names it in errors."""

    def __init__(self, path):
        self.path = path
        base = os.path.basename(path)
        try:
            lib = ctypes.CDLL(os.path.abspath(path))
        except OSError as err:
            raise PluginError(f"Device plugin library '{path}' failed to load: {err}") from None
        for sym, (res, args) in list(REQUIRED.items()) + list(OPTIONAL.items()):
            fn = getattr(lib, sym, None)
            if fn is None:
                if sym in REQUIRED:
                    raise PluginError(f"Device plugin library '{path}' lacks the required entry "
                                      f"point '{sym}' (see mindlite_device.h)")
                setattr(self, sym[len("mindlite_device_"):], None)
                continue
            fn.restype, fn.argtypes = res, args
            setattr(self, sym[len("mindlite_device_"):], fn)
        version = self.abi_version()
        if version != ABI_VERSION:
            raise PluginError(f"Device plugin library '{path}' has ABI version {version}, "
                              f"mindlite expects {ABI_VERSION}")
        raw = self.name()
        if not raw:
            raise PluginError(f"Device plugin library '{path}' returned no device name")
        self.device = raw.decode()
        self.plugin = f"{self.device} ({base})"
        self.kernels = frozenset(self.kernel_name(i).decode()
                                 for i in range(self.kernel_count()))
        self.lock = threading.Lock()

    def check(self, rc, what):
        if rc != 0:
            msg = (self.last_error() or b"").decode(errors="replace")
            raise PluginError(f"Device plugin '{self.plugin}' failed {what}: {msg or rc}")


class CResManager(DeviceResManager):
    def __init__(self, lib, device):
        self.lib = lib
        super().__init__(device)

    def allocate(self, nbytes):
        ptr = self.lib.alloc(nbytes)
        if not ptr:
            raise PluginError(f"Device plugin '{self.lib.plugin}' could not allocate {nbytes} "
                              f"bytes: {(self.lib.last_error() or b'').decode()}")
        return ptr

    def free(self, ptr):
        self.lib.check(self.lib.free(ptr), "to free memory")

    def copy_host_to_device(self, addr, array):
        array = np.ascontiguousarray(array, addr.dtype)
        if array.nbytes != addr.nbytes:
            raise ValueError(f"copy to {self.device}: {array.nbytes} bytes into an address of "
                             f"{addr.nbytes}")
        self.lib.check(self.lib.copy_h2d(addr.ptr, array.ctypes.data, addr.nbytes),
                       "a host-to-device copy")

    def copy_device_to_host(self, array, addr):
        if not array.flags.c_contiguous or array.nbytes != addr.nbytes \
                or array.dtype != addr.dtype:
            raise ValueError(f"copy from {self.device}: a C-contiguous {addr.dtype} array of "
                             f"{addr.nbytes} bytes is needed")
        self.lib.check(self.lib.copy_d2h(array.ctypes.data, addr.ptr, addr.nbytes),
                       "a device-to-host copy")

    def sync_stream(self, stream=0):
        if self.lib.sync is not None:
            self.lib.check(self.lib.sync(), "to synchronize")


def _ctensors(items):
    """(array of CTensor, keep-alive) for [(ptr, shape, dtype)]."""
    arr = (CTensor * max(len(items), 1))()
    keep = []
    for i, (ptr, shape, dtype) in enumerate(items):
        code = DTYPE_CODES.get(np.dtype(dtype))
        if code is None:
            return None, None
        dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        keep.append(dims)
        arr[i] = CTensor(ptr or 0, code, len(shape), dims)
    return arr, keep


def _cattrs(params):
    items = [(k.encode(), float(v)) for k, v in params.items()
             if isinstance(v, (bool, int, float, np.integer, np.floating))]
    arr = (CAttr * max(len(items), 1))(*[CAttr(k, v) for k, v in items])
    return arr, len(items)


class CKernelExecutor(KernelExecutor):
    def __init__(self, lib, device):
        super().__init__(device)
        self.lib = lib

    def select_kernel(self, request):
        lib, op = self.lib, request.op
        if op not in lib.kernels:
            return None
        ins, keep_i = _ctensors([(0, a.shape, a.np) for a in request.inputs])
        outs, keep_o = _ctensors([(0, a.shape, a.np) for a in request.outputs])
        if ins is None or outs is None:
            return None
        attrs, nattr = _cattrs(request.params)
        name = op.encode()
        if not lib.supports(name, ins, len(request.inputs), outs, len(request.outputs),
                            attrs, nattr):
            return None

        def launch(in_addrs, out_addrs):
            cin, k1 = _ctensors([(a.ptr, a.shape, a.dtype) for a in in_addrs])
            cout, k2 = _ctensors([(a.ptr, a.shape, a.dtype) for a in out_addrs])
            lib.check(lib.launch(name, cin, len(in_addrs), cout, len(out_addrs), attrs, nattr),
                      f"op '{op}'")
        return DeviceKernel(op, f"{lib.device}:{op}", launch, lib.plugin)


def load_library(path):
    """(device name, factory) of the plugin library at `path`; PluginError when it fails."""
    lib = _Library(path)

    def factory(device_id=0):
        lib.check(lib.init(device_id), f"to initialize device {device_id}")
        return DeviceContext(lib.device, device_id, CResManager(lib, lib.device),
                             CKernelExecutor(lib, lib.device), plugin=lib.plugin)
    return lib.device, factory
