"""A user object an ag.function returns: one the traced code made is a new
object at every call, as each Python call makes one (also when it holds no
computed array: it was the trace's own object, the same at every call, so a
caller's change to it showed in the next call's result); one that existed
before the call (an argument, a global, what a singleton's `__new__` keeps)
is that object, as in Python.  New too: one a constructor makes, run
unconverted, inside the one the traced code made (`self.inner = Log()` in
`__init__`, a dataclass field's default_factory), and what copy.deepcopy
makes: each was the same object at every call.  One the trace made that a
dict or list outside the result also holds (a cache, a registry) is
refused: Python's later calls may find it there or make a new one."""

import copy
import dataclasses
import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.ones(2)


class Log:
    def __init__(self, tag):
        self.tag = tag
        self.entries = []


class Slotted:
    __slots__ = ("entries", "inner")

    def __init__(self, inner):
        self.entries = []
        self.inner = inner


class Single:
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance.entries = []
        return cls._instance


GLOBAL_LOG = Log("global")


def _made_log(tag):
    return Log(tag)


def returns_a_new_log(x):
    return Log("step")


def returns_one_from_a_helper(x):
    return _made_log("helper"), x * 2.0


def returns_slotted(x):
    return Slotted(Log("inner"))  # (made by the traced code: new too)


def returns_the_argument(x, log):
    return log


def returns_the_global(x):
    return GLOBAL_LOG


def returns_the_singleton(x):
    return Single()


def _first(result):
    return result[0] if isinstance(result, tuple) else result


def _calls(fn, args):
    """Three calls, the caller appending to the first result's list in
    between: (each result is a new object?, what the third call's holds,
    the same object as the argument or global?)."""
    for kept in (GLOBAL_LOG, Single(), args[-1]):  # (as they were before the calls)
        if isinstance(getattr(kept, "entries", None), list):
            kept.entries.clear()
    first = _first(fn(*args))
    second = _first(fn(*args))
    first.entries.append("changed by the caller")
    third = _first(fn(*args))
    inner = getattr(third, "inner", None)
    return (first is not second, second is not third, list(third.entries),
            inner is not None and inner is not getattr(first, "inner", None),
            third is args[-1] or third is GLOBAL_LOG)


@pytest.mark.parametrize("fn", [returns_a_new_log, returns_one_from_a_helper, returns_slotted,
                                returns_the_global, returns_the_singleton])
def test_a_returned_object_is_new_where_python_makes_one(fn):
    assert _calls(ag.function(fn), (X,)) == _calls(fn, (X,))


def test_a_returned_argument_is_the_argument():
    log = Log("argument")
    assert _calls(ag.function(returns_the_argument), (X, log)) == \
        _calls(returns_the_argument, (X, log))


class Model:
    def __init__(self):
        self.inner = Log("made in __init__")
        self.entries = []


@dataclasses.dataclass
class Record:
    inner: Log = dataclasses.field(default_factory=lambda: Log("default"))
    entries: list = dataclasses.field(default_factory=list)


class HoldsTheGlobal:
    def __init__(self):
        self.inner = GLOBAL_LOG
        self.entries = []


def returns_a_model(x):
    return Model()


def returns_what_init_made(x):
    model = Model()
    return model.inner, x + 1.0


def returns_a_record(x):
    return Record()


def returns_one_holding_the_global(x):
    return HoldsTheGlobal()


def _inner_calls(fn):
    """Three calls, the caller appending to the first result's inner Log in
    between: (is each inner a new object?, what the third call's holds)."""
    GLOBAL_LOG.entries.clear()
    TEMPLATE.inner.entries.clear()
    first = _first(fn(X))
    first = getattr(first, "inner", first)
    first.entries.append("changed by the caller")
    third = _first(fn(X))
    third = getattr(third, "inner", third)
    return first is not third, list(third.entries)


TEMPLATE = Model()


def returns_a_deep_copy(x):
    return copy.deepcopy(TEMPLATE)


def returns_a_copy(x):
    return copy.copy(TEMPLATE)  # (a new Model around the template's own Log, in Python too)


@pytest.mark.parametrize("fn", [returns_a_model, returns_what_init_made, returns_a_record,
                                returns_one_holding_the_global, returns_a_deep_copy,
                                returns_a_copy])
def test_an_object_init_makes_is_new_where_python_makes_one(fn):
    assert _inner_calls(ag.function(fn)) == _inner_calls(fn)


LOGS = {}


class Registered:
    instances = []

    def __init__(self):
        self.inner = LOGS.setdefault("shared", Log("registered"))
        self.entries = []
        Registered.instances.append(self)


def returns_a_cached_log(x):
    return LOGS.setdefault("cached", Log("cached"))


def returns_a_registered_object(x):
    return Registered()


def returns_what_init_cached(x):
    return Registered().inner


@pytest.mark.parametrize("fn, kept", [(returns_a_cached_log, "Log"),
                                      (returns_a_registered_object, "Registered"),
                                      (returns_what_init_cached, "Log")])
def test_a_returned_object_the_trace_also_stored_elsewhere_is_refused(fn, kept):
    """An object the trace made and a dict or list outside the result also
    holds: Python's later calls find that one (a cache) or make a new one (a
    registry), and the graph cannot tell which.  It was copied at each call
    (`LOGS.setdefault(k, Log())` then gave a new Log where Python gives the
    cached one)."""
    LOGS.clear()
    first = fn(X)
    assert fn(X) is (first if fn is not returns_a_registered_object else Registered.instances[-1])
    LOGS.clear()
    before, after = errors.returned_kept_object_message(kept, fn.__name__, "@").split("@")
    with pytest.raises(errors.GraphError, match=re.escape(before) +
                       r"\S*test_returned_objects\.py:\d+" + re.escape(after)):
        ag.function(fn)(X)
