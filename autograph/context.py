"""The explicit context every pass receives: what is converted, and how."""

import dataclasses
import os
import types

from autograph import naming


def _env_flag(name):
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


@dataclasses.dataclass(frozen=True)
class ConversionOptions:
    """How to convert. Part of the conversion cache key, so it is hashable.

    recursive: convert user functions met through calls (converted_call).
    strict: a callee that cannot be converted is an error, not a warning.
    """
    recursive: bool = True
    strict: bool = dataclasses.field(default_factory=lambda: _env_flag("AUTOGRAPH_STRICT"))


@dataclasses.dataclass(frozen=True)
class EntityInfo:
    """The function being converted, as found by `source.py`."""
    name: str            # the function's __name__ ('<lambda>' for lambdas)
    filename: str        # the user's file (or the linecache key)
    lineno: int          # first line of the definition (decorators included)
    source: str          # the definition's source text, as the user wrote it
    namespace: types.MappingProxyType  # globals overlaid with closure values
    # The function's free variables: their values vary per function object of
    # one code object (whose conversion is shared), so none means a builtin.
    closure_names: frozenset = frozenset()


@dataclasses.dataclass(frozen=True)
class Context:
    info: EntityInfo
    options: ConversionOptions
    namer: naming.Namer
    # What converted code calls the runtime module and its FunctionScope:
    # ("ag__", "fscope"), unless the user's function has variables so named.
    cells: tuple = naming.GENERATED_NAMES

    def where(self, node):
        """'file.py:12' of a node of the user's code."""
        return f"{self.info.filename}:{getattr(node, 'lineno', self.info.lineno)}"
