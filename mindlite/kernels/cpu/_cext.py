"""The compiled C++ kernels (csrc/ -> mindlite._C) for the cpp kernel modules.

Kernel modules `*_cpp.py` import `_C` from here. The extension is built by `pip install -e .`
(setup.py, pybind11); when it is missing the import fails here with a message saying so.
"""
try:
    from ... import _C
except ImportError as exc:  # pragma: no cover - depends on the build
    raise ImportError(
        "mindlite._C is not built: run `pip install -e .` in the repository root (needs a C++17 "
        f"compiler, numpy and pybind11) to build the C++ kernels in csrc/ ({exc})") from exc

__all__ = ["_C"]
