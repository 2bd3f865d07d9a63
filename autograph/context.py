"""The explicit context every pass receives: what is converted, and how."""

import builtins
import collections
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


def namespace_of(fn):
    """What names in the function's body refer to: closure, globals, builtins."""
    closure = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            closure[name] = cell.cell_contents
        except ValueError:  # an empty cell: the name is not bound yet
            pass
    return types.MappingProxyType(collections.ChainMap(closure, fn.__globals__, vars(builtins)))


class Facts:
    """What a conversion asks of its function's namespace, closure and
    builtins -- the only things, beside the source text and the code object,
    that its result depends on.  Every such question goes through `ask`,
    which records (question, argument, answer): the on-disk conversion cache
    (conversion_cache.py) stores the answers with the converted code and
    asks them again of the function it loads the entry for; any answer that
    differs means converting again.  Questions and arguments are strings
    (tuples of strings), answers bools, None or tuples of strings, so they
    compare across processes.

    `replay`: recorded answers to give instead of asking (a loaded entry's
    code converted again for `to_code` must read what the first conversion
    read)."""

    def __init__(self, fn, namespace=None, replay=None):
        self.fn = fn
        self._namespace = namespace
        self.asked = {}
        self._replay = replay

    @property
    def namespace(self):
        if self._namespace is None:
            self._namespace = namespace_of(self.fn)
        return self._namespace

    def ask(self, question, argument):
        key = (question, argument)
        answer = self.asked.get(key, _MISSING)
        if answer is _MISSING:
            if self._replay is not None and key in self._replay:
                answer = self._replay[key]
            else:
                answer = QUESTIONS[question](self, argument)
            self.asked[key] = answer
        return answer

    def recorded(self):
        """The answers given, as (question, argument, answer) tuples."""
        return tuple((question, argument, answer)
                     for (question, argument), answer in self.asked.items())

    def all_same(self, recorded):
        """Whether every recorded answer is the one the question gets now."""
        return all(self.ask(question, argument) == answer
                   for question, argument, answer in recorded)


_MISSING = object()


def _means_the_builtin(facts, name):
    """Whether a global `name` is the builtin so named (function_scope.is_builtin)."""
    builtin = getattr(builtins, name, _MISSING)
    return builtin is not _MISSING and facts.namespace.get(name, builtin) is builtin


def _is_a_builtin_name(facts, name):
    """Whether `name` is a builtin now (call_only: gettext.install adds `_`)."""
    return name in builtins.__dict__


def _what_dotted_names_are(facts, names):
    """(__module__, __name__) of the object `a.b.c` (names ('a', 'b', 'c'))
    denotes through modules and classes, or None (directives.py)."""
    found = facts.namespace.get(names[0])
    for attr in names[1:]:
        if not isinstance(found, (types.ModuleType, type)):
            return None
        found = getattr(found, attr, None)
    module, name = getattr(found, "__module__", None), getattr(found, "__name__", None)
    return (module, name) if isinstance(module, str) and isinstance(name, str) else None


def _closure_holds_a_cell_value(facts, name):
    """Whether `fn`'s closure cell `name` (`ag__`, `fscope`) holds the runtime
    or a FunctionScope: a function nested in converted code closes over the
    real ones (transpiler._cell_names_in_use)."""
    from autograph import runtime
    code = facts.fn.__code__
    cell = dict(zip(code.co_freevars, facts.fn.__closure__ or ())).get(name)
    try:
        value = cell.cell_contents
    except (ValueError, AttributeError):  # (empty, or no such cell)
        return False
    return value is runtime or isinstance(value, runtime.FunctionScope)


# question -> its function of (Facts, argument): every read of a converted
# function's namespace or closure, in one table
QUESTIONS = {
    "means_the_builtin": _means_the_builtin,
    "is_a_builtin_name": _is_a_builtin_name,
    "what_dotted_names_are": _what_dotted_names_are,
    "closure_holds_a_cell_value": _closure_holds_a_cell_value,
}


@dataclasses.dataclass(frozen=True)
class Context:
    info: EntityInfo
    options: ConversionOptions
    namer: naming.Namer
    # What converted code calls the runtime module and its FunctionScope:
    # ("ag__", "fscope"), unless the user's function has variables so named.
    cells: tuple = naming.GENERATED_NAMES
    # Every question to the namespace goes through it (Facts); one over
    # info.namespace when none is given (tests build contexts by hand).
    facts: Facts = None

    def __post_init__(self):
        if self.facts is None:
            object.__setattr__(self, "facts", Facts(None, self.info.namespace))

    def where(self, node):
        """'file.py:12' of a node of the user's code."""
        return f"{self.info.filename}:{getattr(node, 'lineno', self.info.lineno)}"
