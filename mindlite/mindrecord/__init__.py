"""mindlite.mindrecord: MindSpore's MindRecord files (`mindspore.mindrecord`): FileWriter
writes them, FileReader reads them row by row, and dataset.MindDataset feeds them to a
pipeline. The format (shard_format.py) is MindSpore 2.10's: files written here are read by
MindSpore and the other way round (tests/test_mindrecord.py checks both directions with
MindSpore when its venv is present). Rows go through msgpack (`pip install msgpack`, the
`mindrecord` extra)."""
from .file_io import FileReader, FileWriter

SUCCESS = 0
FAILED = 1

__all__ = ["FileReader", "FileWriter", "SUCCESS", "FAILED"]
