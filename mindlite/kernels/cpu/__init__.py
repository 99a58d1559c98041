"""Built-in CPU kernels, one module per op family and provider (<family>_<provider>.py).

numpy modules are the reference providers; numba and C++ modules register faster
kernels at higher priority. Every module in this folder is imported at the first
kernel selection (not at `import mindlite`); numba modules must not import numba
at module level: their kernels compile lazily on first launch (cache=True).
"""
import importlib
import pkgutil

for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")):
    importlib.import_module(f"{__name__}.{_mod}")
