"""MindSpore's `mindspore.common.api` path, where MindSpore's own tests and older scripts
import `jit` from. The functions live on the jit floor above this one; mindlite/__init__.py
binds them here at import (a slot filled from above), so `from mindlite.common.api import
jit` is `mindlite.jit`."""
jit = None
