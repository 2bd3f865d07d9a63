"""autograph: write plain Python control flow; stage it into a graph when the
operands are graph values, run it as ordinary Python when they are not."""

from autograph.api import convert, do_not_convert, to_code, to_graph
from autograph.errors import AutoGraphError

__all__ = [
    "AutoGraphError",
    "convert",
    "do_not_convert",
    "to_code",
    "to_graph",
]
