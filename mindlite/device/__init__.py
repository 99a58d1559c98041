"""Pluggable devices: the hardware abstraction layer (DeviceContext and its parts), the device
registry and plugin discovery. docs/devices.md says how to write a plugin.

    mindlite.device.list_devices()          ['CPU', ...plugins]
    mindlite.device.register_device(name, factory)
    mindlite.device.get_device_context(name, device_id)
    set_context(device_target=name)         picks a device for eager ops and graphs
"""
from .base import (DeviceAddress, DeviceContext, DeviceKernel, DevicePool,  # noqa: F401
                   DeviceResManager, GraphExecutor, KernelExecutor, KernelRequest, PluginError)
from .registry import (FAILED, get_device_context, list_devices, load_plugins,  # noqa: F401
                       register_device, unregister_device)


def include_dir():
    """The folder holding mindlite_device.h, the C ABI of plugins (pass it with -I)."""
    import os
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")


def device_address(tensor):
    """The DeviceAddress of a Tensor's data (CPU: zero-copy, `.host` is its array)."""
    from .cpu import device_address as cpu_address
    return cpu_address(tensor)
