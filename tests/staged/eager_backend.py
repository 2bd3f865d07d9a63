"""A second, complete backend of the runtime protocol, for tests: it stages
nothing into a graph but computes at once, on numpy.

`Eager` is its staged value: it carries a numpy value, computes every
operator and numpy function on it at once (so results can be checked), and
refuses what Python would need a concrete value for (`bool`, `iter`, `len`,
`int`): control flow on it must reach the backend, through the runtime, as
it would for the graph engine. Both branches of a staged `if` run (as a graph
backend traces both); only the taken one prints, asserts and gives the
outputs. Loops run iteration by iteration, with the state checked by the
runtime's `staging` like the graph backend's.

It is written only against `autograph.runtime` (Backend, LoopState,
structure, staging): what a backend author writes.
"""

import builtins
import contextlib

import numpy as np

from autograph.runtime import registry, staging
from autograph.runtime.backend import Backend
from autograph.runtime.special_values import UndefinedReturnValue
from autograph.runtime.structure import flatten, unflatten


def value_of(v):
    return v.value if isinstance(v, Eager) else v


def _unwrap_all(v):
    kind = type(v)
    if kind is Eager:
        return v.value
    if kind in (list, tuple):
        return kind(_unwrap_all(x) for x in v)
    if kind is dict:
        return {k: _unwrap_all(x) for k, x in v.items()}
    if kind is slice:
        return slice(_unwrap_all(v.start), _unwrap_all(v.stop), _unwrap_all(v.step))
    return v


def _wrap_result(v):
    if isinstance(v, (np.ndarray, np.generic)):
        return Eager(v)
    if type(v) is tuple:
        return tuple(_wrap_result(x) for x in v)
    return v


class Eager(np.lib.mixins.NDArrayOperatorsMixin):
    """A staged value of the eager backend, holding its numpy value."""

    __slots__ = ("value",)

    def __init__(self, value):
        value = value_of(value)
        self.value = value if isinstance(value, np.ndarray) and value.ndim else \
            np.asarray(value)[()]

    @property
    def dtype(self):
        return np.asarray(self.value).dtype

    @property
    def shape(self):
        return np.shape(self.value)

    def __repr__(self):
        return f"Eager({self.value!r})"

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if all(isinstance(o, Eager) for o in kwargs.get("out", [None])):
            kwargs.pop("out")  # `x += 1`: immutable, so a new value (Python rebinds x)
        return _wrap_result(getattr(ufunc, method)(*_unwrap_all(inputs),
                                                   **_unwrap_all(kwargs)))

    def __array_function__(self, func, types, args, kwargs):
        return _wrap_result(func(*_unwrap_all(args), **_unwrap_all(kwargs)))

    def __getitem__(self, key):
        return Eager(self.value[_unwrap_all(key)])

    def __getattr__(self, name):  # methods and attributes of the numpy value
        found = getattr(self.value, name)
        if not callable(found):
            return _wrap_result(found)
        return lambda *args, **kwargs: _wrap_result(
            found(*_unwrap_all(args), **_unwrap_all(kwargs)))

    def _concrete(self, what):
        return TypeError(f"{what} of a staged Eager value: this should have been staged")

    def __bool__(self):
        raise self._concrete("bool()")

    def __iter__(self):
        raise self._concrete("iter()")

    def __len__(self):
        raise self._concrete("len()")

    def __index__(self):
        raise self._concrete("an index")

    __hash__ = object.__hash__


class EagerList:
    """A staged list: a loop variable like any other (its items change, its
    structure does not). Immutable: list operations return a new one."""

    __slots__ = ("items", "element_dtype", "element_shape")
    dtype = np.dtype(object)  # a carried leaf of no array dtype of its own
    shape = ()

    def __init__(self, items=(), element_dtype=None, element_shape=None):
        self.items = list(items)
        self.element_dtype = None if element_dtype is None else np.dtype(element_dtype)
        if self.element_dtype is None and self.items:
            self.element_dtype = np.asarray(value_of(self.items[0])).dtype
        self.element_shape = element_shape

    def __repr__(self):
        return f"EagerList({self.items!r})"


class EagerSequence:
    """A staged iterable made by enumerate_/zip_: its items, ready to iterate."""

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = list(items)


class _Spec:
    """A loop variable's type as the loop keeps it (shape relaxed by shape_invariants)."""

    def __init__(self, dtype, shape):
        self.dtype, self.shape = dtype, shape


class EagerBackend(Backend):
    name = "eager"

    def __init__(self):
        self.live = True      # False while the branch not taken runs
        self.running = False  # inside `run()`: Python lists may become EagerLists

    @contextlib.contextmanager
    def run(self):
        """Converted functions run their staged body while inside."""
        self.running = True
        try:
            with registry.staging(self):
                yield self
        finally:
            self.running = False

    def owns(self, value):
        return type(value) in (Eager, EagerList, EagerSequence)

    # --- control flow ----------------------------------------------------------

    def cond(self, pred, true_fn, false_fn, state, names):
        location = staging.user_location()
        taken = bool(value_of(pred))
        entry = flatten(state, [f"<input {i}>" for i in range(len(state))])

        def run(fn, live):
            outer, self.live = self.live, self.live and live
            try:
                with np.errstate(all="ignore" if not live else None):  # (`x and 1 / x`)
                    return tuple(fn(*unflatten(entry.structure, entry.values)))
            finally:
                self.live = outer

        true_out, false_out = run(true_fn, taken), run(false_fn, not taken)
        chosen = true_out if taken else false_out
        true_out, false_out = staging.return_stand_ins(true_out, false_out, _zeros_like)
        t_side, f_side = flatten(true_out, names), flatten(false_out, names)
        staging.check_branches(t_side, f_side, location)
        side = flatten(chosen, names)
        return unflatten(side.structure, [_staged(v) for v in side.values])

    def while_loop(self, test_fn, body_fn, state, names, opts):
        location = staging.user_location()
        opts = opts or {}
        st = staging.LoopState(state, names, location, "while", opts, empty_list=EagerList)
        # Python numbers stay Python for the first iteration (numpy types them weakly)
        loop_vars = [v if i in st.weak else _staged(v) for i, v in zip(st.carried, st.initial())]
        limit = opts.get("maximum_iterations")
        returned, count = {}, 0
        while limit is None or count < limit:
            if not bool(value_of(st.call(test_fn, loop_vars))):
                break
            out = st.body_outputs(st.call(body_fn, loop_vars))
            for j, i in enumerate(st.carried):
                var = loop_vars[j]
                if i in st.weak:  # numpy types a Python number after one iteration
                    var = staging.promoted(st.names[i], var, out[j], location, "while")
                    st.weak.discard(i)
                if not isinstance(var, EagerList):
                    var = _Spec(np.asarray(value_of(var)).dtype,
                                st.invariants.get(i, np.shape(value_of(var))))
                staging.check_loop_leaf(st.names[i], var, out[j], location, "while")
            returned.update((k, v) for k, v in st.returns.items()
                            if type(v) is not UndefinedReturnValue)
            loop_vars = [_staged(v) for v in out]
            count += 1
        result = list(st.result(loop_vars))
        for k, value in returned.items():
            result[k] = value
        return tuple(result)

    def for_each(self, iterable, body_fn, state, names, opts, target=None, extra_test=None):
        items = self._items(iterable)

        def body(i, *rest):
            return body_fn(items[int(value_of(i))], *rest)

        return self.for_range(0, Eager(len(items)), 1, body, state, names, opts, target)

    def _items(self, iterable):
        if isinstance(iterable, (EagerList, EagerSequence)):
            return iterable.items
        if isinstance(iterable, Eager) and iterable.shape:
            return [Eager(v) for v in iterable.value]
        if isinstance(iterable, (list, tuple, np.ndarray)):
            return list(iterable)
        return super().for_each(iterable, None, (), (), {})  # raises the catalog error

    # --- side effects --------------------------------------------------------------

    def print_(self, *values, sep=" ", end="\n"):
        if self.live:
            builtins.print(*map(value_of, values), sep=sep, end=end)

    def assert_(self, pred, message):
        if self.live and not bool(value_of(pred)):
            raise AssertionError(message) if message is not None else AssertionError()

    # --- builtins --------------------------------------------------------------------

    def len_(self, value):
        if isinstance(value, (EagerList, EagerSequence)):
            return Eager(len(value.items))
        return Eager(len(value.value))

    def range_len(self, start, stop, step):
        return Eager(len(range(*(int(value_of(v)) for v in (start, stop, step)))))

    def enumerate_(self, iterable, start=0):
        return EagerSequence((Eager(int(value_of(start)) + i), item)
                             for i, item in enumerate(self._items(iterable)))

    def zip_(self, *iterables, strict=False):
        return EagerSequence(zip(*(self._items(it) for it in iterables), strict=strict))

    # --- lists -------------------------------------------------------------------------

    def stack(self, items):
        items = items.items if isinstance(items, EagerList) else items
        return Eager(np.stack([value_of(v) for v in items]))

    def list_append(self, target, item):
        return EagerList(target.items + [item], target.element_dtype, target.element_shape)

    def list_pop(self, target, index=None):
        items = list(target.items)
        item = items.pop() if index is None else items.pop(int(value_of(index)))
        return EagerList(items, target.element_dtype, target.element_shape), item

    def list_element_type(self, value):
        if isinstance(value, EagerList):
            return value.element_dtype, value.element_shape
        return None

    def set_element_type(self, target, dtype, shape=None):
        return EagerList(target.items, dtype, shape)

    def python_list_element_type(self, target, dtype, shape=None):
        if not self.running or type(target) is not list:
            return target
        return EagerList(target, dtype, shape)


def _staged(v):
    """A leaf as a staged value: numbers and arrays become Eager."""
    if isinstance(v, (Eager, EagerList)) or not staging.is_carried(v):
        return v
    return Eager(v)


def _zeros_like(leaf):
    if isinstance(leaf, EagerList):
        return EagerList((), leaf.element_dtype, leaf.element_shape)
    if staging.is_carried(leaf):
        return Eager(np.zeros_like(value_of(leaf)))
    return leaf


BACKEND = registry.register_backend(EagerBackend())
