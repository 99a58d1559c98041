"""DEMO device for mindlite: a kernel-mode plugin written in C++ (demo_device.cc).

    path = build_library(out_dir)        g++ -> out_dir/libmindlite_demo_device.so
    os.environ["MINDLITE_PLUGIN_PATH"] = path      (before mindlite discovers plugins)
    ms.set_context(device_target="DEMO")

stats(path) reads the library's counters (live blocks, host-to-device and device-to-host
copies, launches).
"""
import ctypes
import os
import subprocess

import mindlite.device

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo_device.cc")
LIBRARY = "libmindlite_demo_device.so"


def build_library(out_dir, cxx="g++"):
    """Compile the plugin into out_dir; returns the library's path."""
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, LIBRARY)
    cmd = [cxx, "-O2", "-std=c++17", "-shared", "-fPIC",
           "-I", mindlite.device.include_dir(), SOURCE, "-o", out]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return out


def _lib(path):
    return ctypes.CDLL(os.path.abspath(path))


def stats(path):
    """{'blocks', 'h2d', 'd2h', 'launches'} of the loaded library at `path`."""
    buf = (ctypes.c_int64 * 4)()
    _lib(path).demo_device_stats(buf)
    return dict(zip(("blocks", "h2d", "d2h", "launches"), buf))


def fail_launches(path, on=True):
    """Make every launch fail (for testing mindlite's error reporting and CPU fallback)."""
    _lib(path).demo_device_fail_launches(int(bool(on)))
