"""Export graph-mode programs with real MindSpore 2.x as MINDIR files, for
tests/test_mindir_ms_programs.py (run with MindSpore, never by the test run itself):

    /opt/msvenv/bin/python tests/data/make_mindir_ms_programs.py OUT_DIR [NAME ...]

The programs: control flow as MindSpore 2.10 writes it (`while` on Python and tensor
counters: ScalarLt / LessScalar / ScalarToTensor / ScalarAdd; `for` with a tensor `if`;
nested loops and branches; break), closures, Cells in a CellList, gradients inside the
exported graph (GradOperation, value_and_grad), 3-D `ops.matmul` (MatMulExt), `*Ext` and
tensor-scalar ops, `mutable` scalar and list inputs (Scalar* and sequence primitives), and
mindlite's own graph-mode test programs (tests/test_jit_loops_tensor.py,
tests/test_jit_grad_control.py, tests/test_mindir.py, tests/models.py), read from those
files and run here with `mindlite` names bound to MindSpore's.

For each program NAME it writes NAME.mindir and NAME.npz: the inputs (`in<i>`; a `mutable`
scalar as `scalar_in<i>`, a mutable list as `list_in<i>`) and MindSpore's outputs of the
program (`out<i>`). A program MindSpore refuses to compile or export is reported and
skipped. The fixtures checked in beside this script (ms_prog_*.mindir / .npz) were written
by it:

    cd /tmp && /opt/msvenv/bin/python /path/to/tests/data/make_mindir_ms_programs.py \\
        /path/to/tests/data --prefix ms_prog_ while_loop for_if nested grad matmul3d mut_scalar
"""
import ast
import os
import sys

import numpy as np
import mindspore as ms
from mindspore import Tensor, mutable, nn, ops

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
rng = np.random.default_rng(0)


def f32(*shape):
    return Tensor(rng.standard_normal(shape).astype(np.float32))


class WhileLoop(nn.Cell):
    def construct(self, x, n):
        i = 0
        while i < n:
            x = x * 2 - 1
            i += 1
        return x


class WhileTensor(nn.Cell):
    def construct(self, x):
        while x.sum() < 10:
            x = x + 1.5
        return x


class ForIf(nn.Cell):
    def construct(self, x):
        for _ in range(3):
            if x.sum() > 0:
                x = x - 1
            else:
                x = x * 2 + 1
        return x


class Nested(nn.Cell):
    def construct(self, x, y):
        out = x
        i = 0
        while i < 3:
            if y.sum() > i:
                for _ in range(2):
                    out = out + y
            else:
                out = out * 0.5
            i += 1
        return out


class BreakLoop(nn.Cell):
    def construct(self, x, n):
        i = 0
        while i < 10:
            if i >= n:
                break
            x = x + i
            i += 1
        return x


class Closure(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 3.0

    def construct(self, x, y):
        def inner(a):
            return a * self.scale + y

        def twice(f, a):
            return f(f(a))
        return twice(inner, x)


class Sub(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)

    def construct(self, x):
        return ops.relu(self.fc(x))


class CellsLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([Sub(), Sub()])
        self.head = nn.Dense(4, 2)

    def construct(self, x):
        for b in self.blocks:
            x = b(x) + x
        if x.mean() > 0:
            x = x * 2
        return self.head(x)


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)),
                              name="w")

    def construct(self, x):
        return (ops.tanh(ops.matmul(x, self.w)) ** 2).sum()


class Grad(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = Inner()
        self.grad = ops.GradOperation(get_all=True, get_by_list=True)
        self.params = ms.ParameterTuple(self.net.trainable_params())

    def construct(self, x):
        gx, gw = self.grad(self.net, self.params)(x)
        return gx[0], gw[0]


class ValueGrad(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = Inner()

    def construct(self, x):
        return ms.value_and_grad(self.net)(x)


class MatMul3D(nn.Cell):
    def construct(self, a, b, v):
        return ops.matmul(a, b) + ops.bmm(a, b), ops.matmul(v, b), ops.matmul(a, v[:4])


class ExtOps(nn.Cell):
    def construct(self, x):
        y = ops.mean(x, axis=1, keep_dims=True) + ops.sum(x, dim=0)
        z = ops.softmax(x, axis=-1) * ops.relu(x)
        return ops.cat((y, z), 0), ops.argmax(x, dim=1), ops.max(x, axis=1)[0]


class TensorScalar(nn.Cell):
    def construct(self, x):
        a = (x < 0.5).astype(ms.float32) + (x >= -0.5).astype(ms.float32)
        b = (x == 0).astype(ms.float32) + x // 2 + x % 3 + 2 ** x
        return a, b, ops.ones_like(x) + ops.zeros_like(x), x.masked_fill(x > 1, 0.0)


class Scalars(nn.Cell):
    def construct(self, x):
        n = x.shape[0]
        m = x.shape[1] * 2 - n
        s = x.shape[1] // 2 + n % 2
        t = x.reshape(n * x.shape[1])
        return t[:m] * s, ops.full((m,), float(n))


class Sequences(nn.Cell):
    def construct(self, x):
        parts = ops.split(x, 1, axis=0)
        acc = parts[0]
        for p in parts[1:]:
            acc = acc + p
        shp = x.shape
        lst = [shp[0], shp[1]]
        lst.append(len(parts))
        return acc, Tensor(lst[2], ms.float32) * acc, x.reshape(tuple(lst[:2])[::-1])


class MutScalar(nn.Cell):
    def construct(self, x, n, f):
        i = 0
        acc = x
        while i < n:
            acc = acc * f + i
            i = i + 1
        m = n * 2 - 1
        if n > 2:
            acc = acc - m
        return acc, m // 2, n % 2 == 1, f / 2


class MutList(nn.Cell):
    def construct(self, x, lst):
        total = x
        for v in lst:
            total = total + v
        k = len(lst)
        pair = [lst[0], lst[-1]]
        return total * k, pair[1] - pair[0]


class TensorIndexLoop(nn.Cell):
    def construct(self, x, n):
        out = ops.zeros_like(x)
        i = Tensor(0, ms.int32)
        while i < n:
            out = out + x * i.astype(ms.float32)
            i = i + 1
        return out


class DynShape(nn.Cell):
    def construct(self, x):
        n = x.shape[0]
        return x.reshape(n * 3)[: n + 1], x.reshape((3, n)) * (n + 1)


OWN = {
    "while_loop": (WhileLoop, [f32(2, 3), Tensor(4, ms.int32)]),
    "while_tensor": (WhileTensor, [f32(2, 3)]),
    "for_if": (ForIf, [f32(2, 3)]),
    "nested": (Nested, [f32(2, 3), Tensor(np.full((2, 3), 0.4, np.float32))]),
    "break_loop": (BreakLoop, [f32(2, 2), Tensor(3, ms.int32)]),
    "closure": (Closure, [f32(3), f32(3)]),
    "cells_loop": (CellsLoop, [f32(3, 4)]),
    # inputs that keep tanh off saturation, where 1 - tanh^2 magnifies an ulp of tanh
    "grad": (Grad, [f32(3, 2) * 0.3]),
    "value_grad": (ValueGrad, [f32(3, 2) * 0.3]),
    "matmul3d": (MatMul3D, [f32(2, 3, 4), f32(2, 4, 5), f32(4)]),
    "ext_ops": (ExtOps, [f32(3, 4)]),
    "tensor_scalar": (TensorScalar, [f32(3, 4)]),
    "scalars": (Scalars, [f32(3, 4)]),
    "sequences": (Sequences, [f32(3, 4)]),
    "mut_scalar": (MutScalar, [f32(2, 2), mutable(3), mutable(1.5)]),
    "mut_list": (MutList, [f32(3), mutable([1.0, 2.0, 4.0])]),
    "tensor_index_loop": (TensorIndexLoop, [f32(2, 2), Tensor(3, ms.int32)]),
    "dyn_shape": (DynShape, [f32(4, 3)]),
}

# mindlite's own graph-mode test programs: (test file, name, inputs)
_v = Tensor(np.array([0.3, -0.2, 0.9, 0.1, 0.5], np.float32))
THEIRS = {
    "jit_while_break": ("test_jit_loops_tensor.py", "while_break", [_v, Tensor(3.0)]),
    "jit_while_continue_else": ("test_jit_loops_tensor.py", "while_continue_else", [_v]),
    "jit_for_break_continue": ("test_jit_loops_tensor.py", "for_break_continue", [_v]),
    "jit_loop_in_tensor_while": ("test_jit_loops_tensor.py", "loop_in_tensor_while", [_v]),
    "jit_nested": ("test_jit_loops_tensor.py", "nested", [_v]),
    "jit_const_break": ("test_jit_loops_tensor.py", "const_break", [_v]),
    "jit_while_true": ("test_jit_loops_tensor.py", "while_true", [_v]),
    "jit_first_positive": ("test_jit_loops_tensor.py", "first_positive", [_v - 0.4]),
    "jit_nested_return": ("test_jit_loops_tensor.py", "nested_return", [_v * 3]),
    "jit_breaking_stack": ("test_jit_loops_tensor.py", "BreakingStack", [f32(2, 3)]),
    "jit_branchy": ("test_jit_grad_control.py", "branchy", [f32(3), f32(3)]),
    "mindir_branch": ("test_mindir.py", "Branch", [f32(2), f32(2)]),
    "mindir_capture": ("test_mindir.py", "Capture", [f32(2), f32(2)]),
    "mindir_loop": ("test_mindir.py", "Loop", [f32(2), Tensor(3, ms.int32)]),
    "mindir_ops": ("test_mindir.py", "Ops", [f32(2, 3, 8, 8)]),
    "mindir_arg_index": ("test_mindir.py", "ArgIndex", [f32(2, 4), f32(3)]),
    "mindir_attention": ("test_mindir.py", "Attention",
                         [Tensor(np.array([[1, 2, 3, 4], [5, 6, 7, 19]], np.int32))]),
    "models_mlp": ("models.py", "MLP", [f32(2, 8)]),
}


_MODULES = {}


def _load_from_test(filename, name):
    """`name` (a function or class) of tests/<filename>, with mindlite's names bound to
    MindSpore's (`ms`, `Tensor`, `nn`, `ops`, `np`): its source is written to a module of its
    own in a temporary folder (MindSpore's graph parser reads a function's source file)."""
    import importlib
    import tempfile
    with open(os.path.join(TESTS, filename)) as f:
        text = f.read()
    segments = []
    for n in ast.parse(text).body:
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name:
            if isinstance(n, ast.FunctionDef):
                n.decorator_list = []
            segments.append(ast.unparse(n))
    if "dir" not in _MODULES:
        _MODULES["dir"] = tempfile.mkdtemp()
        sys.path.insert(0, _MODULES["dir"])
    module = f"_ml_{os.path.splitext(filename)[0]}_{name}"
    with open(os.path.join(_MODULES["dir"], module + ".py"), "w") as f:
        f.write("import numpy as np\nimport mindspore as ms\n"
                "from mindspore import Tensor, nn, ops\n\n\n" + "\n\n\n".join(segments))
    obj = getattr(importlib.import_module(module), name)
    if isinstance(obj, type):
        return obj

    class Wrapped(nn.Cell):
        def construct(self, *args):
            return obj(*args)
    return Wrapped


def _flat(v):
    return v.asnumpy() if isinstance(v, Tensor) else np.asarray(v)


def _export(cls, inputs, path):
    ms.set_seed(3)
    net = cls()
    out = net(*inputs)
    outs = out if isinstance(out, (tuple, list)) else [out]
    ms.export(net, *inputs, file_name=path, file_format="MINDIR")
    arrays = {}
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor):
            arrays[f"in{i}"] = t.asnumpy()
        elif isinstance(t, (list, tuple)):
            arrays[f"list_in{i}"] = np.asarray(t)
        else:
            arrays[f"scalar_in{i}"] = np.asarray(t)
    for i, o in enumerate(outs):
        arrays[f"out{i}"] = _flat(o)
    np.savez(path + ".npz", **arrays)


def main(argv):
    out_dir, names, prefix = argv[0], [], ""
    rest = iter(argv[1:])
    for a in rest:
        if a == "--prefix":
            prefix = next(rest)
        else:
            names.append(a)
    ms.set_context(mode=ms.GRAPH_MODE)
    programs = {n: (lambda c=c: c, i) for n, (c, i) in OWN.items()}
    programs.update({n: (lambda f=f, k=k: _load_from_test(f, k), i)
                     for n, (f, k, i) in THEIRS.items()})
    for name, (get, inputs) in programs.items():
        if names and name not in names:
            continue
        try:
            _export(get(), inputs, os.path.join(out_dir, prefix + name))
            print("exported", name, flush=True)
        except Exception as e:                              # noqa: BLE001
            print("MindSpore refused", name, type(e).__name__,
                  str(e).splitlines()[0][:200], flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
