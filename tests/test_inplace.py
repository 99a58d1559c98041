"""In-place writes: setitem recorded for autograd, writes after a recorded use rejected at
backward, and copy-on-write so that view results (Reshape, ExpandDims, Squeeze, Flatten,
StopGradient) never change after they were returned (issue 10, defects 4 and 8).
Expected values were checked against MindSpore 2.10 (PyNative) where it has the case."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops

from gradcheck import check_grad


def f32(*values):
    return Tensor(np.array(values, np.float32))


# ---- setitem under a recorded gradient (defect 4) -------------------------------------------
def test_setitem_gradient_is_zero_at_written_positions():
    def f(x):
        y = x * 1
        y[0] = 5.0
        return y.sum()
    np.testing.assert_array_equal(ms.grad(f)(f32(1, 2, 3)).asnumpy(), [0, 1, 1])


def test_setitem_value_gradient_is_summed_back_with_broadcasting():
    """MindSpore 2.10 gives ([2, 0, 0], [8])."""
    def f(x, v):
        y = x * 1
        y[1:] = v
        return (y * y).sum()
    gx, gv = ms.grad(f, (0, 1))(f32(1, 2, 3), f32(2))
    np.testing.assert_array_equal(gx.asnumpy(), [2, 0, 0])
    np.testing.assert_array_equal(gv.asnumpy(), [8])


def test_setitem_forward_values_are_numpy_assignment():
    def f(x, v):
        y = x * 1
        y[[2, 0, 2]] = v
        return y
    out = ms.grad(f, (0, 1))  # runs the recorded path
    out(f32(1, 2, 3), f32(7, 8, 9))
    y = f(f32(1, 2, 3), f32(7, 8, 9))
    ref = np.array([1, 2, 3], np.float32)
    ref[[2, 0, 2]] = [7, 8, 9]
    np.testing.assert_array_equal(y.asnumpy(), ref)
    recorded = []

    def g(x, v):
        y = f(x, v)
        recorded.append(y.asnumpy().copy())
        return y.sum()
    ms.grad(g, (0, 1))(f32(1, 2, 3), f32(7, 8, 9))
    np.testing.assert_array_equal(recorded[0], ref)


def test_setitem_of_a_watched_input_gives_the_gradient_of_its_original_values():
    def f(x):
        x[0] = 5.0
        return (x * x).sum()
    x = f32(1, 2, 3)
    np.testing.assert_array_equal(ms.grad(f)(x).asnumpy(), [0, 4, 6])
    np.testing.assert_array_equal(x.asnumpy(), [5, 2, 3])   # the write itself happened


def test_setitem_of_a_weight_gives_the_gradient_of_its_original_values():
    w = Parameter(f32(1, 2, 3), name="w")

    def f(x):
        w[1] = 0.0
        return (w * x).sum() + (w * w).sum()
    gx, gw = ms.grad(f, 0, [w])(f32(1, 1, 1))
    np.testing.assert_array_equal(gx.asnumpy(), [1, 0, 3])
    np.testing.assert_array_equal(gw[0].asnumpy(), [1 + 2, 0, 1 + 6])


def test_setitem_of_a_constant_after_its_use_keeps_the_used_values():
    """y = x * w used w's old values: the gradient w.r.t. x is the old w."""
    w = f32(1, 2, 3)

    def f(x):
        y = x * w
        w[0] = 100.0
        return y.sum()
    np.testing.assert_array_equal(ms.grad(f)(f32(1, 1, 1)).asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(w.asnumpy(), [100, 2, 3])


def test_setitem_twice_and_a_use_in_between():
    def f(x):
        y = x * 2
        z = y * y              # uses y before the writes: 2 * y * 2 = 8x
        y[0] = 0.0
        y[1] = x[0]            # value from x: d/dx0 += 1
        return z.sum() + y.sum()
    g = ms.grad(f)(f32(1, 2, 3)).asnumpy()
    np.testing.assert_allclose(g, [8 * 1 + 1, 8 * 2, 8 * 3 + 2])


def _index_cases():
    return [
        (lambda y: y.__setitem__(0, 1.5), (3, 4)),
        (lambda y: y.__setitem__((slice(None), 1), -2.0), (3, 4)),
        (lambda y: y.__setitem__((Ellipsis, slice(1, None, 2)), 0.25), (3, 4)),
        (lambda y: y.__setitem__([2, 0, 2], 3.0), (3, 4)),
        (lambda y: y.__setitem__(np.array([[True, False, True, False]] * 3), 1.0), (3, 4)),
    ]


@pytest.mark.parametrize("write,shape", _index_cases())
def test_setitem_gradcheck_scalar_values(write, shape):
    def f(x):
        y = ops.exp(x)
        write(y)
        return y * x
    check_grad(f, np.random.default_rng(0).standard_normal(shape))


@pytest.mark.parametrize("index,vshape", [
    ((1,), (4,)), ((slice(None), 2), (3,)), ((slice(0, 2),), (1, 4)), ((slice(0, 2),), (4,)),
    (([2, 0, 2],), (3, 4)), (([1, 1],), (1,)), ((Ellipsis, 0), ()),
])
def test_setitem_gradcheck_tensor_values(index, vshape):
    def f(x, v):
        y = x * x
        y[index if len(index) > 1 else index[0]] = v * 3
        return ops.sin(y)
    rng = np.random.default_rng(1)
    check_grad(f, rng.standard_normal((3, 4)), rng.standard_normal(vshape))


def test_setitem_with_the_tensor_itself_as_value():
    def f(x):
        y = x * x
        y[...] = y                 # a no-op write: the gradient stays 2x
        return y.sum()
    np.testing.assert_allclose(ms.grad(f)(f32(1, 2, 3)).asnumpy(), [2, 4, 6])


def test_setitem_second_order():
    def f(x):
        y = x * x
        y[1] = x[0] * x[2]
        return y.sum()
    gg = ms.grad(ms.grad(lambda x: f(x) * 1))
    # d/dx (sum of grad): grad = [2x0 + x2, 0, 2x2 + x0]; its sum's gradient = [3, 0, 3]
    np.testing.assert_allclose(gg(Tensor(np.array([1.0, 2.0, 3.0]))).asnumpy(), [3, 0, 3])


@settings(deadline=None, max_examples=25)
@given(st.integers(0, 4), st.integers(1, 5), st.sampled_from([1, 2, -1]))
def test_setitem_slice_gradient_matches_mask(start, stop, step):
    x = np.arange(1.0, 6.0)
    sl = slice(start, stop, step)
    written = np.zeros(5, bool)
    written[sl] = True

    def f(t):
        y = t * 1
        y[sl] = 0.5
        return (y * y).sum()
    g = ms.grad(f)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, np.where(written, 0.0, 2 * x))


@st.composite
def _basic_index(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    index = []
    for d in shape[:draw(st.integers(1, len(shape)))]:
        if draw(st.booleans()):
            index.append(draw(st.integers(-d, d - 1)))
        else:
            index.append(slice(draw(st.none() | st.integers(-d, d)),
                               draw(st.none() | st.integers(-d, d)),
                               draw(st.sampled_from([None, 1, 2, -1]))))
    return shape, tuple(index)


@settings(deadline=None, max_examples=40, database=None)
@given(_basic_index(), st.integers(0, 2 ** 16))
def test_setitem_gradient_matches_numpy_reference(case, seed):
    """dx is W with zeros where written; dv is W at the written positions."""
    shape, index = case
    rng = np.random.default_rng(seed)
    x, w = rng.standard_normal(shape), rng.standard_normal(shape)
    written = np.zeros(shape, bool)
    written[index] = True
    v = rng.standard_normal(np.empty(shape)[index].shape)

    def f(t, u):
        y = t * 1
        y[index] = u * 1
        return (y * Tensor(w)).sum()
    gx, gv = ms.grad(f, (0, 1))(Tensor(x), Tensor(v))
    np.testing.assert_allclose(gx.asnumpy(), np.where(written, 0.0, w))
    np.testing.assert_allclose(gv.asnumpy(), w[index])


def test_int_tensor_written_after_use_as_gather_index_keeps_old_indices():
    idx = Tensor(np.array([0, 0], np.int32))

    def f(x):
        y = ops.gather(x, idx, 0)
        idx[1] = 2
        return y.sum()
    np.testing.assert_array_equal(ms.grad(f)(f32(1, 2, 3)).asnumpy(), [2, 0, 0])


# ---- other in-place writers after a recorded use: an error at backward ---------------------
def _writers():
    def assign(p):
        ops.assign(p, f32(4, 5, 6))

    def assign_add(p):
        ops.assign_add(p, f32(4, 5, 6))

    def assign_value(p):
        p.assign_value(f32(4, 5, 6))

    def set_data(p):
        p.set_data(f32(4, 5, 6))

    def momentum(p):
        acc = Parameter(Tensor(np.zeros(3, np.float32)), name="acc")
        ops.ApplyMomentum()(p, acc, Tensor(0.1, ms.float32), f32(1, 1, 1),
                            Tensor(0.9, ms.float32))
    return [("Assign", assign), ("AssignAdd", assign_add), ("assign_value", assign_value),
            ("assign_value", set_data), ("ApplyMomentum", momentum)]


@pytest.mark.parametrize("op,write", _writers(), ids=[w[1].__name__ for w in _writers()])
def test_write_after_recorded_use_raises_at_backward(op, write):
    p = Parameter(f32(1, 2, 3), name="p")

    def f(x):
        y = p * x
        write(p)
        return y.sum()
    with pytest.raises(RuntimeError, match=f"modified in place by '[^']*{op}'.*'Mul'"):
        ms.grad(f)(f32(1, 1, 1))


def test_write_before_use_uses_new_values():
    """As MindSpore 2.10: Assign then use gives the gradient of the new values."""
    p = Parameter(f32(1, 2, 3), name="p")

    def f(x):
        ops.assign(p, f32(4, 5, 6))
        return (p * x).sum()
    np.testing.assert_array_equal(ms.grad(f)(f32(1, 1, 1)).asnumpy(), [4, 5, 6])


def test_write_to_a_tensor_no_recorded_op_used_is_fine():
    p = Parameter(f32(1, 2, 3), name="p")
    q = Parameter(f32(1, 2, 3), name="q")

    def f(x):
        y = p * x
        ops.assign(q, f32(4, 5, 6))
        return y.sum()
    np.testing.assert_array_equal(ms.grad(f)(f32(1, 1, 1)).asnumpy(), [1, 2, 3])


def test_training_step_after_grad_is_not_an_error():
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    fn = ms.value_and_grad(lambda x: net(x).sum(), None, opt.parameters)
    for _ in range(3):
        _, grads = fn(Tensor(np.ones((4, 3), np.float32)))
        opt(grads)


# ---- views never change after they were returned (defect 8) ---------------------------------
VIEWS = [
    ("reshape", lambda t: ops.reshape(t, (6,))),
    ("expand_dims", lambda t: ops.expand_dims(t, 0)),
    ("squeeze", lambda t: ops.squeeze(ops.reshape(t, (1, 2, 3)))),
    ("flatten", lambda t: ops.flatten(t, start_dim=0)),
    ("Flatten", lambda t: ops.Flatten()(t)),
    ("stop_gradient", lambda t: ops.stop_gradient(t)),
    ("method reshape", lambda t: t.reshape(3, 2)),
]


def _updates():
    def setitem(p):
        p[0, 0] = 100.0

    def assign(p):
        ops.assign(p, Tensor(np.full((2, 3), 7, np.float32)))

    def assign_add(p):
        ops.assign_add(p, Tensor(np.full((2, 3), 7, np.float32)))

    def optimizer(p):
        opt = nn.SGD([p], learning_rate=0.5)
        opt((Tensor(np.ones((2, 3), np.float32)),))
    return [setitem, assign, assign_add, optimizer]


@pytest.mark.parametrize("update", _updates(), ids=lambda f: f.__name__)
@pytest.mark.parametrize("name,view", VIEWS, ids=[v[0] for v in VIEWS])
def test_view_result_does_not_change_when_its_source_is_updated(name, view, update):
    p = Parameter(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), name="w")
    y = view(p)
    before = y.asnumpy().copy()
    update(p)
    assert not np.array_equal(p.asnumpy().reshape(-1), before.reshape(-1))   # p did change
    np.testing.assert_array_equal(y.asnumpy(), before)


@pytest.mark.parametrize("name,view", VIEWS, ids=[v[0] for v in VIEWS])
def test_write_through_a_view_does_not_reach_its_source(name, view):
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = view(x)
    y[0] = 50.0
    np.testing.assert_array_equal(x.asnumpy(), np.arange(6).reshape(2, 3))
    assert y.asnumpy().reshape(-1)[0] == 50.0


def test_view_of_batchnorm_moving_statistics_does_not_change_in_training():
    bn = nn.BatchNorm2d(2)
    bn.set_train(True)
    view = ops.reshape(bn.moving_mean, (1, 2, 1, 1))
    bn(Tensor(np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2)))
    assert bn.moving_mean.asnumpy().any()                      # the statistics moved
    np.testing.assert_array_equal(view.asnumpy(), np.zeros((1, 2, 1, 1)))


def test_views_of_pooled_buffers_are_protected_too():
    x = Tensor(np.ones((512, 512), np.float32)) + 1.0        # 1 MiB: from the memory pool
    y = ops.reshape(x, (-1,))
    x[0, 0] = 9.0
    assert y.asnumpy()[0] == 2.0 and x.asnumpy()[0, 0] == 9.0


def test_writes_stay_in_place_when_no_view_is_alive():
    """Copy-on-write copies only when needed: the optimizer updates the Parameter's own
    memory (as before), also after a view of it died."""
    p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
    y = ops.reshape(p, (6,))
    del y
    arr = p.asnumpy()
    nn.SGD([p], learning_rate=0.5)((Tensor(np.ones((2, 3), np.float32)),))
    assert p.asnumpy() is arr
    np.testing.assert_array_equal(arr, np.full((2, 3), 0.5))


def test_from_numpy_keeps_sharing_memory_with_its_array():
    a = np.zeros(3, np.float32)
    t = Tensor.from_numpy(a)
    t[1] = 4.0
    np.testing.assert_array_equal(a, [0, 4, 0])


def test_unary_plus_is_the_tensor_itself_as_in_mindspore():
    t = f32(1, 2)
    assert (+t) is t


def test_views_stay_unchanged_with_optimizers_in_four_threads():
    import threading
    changed = []

    def work(seed):
        p = Parameter(Tensor(np.full((8, 8), seed, np.float32)), name=f"p{seed}")
        opt = nn.SGD([p], learning_rate=0.1)
        g = (Tensor(np.ones((8, 8), np.float32)),)
        for i in range(100):
            v = ops.reshape(p, (64,))
            before = v.asnumpy().copy()
            opt(g)
            if not np.array_equal(v.asnumpy(), before):
                changed.append((seed, i))
    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not changed


def test_view_registry_stays_bounded():
    from mindlite.kernels import views
    for i in range(5000):
        ops.reshape(Tensor(np.full((2, 2), i, np.float32)), (4,))
    assert len(views._SHARED) <= 2 * 1024
