"""The built-in CPU device: a kernel-mode plugin over today's CPU path.

Its DeviceResManager hands out host memory (a DeviceAddress's `host` is the ndarray itself,
so nothing is copied between a Tensor and the CPU device); its KernelExecutor selects from
the kernel registry exactly as CPUSession does (kernels/registry.py: provider, priority,
dtypes). Eager ops keep going through CPUSession and the C fast path (backend/cpu_session.py)
unchanged: the CPU device adds no step to them.
"""
import os

import numpy as np

from ..kernels import registry
from .base import DeviceAddress, DeviceContext, DeviceKernel, DeviceResManager, KernelExecutor
from .registry import register_device


class CPUResManager(DeviceResManager):
    """Host memory; addresses are ndarrays (zero-copy to and from Tensors). Streams: one
    per core (the GraphScheduler's lanes; one stream's steps run in order)."""
    num_streams = max(2, os.cpu_count() or 1)

    def __init__(self, device="CPU"):
        super().__init__(device)
        self.blocks = {}

    def allocate(self, nbytes):
        buf = np.empty(nbytes, np.uint8)
        ptr = buf.ctypes.data
        self.blocks[ptr] = buf
        return ptr

    def free(self, ptr):
        self.blocks.pop(ptr, None)

    def alloc_address(self, shape, dtype):
        arr = np.empty(shape, dtype)
        return host_address(arr)

    def copy_host_to_device(self, addr, array):
        np.copyto(addr.host, np.asarray(array).reshape(addr.shape), casting="no")

    def copy_device_to_host(self, array, addr):
        np.copyto(array, addr.host.reshape(array.shape), casting="no")

    def to_device(self, array):
        return host_address(np.asarray(array))

    def to_host(self, addr, out=None):
        if out is None:
            return addr.host
        np.copyto(out, addr.host)
        return out


def host_address(array):
    """The CPU DeviceAddress of an ndarray: the array itself, no copy."""
    return DeviceAddress("CPU", array.ctypes.data, array.nbytes, array.shape, array.dtype,
                         host=array)


def device_address(tensor):
    """The DeviceAddress of a Tensor's data on the CPU device (zero-copy: `.host` is the
    tensor's own array)."""
    from ..common.tensor import Tensor
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For 'device_address', the input must be a Tensor, but got "
                        f"{type(tensor).__name__}")
    return host_address(tensor._data())


class CPUKernelExecutor(KernelExecutor):
    """Selects registry kernels (the same order CPUSession uses) and launches them on the
    addresses' host arrays."""

    def select_kernel(self, request):
        dtype = request.inputs[0].dtype if request.inputs else None
        try:
            kdef = registry.select_kernel(request.op, "CPU", dtype,
                                          input_abstracts=request.inputs)
        except (NotImplementedError, TypeError):
            return None
        if kdef.kind != "function" or kdef.alloc == "kernel":
            return None
        launch = kdef.bind(request.params)

        def run(in_addrs, out_addrs):
            launch(*(a.host for a in in_addrs), *(a.host for a in out_addrs))
        return DeviceKernel(request.op, kdef.name, run, kdef.provider)


def make_cpu_context(device_id=0):
    return DeviceContext("CPU", device_id, CPUResManager(), CPUKernelExecutor("CPU"),
                         plugin="CPU (built-in)")


register_device("CPU", make_cpu_context, override=True)
