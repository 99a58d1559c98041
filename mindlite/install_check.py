"""`run_check` (MindSpore's installation check: one real computation, its result checked,
a line printed) and `synchronize` (mindlite runs every op synchronously on the CPU, so
when an op returns its result is complete: there is nothing left to wait for)."""
import numpy as np

__all__ = ["run_check", "synchronize"]


def run_check():
    """Add two tensors through the op pipeline, compare with numpy, and print the verdict."""
    import mindlite
    from mindlite import Tensor, ops
    print(f"mindlite version: {mindlite.__version__}")
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    b = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    got = ops.add(ops.mul(Tensor(a), Tensor(b)), Tensor(a)).asnumpy()
    if np.array_equal(got, a * b + a):
        print("The result of multiplication calculation is correct, mindlite has been "
              "installed on platform [CPU] successfully!")
        return
    raise RuntimeError(f"run_check: the result {got.tolist()} differs from numpy's "
                       f"{(a * b + a).tolist()}: mindlite is not working")


def synchronize():
    """Wait for the device's pending work: none on mindlite (ops run synchronously)."""
    return None
