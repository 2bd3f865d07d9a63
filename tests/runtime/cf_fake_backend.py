"""A tiny fake backend for the control-flow tests: `Sym` is a staged scalar
that carries its concrete value, so staged results can be checked, and the
backend records which operators were staged."""

import operator

from autograph.runtime import control_flow, registry
from autograph.runtime.backend import Backend


class Sym:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value.value if type(value) is Sym else value

    def __repr__(self):
        return f"Sym({self.value!r})"

    def __bool__(self):
        raise TypeError("bool() of a staged Sym: this must have been staged")

    def __iter__(self):
        raise TypeError("iter() of a staged Sym")


def _value(v):
    return v.value if type(v) is Sym else v


def _binary(op):
    return lambda a, b: Sym(op(_value(a), _value(b)))


def _reflected(op):
    return lambda a, b: Sym(op(_value(b), _value(a)))


for _name in ("add", "sub", "mul", "floordiv", "truediv", "mod", "lt", "le", "gt", "ge",
              "eq", "ne", "and_", "or_"):
    _dunder = _name.rstrip("_")
    setattr(Sym, f"__{_dunder}__", _binary(getattr(operator, _name)))
    setattr(Sym, f"__r{_dunder}__", _reflected(getattr(operator, _name)))
Sym.__neg__ = lambda a: Sym(-a.value)
Sym.__invert__ = lambda a: Sym(not a.value)
Sym.__hash__ = object.__hash__


class SymRange:
    """A staged `range` (what `range_` would give for a staged bound)."""

    def __init__(self, start, stop, step=1):
        self.start, self.stop, self.step = start, stop, step


class FakeBackend(Backend):
    name = "fake"

    def __init__(self):
        self.calls = []

    def owns(self, value):
        return type(value) in (Sym, SymRange)

    def cond(self, pred, true_fn, false_fn, state, names):
        self.calls.append(("cond", tuple(names)))
        true_out, false_out = true_fn(*state), false_fn(*state)  # trace both branches
        return tuple(Sym(v) for v in (true_out if _value(pred) else false_out))  # staged outputs

    def while_loop(self, test_fn, body_fn, state, names, opts):
        self.calls.append(("while", tuple(names), opts))
        state = tuple(Sym(v) for v in state)
        while _value(test_fn(*state)):
            state = tuple(Sym(v) for v in body_fn(*state))
        return state

    def for_range(self, start, stop, step, body_fn, state, names, opts, target=None,
                  extra_test=None):
        self.calls.append(("for_range", tuple(names), opts))
        for i in range(_value(start), _value(stop), _value(step)):
            state = tuple(Sym(v) for v in body_fn(Sym(i), *state))
        return state

    def for_each(self, iterable, body_fn, state, names, opts, target=None, extra_test=None):
        self.calls.append(("for_each", tuple(names), opts))
        for item in _value(iterable):
            state = tuple(Sym(v) for v in body_fn(Sym(item), *state))
        return state

    def print_(self, *values, sep=" ", end="\n"):
        print(*map(_value, values), sep=sep, end=end)

    def assert_(self, pred, message):
        assert _value(pred), message

    def stack(self, items):
        return Sym([_value(i) for i in items])


BACKEND = registry.register_backend(FakeBackend())


def value(v):
    """Concrete value of a result (Syms unwrapped, tuples/lists recursively)."""
    if type(v) in (tuple, list):
        return type(v)(value(x) for x in v)
    return _value(v)


control_flow.register_range_type(SymRange)


def outcome(fn, *args):
    """(result or (exception type, message), printed text) of a call."""
    import contextlib
    import copy
    import io
    args = copy.deepcopy(args)  # each run gets its own mutable arguments
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = value(fn(*args))
        except Exception as e:  # noqa: BLE001 - compared, not hidden
            result = (type(e), str(e))
    return result, out.getvalue()


def assert_same(fn, *args):
    """The converted function behaves as `fn` on `args` (value, prints, error)."""
    import autograph as ag
    expected = outcome(fn, *args)
    assert outcome(ag.to_graph(fn), *args) == expected
    return expected[0]
