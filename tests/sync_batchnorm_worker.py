"""The per-rank program of tests/test_nn_norm_sync.py (`mpiexec -n N python
tests/sync_batchnorm_worker.py`; no pytest test here): each rank feeds its slice of one
batch to SyncBatchNorm and checks the output, the input and parameter gradients and the
moving statistics against BatchNorm2d run on the whole batch in this process. Prints
"OK sync_bn rank R"."""
import numpy as np


def main():
    import mindlite as ms
    from mindlite import Tensor, nn, ops
    from mindlite.communication import get_group_size, get_rank, init
    init()
    r, n = get_rank(), get_group_size()
    rng = np.random.default_rng(0)
    full = rng.normal(size=(2 * n, 3, 4, 5)).astype(np.float64)
    weights = rng.uniform(0.5, 1.5, full.shape)
    mine = slice(2 * r, 2 * r + 2)

    def run(bn, x, w):
        bn.set_train()
        fn = ms.value_and_grad(lambda v: (bn(v) * Tensor(w)).sum(), 0, bn.trainable_params())
        loss, (gx, gparams) = fn(Tensor(x))
        return loss, gx, gparams

    sync = nn.SyncBatchNorm(3, momentum=0.8, dtype=ms.float64)
    ref = nn.BatchNorm2d(3, momentum=0.8, dtype=ms.float64)
    sync.set_train()
    ref.set_train()
    y_sync = sync(Tensor(full[mine])).asnumpy()
    y_ref = ref(Tensor(full)).asnumpy()
    np.testing.assert_allclose(y_sync, y_ref[mine], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(sync.moving_mean.asnumpy(), ref.moving_mean.asnumpy(),
                               rtol=1e-10)
    np.testing.assert_allclose(sync.moving_variance.asnumpy(), ref.moving_variance.asnumpy(),
                               rtol=1e-10)
    _, gx, gp = run(sync, full[mine], weights[mine])
    _, gx_ref, gp_ref = run(ref, full, weights)
    np.testing.assert_allclose(gx.asnumpy(), gx_ref.asnumpy()[mine], rtol=1e-9, atol=1e-10)
    for g, g_ref in zip(gp, gp_ref):                  # parameter grads: summed over ranks
        total = ops.AllReduce()(g).asnumpy()
        np.testing.assert_allclose(total, g_ref.asnumpy(), rtol=1e-9, atol=1e-10)
    sync.set_train(False)                             # inference: the moving statistics
    np.testing.assert_allclose(sync(Tensor(full[mine])).asnumpy(),
                               ref.set_train(False)(Tensor(full)).asnumpy()[mine], rtol=1e-9)
    print(f"OK sync_bn rank {r}", flush=True)


if __name__ == "__main__":
    main()
