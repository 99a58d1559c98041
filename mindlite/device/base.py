"""The hardware abstraction layer: what a device plugin implements (MindSpore's DeviceContext).

    DeviceContext(name, device_id)     one device; owns the three parts below
      res_manager: DeviceResManager    allocate/free, host<->device copies, a memory pool
                                       (DevicePool), streams (one by default)
      kernel_executor: KernelExecutor  kernel mode: select a kernel per node, launch it;
                                       optional split_graph / optimize_graph hooks
      graph_executor: GraphExecutor    graph mode: a whole FuncGraph compiled as one
                                       SuperKernel and run with host arrays in and out
    DeviceAddress                      one tensor's memory on one device (a host ndarray on
                                       CPU, zero-copy; a handle from the plugin's allocator
                                       elsewhere)

It sits under the backend: the device session (backend/device_session.py) and the GraphCompiler
(backend/graph_compiler.py) call these; kernels and plugins never see Tensors or Cells.
"""
import threading
import weakref

import numpy as np


class PluginError(RuntimeError):
    """A device plugin failed: it could not load, lacks an entry point, or a kernel failed.
    The message names the plugin (and the op)."""


class DeviceAddress:
    """Memory of one value on one device. `ptr` is the device handle (an int), `host` the
    ndarray when the memory is host memory (CPU: the array itself, no copy)."""
    __slots__ = ("device", "ptr", "nbytes", "shape", "dtype", "host", "__weakref__")

    def __init__(self, device, ptr, nbytes, shape, dtype, host=None):
        self.device, self.ptr, self.nbytes = device, ptr, nbytes
        self.shape, self.dtype, self.host = tuple(shape), np.dtype(dtype), host

    def __repr__(self):
        return (f"DeviceAddress({self.device}, ptr={self.ptr:#x}, {self.nbytes} bytes, "
                f"{list(self.shape)} {self.dtype})")


class DevicePool:
    """A memory pool over a device allocator: freed blocks go to size buckets and are reused
    by the next allocation of that size (MindSpore's common memory pool, made small)."""

    def __init__(self, allocate, free, max_per_bucket=8):
        self._allocate, self._free = allocate, free
        self.buckets = {}
        self.max_per_bucket = max_per_bucket
        self.in_use = {}                 # ptr -> nbytes
        self.hits = self.misses = 0
        self.peak_bytes = self.used_bytes = 0
        self.lock = threading.Lock()

    def alloc(self, nbytes):
        nbytes = max(int(nbytes), 1)
        with self.lock:
            bucket = self.buckets.get(nbytes)
            if bucket:
                ptr = bucket.pop()
                self.hits += 1
            else:
                ptr = self._allocate(nbytes)
                self.misses += 1
            self.in_use[ptr] = nbytes
            self.used_bytes += nbytes
            self.peak_bytes = max(self.peak_bytes, self.used_bytes)
        return ptr

    def release(self, ptr):
        with self.lock:
            nbytes = self.in_use.pop(ptr, None)
            if nbytes is None:
                return
            self.used_bytes -= nbytes
            bucket = self.buckets.setdefault(nbytes, [])
            if len(bucket) < self.max_per_bucket:
                bucket.append(ptr)
                return
        self._free(ptr)

    def release_all(self):
        """Free every cached block (blocks in use stay with their addresses)."""
        with self.lock:
            blocks = [p for b in self.buckets.values() for p in b]
            self.buckets.clear()
        for ptr in blocks:
            self._free(ptr)


class DeviceResManager:
    """Memory and streams of one device. A plugin overrides allocate/free and the two copies;
    everything else (the pool, addresses, host<->device helpers) is common."""
    num_streams = 1

    def __init__(self, device):
        self.device = device
        self.pool = DevicePool(self.allocate, self.free)

    # ---- what a plugin implements ------------------------------------------------------
    def allocate(self, nbytes):
        raise NotImplementedError(f"device '{self.device}' does not implement allocate")

    def free(self, ptr):
        raise NotImplementedError(f"device '{self.device}' does not implement free")

    def copy_host_to_device(self, addr, array):
        raise NotImplementedError(f"device '{self.device}' does not implement copies")

    def copy_device_to_host(self, array, addr):
        raise NotImplementedError(f"device '{self.device}' does not implement copies")

    def sync_stream(self, stream=0):
        """Wait for the work queued on `stream` (synchronous devices: nothing to wait for)."""

    # ---- common --------------------------------------------------------------------------
    def alloc_address(self, shape, dtype):
        """A DeviceAddress for a new value, from the pool; freed back when unreferenced."""
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        ptr = self.pool.alloc(nbytes)
        addr = DeviceAddress(self.device, ptr, nbytes, shape, dtype)
        weakref.finalize(addr, self.pool.release, ptr)
        return addr

    def to_device(self, array):
        array = np.ascontiguousarray(array)
        addr = self.alloc_address(array.shape, array.dtype)
        self.copy_host_to_device(addr, array)
        return addr

    def to_host(self, addr, out=None):
        if out is None:
            out = np.empty(addr.shape, addr.dtype)
        self.copy_device_to_host(out, addr)
        return out


class DeviceKernel:
    """A kernel a KernelExecutor selected for one node: `launch(in_addrs, out_addrs)`."""

    def __init__(self, op, name, launch, provider):
        self.op, self.name, self.launch, self.provider = op, name, launch, provider

    def __repr__(self):
        return f"DeviceKernel({self.op} -> {self.name} [{self.provider}])"


class KernelRequest:
    """What kernel selection sees of a node: op name, input/output abstracts, params."""
    __slots__ = ("op", "inputs", "outputs", "params", "prim")

    def __init__(self, op, inputs, outputs, params, prim=None):
        self.op, self.inputs, self.outputs = op, tuple(inputs), tuple(outputs)
        self.params, self.prim = dict(params), prim


class KernelExecutor:
    """Kernel mode: select a DeviceKernel per node (None: the device has none, the node goes
    to CPU), then launch it. split_graph / optimize_graph are optional hooks the
    GraphCompiler calls on the device's part of a graph."""

    def __init__(self, device):
        self.device = device

    def select_kernel(self, request):
        return None

    def launch(self, kernel, in_addrs, out_addrs, stream=0):
        kernel.launch(in_addrs, out_addrs)

    def split_graph(self, steps):
        """Hook: which of the device's selected steps it really takes (default: all)."""
        return steps

    def optimize_graph(self, steps):
        """Hook: op fusion / splitting on the device's steps (default: none)."""
        return steps


class GraphExecutor:
    """Graph mode: compile_graph(FuncGraph) -> a SuperKernel, a callable taking the graph's
    parameters as host arrays and returning its outputs as host arrays; supports(node) says
    which CNodes it can convert (the rest run on CPU)."""

    def __init__(self, device):
        self.device = device

    def supports(self, node):
        return False

    def compile_graph(self, graph):
        raise NotImplementedError(f"device '{self.device}' has no graph compiler")

    def run_graph(self, kernel, arrays):
        """Run a SuperKernel on host arrays (default: call it); returns its outputs."""
        return kernel(arrays)


class DeviceContext:
    """One device: name, id, its DeviceResManager and a KernelExecutor and/or a
    GraphExecutor. `mode` is "kernel" or "graph" (graph when it has a GraphExecutor)."""

    def __init__(self, name, device_id=0, res_manager=None, kernel_executor=None,
                 graph_executor=None, plugin=None):
        self.name, self.device_id = name, device_id
        self.res_manager = res_manager
        self.kernel_executor = kernel_executor
        self.graph_executor = graph_executor
        self.plugin = plugin or name

    @property
    def mode(self):
        return "graph" if self.graph_executor is not None else "kernel"

    def __repr__(self):
        return f"DeviceContext({self.name}:{self.device_id}, {self.mode} mode)"
