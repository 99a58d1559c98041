"""Test settings: bounded hypothesis runs so the suite stays fast on 2 cores."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=int(os.environ.get("MINDLITE_HYPOTHESIS_EXAMPLES", "25")), deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("ci")
