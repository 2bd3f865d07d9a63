"""A minimal backend for runtime tests: `Sym` values carry a concrete value,
so staged results can be checked; every staged operation is logged."""

from autograph.runtime import registry
from autograph.runtime.backend import Backend


def unwrap(v):
    return v.value if type(v) is Sym else v


class Sym:
    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"Sym({self.value!r})"

    def __eq__(self, other):
        return Sym(self.value == unwrap(other))

    def __lt__(self, other):
        return Sym(self.value < unwrap(other))

    def __gt__(self, other):
        return Sym(self.value > unwrap(other))

    def __le__(self, other):
        return Sym(self.value <= unwrap(other))

    def __add__(self, other):
        return Sym(self.value + unwrap(other))

    __radd__ = __add__

    __hash__ = object.__hash__


class FakeBackend(Backend):
    name = "fake"

    def __init__(self):
        self.log = []

    def owns(self, value):
        return type(value) is Sym

    def cond(self, pred, true_fn, false_fn, state, names):
        self.log.append(("cond", names))
        true_out, false_out = true_fn(*state), false_fn(*state)  # both are traced
        chosen = true_out if unwrap(pred) else false_out
        return tuple(Sym(unwrap(v)) for v in chosen)

    def for_range(self, start, stop, step, body_fn, state, names, opts, target=None,
                  extra_test=None):
        self.log.append(("for_range", unwrap(start), unwrap(stop), unwrap(step)))
        for i in range(unwrap(start), unwrap(stop), unwrap(step)):
            state = body_fn(Sym(i), *state)
        return state

    def print_(self, *values, sep=" ", end="\n"):
        self.log.append(("print", tuple(unwrap(v) for v in values), sep, end))

    def assert_(self, pred, message):
        self.log.append(("assert", unwrap(pred), message))

    def stack(self, items):
        self.log.append(("stack",))
        return Sym([unwrap(i) for i in items])

    def len_(self, value):
        return Sym(len(value.value))

    def range_len(self, start, stop, step):
        return Sym(len(range(unwrap(start), unwrap(stop), unwrap(step))))


BACKEND = registry.register_backend(FakeBackend())
