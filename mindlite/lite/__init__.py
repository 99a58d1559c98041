"""MindSpore Lite in mindlite: `.ms` model files (MINDIR_LITE, schema MSL2), the converter,
the Lite runtime with MindSpore Lite's Python API (`mindspore_lite`), and delegates.

    from mindlite import lite as mslite
    mslite.converter.convert(net, x, file_name="net")          # or the CLI:
    #   python -m mindlite.lite.converter --fmk=MINDIR --modelFile=net.mindir --outputFile=net
    model = mslite.Model()
    model.build_from_file("net.ms", mslite.ModelType.MINDIR_LITE, mslite.Context())

Pipeline: ms_file (read/write) -> session.LiteModel.construct_model -> LiteSession.compile_graph
-> scheduler.Scheduler (kernel.py kernels, delegate.py) -> graph_build (mindlite programs).
See docs/lite.md.
"""
from .api import Context, CPUDeviceInfo, DataType, Model, ModelType, Tensor  # noqa: F401
from .delegate import Delegate, DelegateModel, OnnxRuntimeDelegate  # noqa: F401
from .kernel import CallBackParam  # noqa: F401
from .ms_file import MsFileError  # noqa: F401


def __getattr__(name):
    """`mindlite.lite.converter` on first use (not at import: `python -m
    mindlite.lite.converter` must find it unimported)."""
    if name == "converter":
        import importlib
        return importlib.import_module(".converter", __name__)
    raise AttributeError(f"module 'mindlite.lite' has no attribute {name!r}")
