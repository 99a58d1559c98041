"""Builds the C++ extension mindlite._C from csrc/ (kernels/, runtime/, bind/) with pybind11.

Incremental: objects stay in build/temp.*; each is compiled with -MMD, so gcc writes the
headers and .inc files it read into a .d file next to it, and an object is compiled again
only when its source, one of those files or this setup.py is newer than it (a missing .d
means: compile). The objects compile in parallel (pybind11's ParallelCompile; jobs from
MINDLITE_BUILD_JOBS, default every core). `make test` and `make demo` run
`python setup.py build_ext --inplace` only when a file under csrc/ changed.
"""
import glob
import os

import numpy
from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext
from setuptools import setup

SETUP_PY = os.path.abspath(__file__)


def _deps(obj):
    """The files `obj` was compiled from (its gcc -MMD .d file), or None when there is none."""
    try:
        with open(os.path.splitext(obj)[0] + ".d") as f:
            text = f.read()
    except OSError:
        return None
    _, _, files = text.replace("\\\n", " ").partition(":")
    return files.split()


def needs_recompile(obj, src):
    """Whether `obj` is missing or older than its source, a file it includes, or setup.py."""
    deps = _deps(obj)
    if deps is None or not os.path.exists(obj):
        return True
    built = os.stat(obj).st_mtime
    for path in [src, SETUP_PY, *deps]:
        if not os.path.exists(path) or os.stat(path).st_mtime > built:
            return True
    return False


ParallelCompile("MINDLITE_BUILD_JOBS", needs_recompile=needs_recompile).install()

sources = sorted(glob.glob("csrc/**/*.cc", recursive=True))
# headers and .inc loop bodies: a change to one relinks the extension (after recompiling the
# objects whose .d file names it)
depends = sorted(glob.glob("csrc/**/*.h", recursive=True) + glob.glob("csrc/**/*.inc",
                                                                       recursive=True))
ext = Pybind11Extension(
    "mindlite._C",
    sources,
    depends=depends,
    include_dirs=["csrc", numpy.get_include()],
    cxx_std=17,
    extra_compile_args=["-O3", "-fno-math-errno", "-Wall", "-MMD"],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
)
setup(ext_modules=[ext], cmdclass={"build_ext": build_ext})
