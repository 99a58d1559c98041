"""Custom operators (docs/custom_ops.md): provider kernels overriding built-in ones (selection
order, MindSpore Lite's life cycle, InferShape), ops.Custom with pyfunc / numba / aot kernels
and bprops, every bad-input error, and the examples in examples/custom_ops/."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradcheck import check_grad  # noqa: E402
from helpers import arrays, assert_close, noncontig, shapes, tensor  # noqa: E402

import mindlite as ms  # noqa: E402
from mindlite import Tensor, ops  # noqa: E402
from mindlite.kernels import registry  # noqa: E402
from mindlite.kernels.registry import Kernel, register_kernel_interface  # noqa: E402
from mindlite.ops.operations.custom_ops import selected_kernel  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "custom_ops")
F32 = (ms.float32,)


@pytest.fixture(autouse=True)
def clean_registry():
    """Every test leaves KERNELS, INTERFACES and the context as it found them."""
    registry.load_builtin_kernels()
    kernels = {k: list(v) for k, v in registry.KERNELS.items()}
    interfaces = {k: dict(v) for k, v in registry.INTERFACES.items()}
    yield
    ms.set_context(kernel_provider=None, backend_policy="ms")
    registry.KERNELS.clear()
    registry.KERNELS.update(kernels)
    registry.INTERFACES.clear()
    registry.INTERFACES.update(interfaces)
    registry.notify()


def f32(*shape):
    return Tensor(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))


def counting_add(calls, tag):
    def kernel(x, y, out):
        calls.append(tag)
        np.add(x, y, out=out)
    kernel.__name__ = f"add_{tag}"
    return kernel


# ---- selection order --------------------------------------------------------------------------
def test_selection_priority_context_provider_dtype_fallback():
    calls = []
    ms.register_kernel("Add", provider="low", priority=-5, kernel=counting_add(calls, "low"))
    ms.register_kernel("Add", provider="high", dtypes=F32, priority=500,
                       kernel=counting_add(calls, "high"))
    add, x = ops.Add(), f32(2, 2)
    assert selected_kernel(add, x, x).provider == "high"                  # highest priority
    assert_close(add(x, x), x.asnumpy() * 2)
    ms.set_context(kernel_provider="low")                                 # context wins
    assert_close(add(x, x), x.asnumpy() * 2)
    assert calls == ["high", "low"]
    ints = Tensor(np.arange(3, dtype=np.int32))
    ms.set_context(kernel_provider="high")                                # no int32 kernel:
    assert selected_kernel(add, ints, ints).provider not in ("high",)     # a preference only
    ms.set_context(kernel_provider=None)
    assert selected_kernel(add, ints, ints).provider == "cpp"             # dtype support
    ms.set_context(backend_policy="vm")
    assert selected_kernel(add, x, x).provider == "numpy"
    providers = [(k.provider, k.priority) for k in ms.kernels.registry.registered_kernels("Add")]
    assert providers[0] == ("high", 500) and providers[-1] == ("low", -5)


def test_when_predicate_and_kernel_graph_show_the_selection():
    ms.register_kernel("Mul", provider="tiny", when=lambda x, y: x.size <= 4,
                       kernel=lambda x, y, out: np.multiply(x, y, out=out))
    mul = ops.Mul()
    assert selected_kernel(mul, f32(2), f32(2)).provider == "tiny"
    assert selected_kernel(mul, f32(3, 3), f32(3, 3)).provider != "tiny"
    mul(f32(2), f32(2))
    sess = ms.backend.session.session_factory("CPU")
    graphs = {g.kernel.provider: g for k, g in sess.graphs.items() if k[1] == "Mul"}
    assert "[tiny]" in repr(graphs["tiny"]) and len(graphs) == 2     # KernelGraph's kernel


def test_per_op_provider_is_strict():
    ms.register_kernel("Add", provider="vendor", dtypes=F32, kernel=counting_add([], "v"))
    ints = Tensor(np.arange(3, dtype=np.int32))
    strict = ops.Add().add_prim_attr("kernel_provider", "vendor")
    assert_close(strict(f32(3), f32(3)), np.arange(3, dtype=np.float32) * 2)
    with pytest.raises(TypeError, match="For 'Add', the requested kernel provider 'vendor' has "
                                        "no CPU kernel for dtype Int32"):
        strict(ints, ints)
    with pytest.raises(ValueError, match="'nobody' has no CPU kernel; registered providers"):
        ops.Add().add_prim_attr("kernel_provider", "nobody")(ints, ints)


def test_registration_after_a_cached_call_takes_effect():
    add, x = ops.Add(), f32(3)
    add(x, x)
    calls = []
    ms.register_kernel("Add", provider="late", kernel=counting_add(calls, "late"))
    add(x, x)
    assert calls == ["late"]


# ---- registration errors --------------------------------------------------------------------
def test_registration_errors():
    k = counting_add([], "a")
    with pytest.raises(ValueError, match="op 'NoSuchOp', provider 'p'.*no primitive named"):
        ms.register_kernel("NoSuchOp", provider="p", kernel=k)
    with pytest.raises(ValueError, match="no primitive named 'Custom'"):
        ms.register_kernel("Custom", provider="p", kernel=k)
    ms.register_kernel("Add", provider="p", dtypes=F32, kernel=k)
    assert ms.register_kernel("Add", provider="p", dtypes=F32, kernel=k).fn is k  # same: no-op
    other = counting_add([], "b")
    with pytest.raises(ValueError, match="op 'Add', provider 'p'.*already registered.*override"):
        ms.register_kernel("Add", provider="p", dtypes=F32, kernel=other)
    assert ms.register_kernel("Add", provider="p", dtypes=F32, kernel=other,
                              override=True).fn is other
    assert [d.fn for d in registry.KERNELS["Add"] if d.provider == "p"] == [other]
    with pytest.raises(TypeError, match="'dtypes' must be mindlite dtypes"):
        ms.register_kernel("Add", provider="q", dtypes=("float99",), kernel=k)
    with pytest.raises(TypeError, match="'priority' must be a number"):
        ms.register_kernel("Add", provider="q", priority="high", kernel=k)
    with pytest.raises(TypeError, match="class NoExecute has no execute"):
        ms.register_kernel("Add", provider="q", kernel=type("NoExecute", (), {}))
    with pytest.raises(TypeError, match="'provider' must be a non-empty str"):
        ms.register_kernel("Add", provider="", kernel=k)
    with pytest.raises(ValueError, match="no primitive named 'Nope'"):
        register_kernel_interface("Nope", "p", lambda i, a: i[0])
    ms.register_kernel("my_type", provider="p", custom=True, kernel=k)     # Custom types: ok
    assert registry.KERNELS["Custom:my_type"][0].fn is k


# ---- Lite life cycle and failing kernels ------------------------------------------------------
class LifeCycleAdd(Kernel):
    log = []

    def prepare(self):
        self.log.append("prepare")

    def resize(self, inputs, outputs):
        self.log.append(("resize", inputs[0].shape, outputs[0].shape))

    def execute(self, x, y, out):
        self.log.append("execute")
        np.add(x, y, out=out)


def test_class_kernel_life_cycle():
    LifeCycleAdd.log = []
    ms.register_kernel("Add", provider="lite", dtypes=F32, kernel=LifeCycleAdd)
    add, a, b = ops.Add(), f32(2, 2), f32(3)
    for t in (a, a, b, a):
        assert_close(add(t, t), t.asnumpy() * 2)
    assert LifeCycleAdd.log == ["prepare", ("resize", (2, 2), (2, 2)), "execute", "execute",
                                ("resize", (3,), (3,)), "execute",
                                ("resize", (2, 2), (2, 2)), "execute"]
    kdef = selected_kernel(add, a, a)
    assert kdef.kind == "class" and len(kdef.instances) == 1
    add(Tensor(np.ones(2, np.float64)), Tensor(np.ones(2, np.float64)))  # not for float64
    assert len(kdef.instances) == 1


class PlainClass:                       # not a Kernel subclass: only execute is required
    def execute(self, x, y, out):
        np.subtract(x, y, out=out)


def test_plain_class_kernel_gets_op_and_attrs():
    ms.register_kernel("Add", provider="plain", kernel=PlainClass)
    out = ops.Add()(f32(3), f32(3))
    assert_close(out, np.zeros(3, np.float32))
    inst = next(iter(selected_kernel(ops.Add(), f32(3), f32(3)).instances.values()))[0]
    assert inst.op == "Add" and inst.attrs == {}


@pytest.mark.parametrize("stage", ["prepare", "resize", "execute", "function"])
def test_failing_kernel_is_an_error_naming_op_and_provider(stage):
    def boom(*args):
        raise ZeroDivisionError("boom")
    if stage == "function":
        kernel = boom
    else:
        kernel = type("Failing", (LifeCycleAdd,), {stage: boom})
    ms.register_kernel("Add", provider="broken", kernel=kernel)
    x = np.arange(3, dtype=np.float32)
    t = Tensor(x)
    for _ in range(2):                          # no runner is cached by a failed first call
        with pytest.raises(RuntimeError, match="For 'Add', the CPU kernel '.*' of provider "
                                               "'broken' failed: ZeroDivisionError: boom"):
            ops.Add()(t, t)
    assert np.array_equal(t.asnumpy(), x)


# ---- provider InferShape ----------------------------------------------------------------------
def test_kernel_interface_overrides_inference_when_selected():
    ms.register_kernel("Add", provider="wide", dtypes=F32,
                       kernel=lambda x, y, out: np.add(x, y, out=out, dtype=np.float64))

    @register_kernel_interface("Add", "wide")
    def wide_infer(inputs, attrs):
        return inputs[0].shape, ms.float64
    x = f32(2, 3)
    ms.set_context(kernel_provider="wide")
    out = ops.Add()(x, x)
    assert out.dtype == ms.float64 and np.array_equal(out.asnumpy(), x.asnumpy() * 2)
    ms.set_context(kernel_provider=None)
    ms.register_kernel("Add", provider="top", priority=1000, kernel=counting_add([], "t"))
    assert ops.Add()(x, x).dtype == ms.float32     # another provider's kernel: prim's infer
    with pytest.raises(ValueError, match="broadcast"):      # the primitive's checks still run
        ms.set_context(kernel_provider="wide")
        ops.Add()(f32(2), f32(3))


@pytest.mark.parametrize("bad, exc, msg", [
    (((2, -1), ms.float32), ValueError, "invalid shape \\[2, -1\\]"),
    (((2, 1.5), ms.float32), TypeError, "a tuple of non-negative ints"),
    (((2,), np.float32), TypeError, "must return an AbstractTensor|mindlite dtype"),
    ("nonsense", TypeError, "must return an AbstractTensor"),
])
def test_invalid_infer_shape_result(bad, exc, msg):
    ms.register_kernel("Add", provider="bad", kernel=counting_add([], "b"))
    register_kernel_interface("Add", "bad", lambda inputs, attrs: bad)
    with pytest.raises(exc, match=f"For 'Add', the InferShape of provider 'bad'.*({msg})"):
        ops.Add()(f32(2), f32(2))


# ---- ops.Custom: pyfunc -----------------------------------------------------------------------
@given(st.data())
def test_pyfunc_matches_numpy(data):
    shape = data.draw(shapes())
    a = data.draw(arrays(np.float32, shape))
    b = data.draw(arrays(np.float32, shape))
    returning = ops.Custom(lambda x, y: x * y - x)
    writing = ops.Custom(lambda x, y, out: np.subtract(x * y, x, out=out))
    with np.errstate(all="ignore"):
        want = a * b - a
        assert_close(returning(tensor(noncontig(a)), tensor(b)), want)
        assert_close(writing(tensor(a), tensor(noncontig(b))), want)


def test_pyfunc_shapes_dtypes_attrs_and_outputs():
    x = f32(2, 3)
    split = ops.Custom(lambda a: (a.sum(0), a.astype(np.int64)),
                       out_shape=lambda s: ([s[1]], s), out_dtype=(ms.float32, ms.int64))
    s, i = split(x)
    assert s.shape == (3,) and i.dtype == ms.int64 and np.array_equal(s.asnumpy(), [3, 5, 7])
    scale = ops.Custom(lambda a, factor, note: a * np.float32(factor), out_shape=(2, 3),
                       out_dtype=ms.float32, attrs={"factor": 3, "note": b"\x00raw"})
    assert_close(scale(x), x.asnumpy() * 3)                 # attrs: keyword arguments
    assert_close(ops.Custom(lambda a, k=2: a * np.float32(k))(x), x.asnumpy() * 2)  # returns
    assert scale.custom_attrs == {"factor": b"3", "note": b"\x00raw"}
    assert repr(scale) == "Prim[Custom:lambda]" and scale.custom_type == "lambda"
    fixed = ops.Custom(lambda: np.ones((2,), np.float32), out_shape=(2,), out_dtype=ms.float32)
    assert_close(fixed(), np.ones(2, np.float32))


@pytest.mark.parametrize("func, exc, msg", [
    (lambda a: (a, a), RuntimeError, "returned 2 outputs, but out_shape/out_dtype describe 1"),
    (lambda a: a[:1], RuntimeError, "returned output 0 of shape \\[1\\] and dtype float32, but "
                                    "inference expected \\[3\\]"),
    (lambda a: a.astype(np.float64), RuntimeError, "dtype float64"),
    (lambda a: 1 / 0, RuntimeError, "provider 'pyfunc' failed: ZeroDivisionError"),
    (lambda a, b, c, d: None, RuntimeError, "takes 4 positional arguments"),
])
def test_pyfunc_kernel_errors(func, exc, msg):
    t = f32(3)
    with pytest.raises(exc, match="For 'Custom:lambda', .*" + msg):
        ops.Custom(func)(t)
    assert np.array_equal(t.asnumpy(), [0, 1, 2])


@pytest.mark.parametrize("kwargs, exc, msg", [
    (dict(func_type="julia"), ValueError, "'func_type' must be one of"),
    (dict(func=3), TypeError, "'func' must be callable"),
    (dict(func_type="aot"), TypeError, "'path:function'"),
    (dict(out_shape=(2, -3), out_dtype=ms.float32), ValueError, "invalid shape \\[2, -3\\]"),
    (dict(out_shape=(2, "a")), TypeError, "non-negative ints"),
    (dict(out_dtype="float32"), TypeError, "mindlite dtype"),
    (dict(out_shape=((2,), (3,)), out_dtype=(ms.float32,)), ValueError, "2 output shapes but 1"),
    (dict(bprop=5), TypeError, "'bprop' must be a function"),
    (dict(attrs={"f": {1, 2}}), TypeError, "attr 'f' cannot be serialized"),
    (dict(attrs={"f": object()}), TypeError, "attr 'f' cannot be serialized"),
    (dict(attrs={"bad name": 1}), TypeError, "attr names must be identifiers"),
])
def test_custom_construction_errors(kwargs, exc, msg):
    kwargs = {"func": np.negative, **kwargs}
    with pytest.raises(exc, match=msg):
        ops.Custom(**kwargs)


def test_custom_infer_shape_errors_at_the_call():
    t = f32(2)
    with pytest.raises(ValueError, match="For 'Custom:negative', out_shape/out_dtype gave an "
                                         "invalid shape \\[-2\\]"):
        ops.Custom(np.negative, out_shape=lambda s: [-2])(t)
    with pytest.raises(TypeError, match="mindlite dtype.*float32"):
        ops.Custom(np.negative, out_dtype=lambda d: np.float32)(t)
    with pytest.raises(TypeError, match="input 0 must be a Tensor"):
        ops.Custom(np.negative)([t, t])


# ---- ops.Custom: numba and gradients --------------------------------------------------------
def cube_kernel(x, out):
    for i in np.ndindex(x.shape):
        out[i] = x[i] * x[i] * x[i]


def cube_grad_kernel(x, dout, dx):
    for i in np.ndindex(x.shape):
        dx[i] = 3.0 * x[i] * x[i] * dout[i]


def scaled_kernel(x, out, scale):
    for i in np.ndindex(x.shape):
        out[i] = x[i] * scale


def _numba_importable():
    try:
        return importlib.util.find_spec("numba") is not None
    except ImportError:
        return False


needs_numba = pytest.mark.skipif(not _numba_importable(), reason="numba is not installed")
cube_grad = ops.Custom(cube_grad_kernel, func_type="numba")
cube = ops.Custom(cube_kernel, func_type="numba", bprop=lambda x, out, dout: (cube_grad(x, dout),))


@needs_numba
def test_numba_forward_and_gradient():
    a = np.linspace(-2, 2, 12).reshape(3, 4)
    for arr in (a, a.astype(np.float32), noncontig(a), a[0, 0, ...], a[:0]):
        assert_close(cube(tensor(arr)), arr ** 3)
    assert selected_kernel(cube, Tensor(a)).provider == "numba"
    check_grad(lambda t: cube(t), a)
    check_grad(lambda t: ops.mul(cube(t), t), a)
    scaled = ops.Custom(scaled_kernel, func_type="numba", attrs={"scale": 2.5})
    assert_close(scaled(Tensor(a)), a * 2.5)


def test_pyfunc_gradient_and_missing_bprop():
    square = ops.Custom(np.square, bprop=lambda x, out, dout: (ops.mul(ops.mul(x, 2.0), dout),))
    check_grad(lambda t: square(t), np.linspace(-1, 1, 6).reshape(2, 3))
    with pytest.raises(NotImplementedError, match="For 'Custom:negative', no bprop was given"):
        ms.grad(lambda t: ops.sum(ops.Custom(np.negative)(t)))(f32(3))


@needs_numba
def test_numba_kernel_that_fails_to_compile():
    bad = ops.Custom(lambda x, out: out.no_such_method(), func_type="numba", type="bad_numba")
    with pytest.raises(RuntimeError, match="For 'Custom:bad_numba', .*provider 'numba' failed"):
        bad(f32(2))
    few = ops.Custom(lambda x: None, func_type="numba", type="too_few_params")
    with pytest.raises(RuntimeError, match="For 'Custom:too_few_params', .*failed: TypeError"):
        few(f32(2))                                  # called with (input, output)


def test_provider_kernel_registered_for_a_custom_type():
    calls = []
    ms.register_kernel("cube_kernel", provider="vendor", custom=True,
                       kernel=lambda x, out: (calls.append(1), np.power(x, 3, out=out)))
    register_kernel_interface("cube_kernel", "vendor", lambda i, attrs: (i[0].shape, i[0].dtype),
                              custom=True)
    assert selected_kernel(cube, f32(3)).provider == "vendor" and calls == []
    assert_close(cube(f32(3)), np.arange(3, dtype=np.float32) ** 3)
    assert calls == [1]
    assert [k.provider for k in registry.registered_kernels(cube)] == ["vendor", "numba"]
    typed = ops.Custom(None, type="cube_kernel")          # Lite style: only registered kernels
    assert_close(typed(f32(2)), np.arange(2, dtype=np.float32) ** 3)
    with pytest.raises(NotImplementedError, match="No CPU kernel is registered for "
                                                  "'Custom:nothing'"):
        ops.Custom(None, type="nothing")(f32(2))


# ---- ops.Custom: aot ---------------------------------------------------------------------------
SOURCE = os.path.join(EXAMPLES, "aot_kernels.cc")


def aot(path, symbol="CustomAddMul", **kw):
    return ops.Custom(f"{path}:{symbol}", out_shape=lambda x, y: (x, x),
                      out_dtype=lambda x, y: (x, x), func_type="aot", **kw)


def test_aot_compiles_once_and_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("MINDLITE_CUSTOM_AOT_CACHE", str(tmp_path / "cache"))
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    s, p = aot(SOURCE)(Tensor(a), tensor(noncontig(a)))
    assert_close(s, a + a) and assert_close(p, a * a)
    built = os.listdir(tmp_path / "cache")
    assert len(built) == 1 and built[0].endswith(".so")
    aot(SOURCE, type="again")(Tensor(a), Tensor(a))
    assert os.listdir(tmp_path / "cache") == built
    add_mul = aot(SOURCE, bprop=lambda x, y, out, dout: (dout[0] + dout[1] * y,
                                                         dout[0] + dout[1] * x))
    check_grad(lambda u, v: add_mul(u, v), a / 3 - 1, a[::-1] / 5)
    with pytest.raises(RuntimeError, match="For 'Custom:CustomAddMul', the aot kernel .* "
                                           "returned 3"):
        aot(SOURCE)(Tensor(a.astype(np.int32)), Tensor(a.astype(np.int32)))


def test_aot_loading_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("MINDLITE_CUSTOM_AOT_CACHE", str(tmp_path / "cache"))
    t = f32(2)
    with pytest.raises(RuntimeError, match="the aot file '.*missing.so' does not exist"):
        aot(tmp_path / "missing.so")(t, t)
    (tmp_path / "fake.so").write_text("not a library")
    with pytest.raises(RuntimeError, match="cannot be loaded"):
        aot(tmp_path / "fake.so")(t, t)
    (tmp_path / "broken.cc").write_text("this is not C++")
    with pytest.raises(RuntimeError, match="compiling .*broken.cc.* failed"):
        aot(tmp_path / "broken.cc")(t, t)
    with pytest.raises(RuntimeError, match="has no symbol 'Missing'"):
        aot(SOURCE, "Missing")(t, t)
    monkeypatch.setenv("MS_CUSTOM_AOT_WHITE_LIST", str(tmp_path))
    with pytest.raises(RuntimeError, match="outside the white list"):
        aot(SOURCE, type="listed")(t, t)
    monkeypatch.setenv("MS_CUSTOM_AOT_WHITE_LIST", EXAMPLES)
    assert_close(aot(SOURCE, type="allowed")(t, t)[1], t.asnumpy() ** 2)


# ---- the examples ----------------------------------------------------------------------------
@pytest.mark.parametrize("script, expect", [
    ("override_add.py", "override_add: all checks passed"),
    pytest.param("numba_custom_train.py", "numba_custom_train: all checks passed",
                 marks=needs_numba),
    ("aot_cpp.py", "aot_cpp: all checks passed"),
])
def test_example_runs(script, expect):
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, script)], capture_output=True,
                         text=True, timeout=600, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    assert expect in out.stdout and "FAIL" not in out.stdout
