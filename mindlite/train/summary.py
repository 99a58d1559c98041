"""mindlite.train.summary: MindSpore's `mindspore.train.summary` import path for SummaryRecord
(summary_record.py), and `read_summary` to read a summary file back (summary_proto.py)."""
from .summary_record import SummaryRecord

__all__ = ["SummaryRecord", "read_summary"]


def read_summary(path):
    """The events of the summary file at `path` (see summary_proto.read_summary)."""
    from .summary_proto import read_summary as read
    return read(path)
