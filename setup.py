"""Builds the C++ extension mindlite._C from csrc/ (kernels/, runtime/, bind/) with pybind11."""
import glob

import numpy
from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup

sources = sorted(glob.glob("csrc/**/*.cc", recursive=True))
# headers and .inc loop bodies: a change to one rebuilds the extension
depends = sorted(glob.glob("csrc/**/*.h", recursive=True) + glob.glob("csrc/**/*.inc",
                                                                       recursive=True))
ext = Pybind11Extension(
    "mindlite._C",
    sources,
    depends=depends,
    include_dirs=["csrc", numpy.get_include()],
    cxx_std=17,
    extra_compile_args=["-O3", "-fno-math-errno", "-Wall"],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
)
setup(ext_modules=[ext], cmdclass={"build_ext": build_ext})
