"""Test settings: bounded hypothesis runs so the suite stays fast on 2 cores."""
import os

import pytest
from hypothesis import HealthCheck, settings

import mindlite as ms

settings.register_profile(
    "ci", max_examples=int(os.environ.get("MINDLITE_HYPOTHESIS_EXAMPLES", "25")), deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("ci")


@pytest.fixture(params=["ms", "vm"])
def policy(request):
    """Run a test under both backend policies: registered kernels, then numpy reference only."""
    ms.set_context(backend_policy=request.param)
    yield request.param
    ms.set_context(backend_policy="ms")
