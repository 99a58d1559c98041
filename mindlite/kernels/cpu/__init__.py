"""Built-in CPU kernels. numpy modules are the reference providers; numba and C++
modules register faster kernels at higher priority. Importing this package must
not import numba (numba kernels compile lazily on first launch)."""
from . import math_numpy, nn_numpy, reduce_numpy, array_numpy  # noqa: F401
