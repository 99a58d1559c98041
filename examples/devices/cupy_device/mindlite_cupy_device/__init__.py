"""GPU: a kernel-mode mindlite device plugin running kernels on an NVIDIA GPU with CuPy.

    DeviceContext("GPU", id)
      GpuResManager       memory from CuPy's memory pool (mindlite's DevicePool on top),
                          host<->device copies on the plugin's stream, copy counters
      GpuKernelExecutor   selects a kernel from kernels.KERNELS (op, dtypes, no empty
                          tensors); launches it on the plugin's stream; every other op
                          returns None and runs on CPU (mindlite's heterogeneous fallback)

The hardware is reached through a backend object (CupyBackend here): `xp` (the array
module), `alloc(nbytes) -> (ptr, block)`, `view(block, shape, dtype)`, `h2d(view, array)`,
`d2h(array, view)`, `scope()` (device + stream for launches) and `sync()`. Registered
through the entry point

    [project.entry-points."mindlite.devices"]
    GPU = "mindlite_cupy_device:make_context"

so `ms.set_context(device_target="GPU")` finds it once the package is installed (the name
MindSpore gives its GPU target).
"""
import contextlib

import numpy as np

from mindlite.device import DeviceContext, DeviceKernel, DeviceResManager, KernelExecutor

from .kernels import KERNELS

PLUGIN = "GPU (mindlite-cupy-device)"


class CupyBackend:
    """CuPy on one CUDA device: blocks are cupy MemoryPointers from the default memory pool;
    kernels and copies run on one stream of the plugin's."""
    name = "cupy"

    def __init__(self, device_id=0):
        import cupy
        count = cupy.cuda.runtime.getDeviceCount()
        if not 0 <= device_id < count:
            raise ValueError(f"GPU device_id must be in [0, {count}), but got {device_id}")
        self.xp = cupy
        self.device = cupy.cuda.Device(device_id)
        with self.device:
            self.stream = cupy.cuda.Stream(non_blocking=False)

    def alloc(self, nbytes):
        with self.device, self.stream:
            block = self.xp.cuda.alloc(nbytes)
        return block.ptr, block

    def view(self, block, shape, dtype):
        return self.xp.ndarray(shape, dtype, memptr=block)

    def h2d(self, view, array):
        with self.device:
            view.set(np.ascontiguousarray(array, view.dtype).reshape(view.shape),
                     stream=self.stream)

    def d2h(self, array, view):
        direct = array.dtype == view.dtype and array.flags.c_contiguous
        with self.device:
            host = view.get(stream=self.stream, out=array.reshape(view.shape) if direct
                            else None)
            self.stream.synchronize()       # older CuPy copies asynchronously on a stream
        if not direct:
            np.copyto(array, host.reshape(array.shape), casting="same_kind")

    def scope(self):
        stack = contextlib.ExitStack()
        stack.enter_context(self.device)
        stack.enter_context(self.stream)
        return stack

    def sync(self):
        self.stream.synchronize()


class GpuResManager(DeviceResManager):
    """The plugin's memory: blocks by pointer; copies counted (h2d / d2h, calls and bytes)."""

    def __init__(self, device, backend):
        self.backend = backend
        self.blocks = {}
        self.counts = {"h2d": 0, "d2h": 0, "h2d_bytes": 0, "d2h_bytes": 0}
        super().__init__(device)

    def allocate(self, nbytes):
        ptr, block = self.backend.alloc(nbytes)
        self.blocks[ptr] = block
        return ptr

    def free(self, ptr):
        self.blocks.pop(ptr, None)

    def view(self, addr):
        """The device array of a DeviceAddress (a value at the start of its block)."""
        block = self.blocks.get(addr.ptr)
        if block is None:
            raise ValueError(f"{self.device}: address {addr.ptr:#x} was not allocated by this "
                             f"device (or was freed)")
        return self.backend.view(block, addr.shape, addr.dtype)

    def copy_host_to_device(self, addr, array):
        self.backend.h2d(self.view(addr), array)
        self.counts["h2d"] += 1
        self.counts["h2d_bytes"] += addr.nbytes

    def copy_device_to_host(self, array, addr):
        self.backend.d2h(array, self.view(addr))
        self.counts["d2h"] += 1
        self.counts["d2h_bytes"] += addr.nbytes

    def sync_stream(self, stream=0):
        self.backend.sync()

    def reset_counts(self):
        for k in self.counts:
            self.counts[k] = 0


class GpuKernelExecutor(KernelExecutor):
    """Kernel selection from kernels.KERNELS; launches under the backend's device/stream."""

    def __init__(self, device, res_manager):
        super().__init__(device)
        self.res_manager = res_manager
        self.launches = {}              # op -> launches (for tests and benchmarks)

    def supports(self, request):
        entry = KERNELS.get(request.op)
        if entry is None or len(request.outputs) != 1:
            return None
        out = request.outputs[0]
        dtype = _np_dtype(out)
        if dtype not in entry[1] or any(int(d) == 0 for d in out.shape):
            return None
        for a in request.inputs:
            if getattr(a, "is_dynamic", False) or any(int(d) <= 0 for d in a.shape):
                return None
            if _np_dtype(a).kind not in "fiu":
                return None
        return entry[0], dtype

    def select_kernel(self, request):
        found = self.supports(request)
        if found is None:
            return None
        fn, dtype = found
        params, op = dict(request.params), request.op
        rm, backend = self.res_manager, self.res_manager.backend
        xp = backend.xp

        def launch(in_addrs, out_addrs):
            ins = [rm.view(a) for a in in_addrs]
            ins = [x if x.dtype == dtype else x.astype(dtype) for x in ins]
            fn(xp, ins, rm.view(out_addrs[0]), params)
            self.launches[op] = self.launches.get(op, 0) + 1
        return DeviceKernel(op, f"{backend.name}:{op}", launch, PLUGIN)

    def launch(self, kernel, in_addrs, out_addrs, stream=0):
        with self.res_manager.backend.scope():
            kernel.launch(in_addrs, out_addrs)


def _np_dtype(abstract):
    dtype = getattr(abstract, "np", None)
    return np.dtype(abstract.dtype if dtype is None else dtype)


def make_context(device_id=0, backend=None, name="GPU"):
    """The factory the entry point names: the GPU DeviceContext (kernel mode) on CuPy, or
    on `backend` (an object with CupyBackend's methods)."""
    if backend is None:
        backend = CupyBackend(device_id)
    rm = GpuResManager(name, backend)
    return DeviceContext(name, device_id, rm, GpuKernelExecutor(name, rm),
                         plugin=f"{name} (mindlite-cupy-device, {backend.name})")
