"""Override a built-in op's CPU kernel with a provider kernel (MindSpore Lite's TestCustomAdd).

    python examples/custom_ops/override_add.py

A vendor ("BuiltInTest") registers its own float32 Add as a class with MindSpore Lite's
life cycle (prepare once, resize on a new shape, execute per call) and its own InferShape,
then selects it with set_context(kernel_provider=...). The script checks the results
against numpy, that the provider kernel is the one selected (and observable), the life cycle
calls, the fallback for a dtype the provider does not support, and a strict per-op request.
"""
import numpy as np

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.kernels.registry import (Kernel, register_kernel_interface, registered_kernels,
                                       unregister_kernel)
from mindlite.ops.operations.custom_ops import selected_kernel

PROVIDER = "BuiltInTest"


class TestCustomAdd(Kernel):
    """out = x + y for float32 inputs of one shape (no broadcasting, like the Lite test)."""
    calls = {"prepare": 0, "resize": 0, "execute": 0}

    def prepare(self):
        TestCustomAdd.calls["prepare"] += 1

    def resize(self, inputs, outputs):
        TestCustomAdd.calls["resize"] += 1
        self.size = outputs[0].size

    def execute(self, x, y, out):
        TestCustomAdd.calls["execute"] += 1
        flat = out.reshape(-1)
        np.add(x.reshape(-1), y.reshape(-1), out=flat)


def custom_add_infer(inputs, attrs):
    """The provider's InferShape: same shape and dtype as the first input."""
    x, y = inputs
    if x.shape != y.shape:
        raise ValueError(f"For 'Add', {PROVIDER} needs equal shapes, but got {list(x.shape)} "
                         f"and {list(y.shape)}")
    return x.shape, x.dtype


def check(what, ok):
    print(f"[{'ok' if ok else 'FAIL'}] {what}")
    if not ok:
        raise SystemExit(1)


def main():
    ms.register_kernel("Add", arch="CPU", provider=PROVIDER, dtypes=(ms.float32,),
                       kernel=TestCustomAdd)
    register_kernel_interface("Add", PROVIDER, custom_add_infer)
    print("registered:", *registered_kernels("Add"), sep="\n  ")
    add = ops.Add()
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x, y = Tensor(a), Tensor(a * 10)
    try:
        ms.set_context(kernel_provider=PROVIDER)
        check("the provider kernel is selected for float32",
              selected_kernel(add, x, y).fn is TestCustomAdd)
        for _ in range(3):
            z = add(x, y)
        check("Add(x, y) == numpy x + y", np.array_equal(z.asnumpy(), a + a * 10))
        add(Tensor(np.ones(4, np.float32)), Tensor(np.ones(4, np.float32)))
        add(x, y)
        c = TestCustomAdd.calls
        check(f"life cycle: prepare once, resize per new shape, execute per call {c}",
              c == {"prepare": 1, "resize": 3, "execute": 5})
        try:
            add(x, Tensor(np.ones(3, np.float32)))
        except ValueError as e:
            check(f"the provider's InferShape checks the inputs: {e}", PROVIDER in str(e))
        ints = Tensor(np.arange(3, dtype=np.int32))
        check("int32 falls back to the built-in kernel (context provider = preference)",
              selected_kernel(add, ints, ints).provider != PROVIDER
              and np.array_equal(add(ints, ints).asnumpy(), [0, 2, 4]))
        strict = ops.Add().add_prim_attr("kernel_provider", PROVIDER)
        try:
            strict(ints, ints)
            check("a per-op provider request is strict", False)
        except TypeError as e:
            check(f"a per-op provider request is strict: {e}", PROVIDER in str(e))
    finally:
        ms.set_context(kernel_provider=None)
        unregister_kernel("Add", PROVIDER)
    check("after unregistering, the built-in kernel runs again",
          selected_kernel(add, x, y).provider != PROVIDER
          and np.array_equal(add(x, y).asnumpy(), a + a * 10))
    print("override_add: all checks passed")


if __name__ == "__main__":
    main()
