"""Test settings: bounded hypothesis runs so the suite stays fast on 2 cores, and every cache or
config folder a test (or a subprocess it starts) would write under ~ redirected into pytest's
tmp dir: mindlite's compiled Custom AOT libraries, IPython's and Jupyter's folders (the
notebook tests start a kernel), matplotlib's config and font cache."""
import os

import pytest
from hypothesis import HealthCheck, settings

import mindlite as ms

settings.register_profile(
    "ci", max_examples=int(os.environ.get("MINDLITE_HYPOTHESIS_EXAMPLES", "25")), deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("ci")

# environment variable -> folder under the session's tmp dir
HOME_DIRS = {"MINDLITE_CUSTOM_AOT_CACHE": "custom_aot", "IPYTHONDIR": "ipython",
             "JUPYTER_CONFIG_DIR": "jupyter_config", "JUPYTER_DATA_DIR": "jupyter_data",
             "JUPYTER_RUNTIME_DIR": "jupyter_runtime", "MPLCONFIGDIR": "matplotlib"}


@pytest.fixture(scope="session", autouse=True)
def _cache_dirs_in_tmp(tmp_path_factory):
    root = tmp_path_factory.mktemp("home")
    saved = {k: os.environ.get(k) for k in HOME_DIRS}
    for key, sub in HOME_DIRS.items():
        (root / sub).mkdir()
        os.environ[key] = str(root / sub)
    yield root
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(params=["ms", "vm"])
def policy(request):
    """Run a test under both backend policies: registered kernels, then numpy reference only."""
    ms.set_context(backend_policy=request.param)
    yield request.param
    ms.set_context(backend_policy="ms")


@pytest.fixture
def conv_engine_settings_restored():
    """The convolution engine's process-wide settings (Winograd mode, thread count) as they were
    before the test (the Winograd tests force modes and thread counts)."""
    from mindlite import _C
    was = _C.conv_winograd()
    yield
    _C.conv_winograd(was)
    _C.set_num_threads(0)
