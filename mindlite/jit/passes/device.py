"""Per-device graph passes: which built-in stages of the jit pipeline a device's graphs skip.

mindlite's fusions (matmul_biasadd_fusion, elementwise_fusion) make FusedMatMulBiasAdd /
FusedElemwise nodes whose kernels only the CPU device has; a graph compiled for a plugin
device leaves them out by default (so its MatMul / BiasAdd / elementwise nodes can go to the
device), unless the device's executor lists other stages in `skip_passes`. The jit cache
keys compiled graphs by device_target, so each device gets its own pipeline.
"""
import contextlib

CPU_FUSIONS = ("conv_biasadd_fusion", "conv_act_fusion", "matmul_biasadd_fusion",
               "elementwise_fusion")


def skipped_passes(ctx):
    if ctx.name == "CPU":
        return ()
    executor = ctx.kernel_executor or ctx.graph_executor
    return tuple(getattr(executor, "skip_passes", CPU_FUSIONS))


def device_passes():
    """A context manager: compiles inside it run the context's device pipeline."""
    from ...context import CONTEXT
    if CONTEXT.values["device_target"] == "CPU":
        return contextlib.nullcontext()
    from .pipeline import skipping
    from ...device.registry import get_device_context
    return skipping(*skipped_passes(get_device_context()))
