"""An ahead-of-time C++ kernel (MindSpore's AOT C ABI) compiled with g++ and loaded.

    python examples/custom_ops/aot_cpp.py

aot_kernels.cc defines `CustomAddMul(x, y) -> (x + y, x * y)` against MindSpore's ABI
`extern "C" int f(int nparam, void **params, int *ndims, int64_t **shapes,
const char **dtypes, void *stream, void *extra)`. ops.Custom("aot_kernels.cc:CustomAddMul",
func_type="aot") compiles the source on first use (g++ -O2 -shared -fPIC, cached by the
source hash) and calls it through ctypes; a path to a shared library loads it as it is (the
script also builds one itself with g++). It checks both outputs against numpy
(non-contiguous input included), gradients through a bprop built from mindlite ops against
finite differences, the errors for a non-zero return code and a missing symbol, and the
white list.
"""
import os
import subprocess
import tempfile

import numpy as np

import mindlite as ms
from mindlite import Tensor, ops

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "aot_kernels.cc")


def add_mul_bprop(x, y, out, dout):
    """d(x + y) = (1, 1), d(x * y) = (y, x)."""
    dsum, dprod = dout
    return dsum + dprod * y, dsum + dprod * x


add_mul = ops.Custom(f"{SOURCE}:CustomAddMul", out_shape=lambda x, y: (x, x),
                     out_dtype=lambda x, y: (x, x), func_type="aot", bprop=add_mul_bprop)


def check(what, ok):
    print(f"[{'ok' if ok else 'FAIL'}] {what}")
    if not ok:
        raise SystemExit(1)


def main():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3).T       # non-contiguous
    s, p = add_mul(Tensor(a), Tensor(b))
    check("CustomAddMul(x, y) == (x + y, x * y) (float32, non-contiguous y)",
          np.array_equal(s.asnumpy(), a + b) and np.array_equal(p.asnumpy(), a * b))

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    gx, gy = ms.grad(lambda u, v: ops.sum(add_mul(u, v)[0] * add_mul(u, v)[1]), (0, 1))(
        Tensor(x), Tensor(y))

    def f(u, v):
        return float(((u + v) * (u * v)).sum())
    eps = 1e-6
    num = [np.zeros_like(x), np.zeros_like(y)]
    for k, arr in enumerate((x, y)):
        for i in np.ndindex(arr.shape):
            d = np.zeros_like(arr)
            d[i] = eps
            args_p = (x + d, y) if k == 0 else (x, y + d)
            args_m = (x - d, y) if k == 0 else (x, y - d)
            num[k][i] = (f(*args_p) - f(*args_m)) / (2 * eps)
    check("gradients through the bprop == finite differences (float64)",
          np.allclose(gx.asnumpy(), num[0], atol=1e-6) and np.allclose(gy.asnumpy(), num[1],
                                                                         atol=1e-6))
    ints = Tensor(np.arange(3, dtype=np.int32))
    try:
        add_mul(ints, ints)
        check("a non-zero return code is an error", False)
    except RuntimeError as e:
        check(f"a non-zero return code is an error: {e}", "returned 3" in str(e))

    with tempfile.TemporaryDirectory() as tmp:
        lib = os.path.join(tmp, "libaddmul.so")
        subprocess.run(["g++", "-O2", "-shared", "-fPIC", SOURCE, "-o", lib], check=True)
        prebuilt = ops.Custom(f"{lib}:CustomAddMul", out_shape=lambda x, y: (x, x),
                              out_dtype=lambda x, y: (x, x), func_type="aot")
        s2, p2 = prebuilt(Tensor(a), Tensor(a))
        check("a prebuilt shared library loads unchanged",
              np.array_equal(s2.asnumpy(), a + a) and np.array_equal(p2.asnumpy(), a * a))
        try:
            ops.Custom(f"{lib}:NoSuchKernel", func_type="aot")(Tensor(a))
            check("a missing symbol is an error", False)
        except RuntimeError as e:
            check(f"a missing symbol is an error: {e}", "NoSuchKernel" in str(e))

    old = os.environ.get("MINDLITE_CUSTOM_AOT_WHITE_LIST")
    os.environ["MINDLITE_CUSTOM_AOT_WHITE_LIST"] = os.path.join(HERE, "no_such_dir")
    try:
        outside = ops.Custom(f"{SOURCE}:CustomAddMul", out_shape=lambda x, y: (x, x),
                             out_dtype=lambda x, y: (x, x), func_type="aot", type="outside")
        outside(Tensor(a), Tensor(a))
        check("a library outside the white list does not load", False)
    except RuntimeError as e:
        check(f"a library outside the white list does not load: {e}", "white list" in str(e))
    finally:
        if old is None:
            del os.environ["MINDLITE_CUSTOM_AOT_WHITE_LIST"]
        else:
            os.environ["MINDLITE_CUSTOM_AOT_WHITE_LIST"] = old
    print("aot_cpp: all checks passed")


if __name__ == "__main__":
    main()
