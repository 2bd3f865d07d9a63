"""State a trace read without the function's code naming it: a deque
argument (keyed by contents, like a list), a deque in a watched path
(fingerprinted like a list), and attributes read by methods Python calls
implicitly (`len(bag)` runs Bag.__len__ unconverted).  Each changed between
two calls must give Python's value, never the first graph's."""

import collections

import numpy as np
import pytest
from follows_python import assert_follows_python

import autograph as ag

X = np.ones(2)


def _agree(f, first, change):
    """ag.function(f) on (X, first) follows Python before and after
    change(first)."""
    return assert_follows_python(f, (X, first), lambda: change(first))


def times_length(x, holder):
    return x * len(holder)


def test_deque_argument_appended_to_between_calls():
    _agree(times_length, collections.deque([1]), lambda d: d.append(2))


def test_deque_argument_of_arrays_gets_a_deque_with_its_maxlen():
    def f(x, d):
        assert type(d) is collections.deque and d.maxlen == 3
        return x * len(d) + d[-1]

    d = collections.deque([np.ones(2), np.full(2, 2.0)], maxlen=3)
    staged = _agree(f, d, lambda d: d.append(np.full(2, 5.0)))
    # (its compiled guard: an equal deque hits, another maxlen does not)
    same = collections.deque([np.ones(2), np.ones(2), np.ones(2)], maxlen=3)
    np.testing.assert_array_equal(staged(X, same), f(X, same))
    other = collections.deque([np.ones(2), np.ones(2), np.ones(2)], maxlen=4)
    with pytest.raises(AssertionError):
        staged(X, other)  # (traced again: the function sees maxlen 4)


def test_deque_argument_without_arrays_is_a_copy_as_a_list_is():
    seen = []

    def f(x, d):
        seen.append(d)
        return x * len(d)

    d = collections.deque([1, 2], maxlen=5)
    ag.function(f)(X, d)
    assert seen[0] is not d and seen[0] == d and seen[0].maxlen == 5


class Holder:
    pass


def test_deque_of_arrays_in_an_attribute():
    holder = Holder()
    holder.buf = collections.deque([np.ones(2)])
    _agree(lambda x, h: x * len(h.buf), holder, lambda h: h.buf.append(np.ones(2)))


def test_array_in_a_deque_changed_in_place():
    holder = Holder()
    holder.buf = collections.deque([np.ones(2)])
    _agree(lambda x, h: x + h.buf[0].sum(), holder, lambda h: h.buf[0].__iadd__(1.0))


class Sized:
    def __init__(self):
        self.n = 1

    def __len__(self):
        return self.n


class Indexed:
    def __init__(self):
        self.w = np.ones(2)

    def __getitem__(self, i):
        return self.w[i]


class Scaled:
    scale = 2.0

    def __init__(self):
        self.w = np.ones(2)

    def __mul__(self, other):
        return other * self._weights()

    def _weights(self):  # (called by the dunder, unconverted too)
        return self.w * self.scale


class Stack:
    def __init__(self):
        self.layers = [np.ones(2)]

    def __iter__(self):
        return iter(self.layers)

    def __len__(self):
        return len(self.layers)


def test_attribute_read_by_len_changed():
    _agree(times_length, Sized(), lambda s: setattr(s, "n", 3))


def test_array_read_by_getitem_rebound():
    _agree(lambda x, m: x * m[0], Indexed(), lambda m: setattr(m, "w", np.full(2, 5.0)))


def test_array_read_by_getitem_changed_in_place():
    _agree(lambda x, m: x * m[0], Indexed(), lambda m: m.w.__iadd__(3.0))


def test_attribute_read_by_an_operators_helper_method_rebound():
    _agree(lambda x, m: m * x, Scaled(), lambda m: setattr(m, "w", np.full(2, 4.0)))


def test_class_attribute_read_by_a_helper_of_a_dunder():
    obj = Scaled()

    def restore(_):
        Scaled.scale = 2.0

    try:
        _agree(lambda x, m: m * x, obj, lambda m: setattr(Scaled, "scale", 3.0))
    finally:
        restore(None)


def test_list_of_arrays_read_by_iter_and_len():
    def f(x, s):
        total = x * len(s)
        for layer in s:
            total = total + layer
        return total

    _agree(f, Stack(), lambda s: s.layers.append(np.full(2, 7.0)))


def test_object_in_a_global_read_through_len():
    global SIZED
    SIZED = Sized()

    def f(x):
        return x * len(SIZED)

    staged = ag.function(f)
    np.testing.assert_array_equal(staged(X), X)
    SIZED.n = 4
    np.testing.assert_array_equal(staged(X), X * 4)


def test_plain_objects_are_not_watched_wider():
    # (an object whose class defines no such method: its attributes the
    # function does not name stay unwatched -- changing one does not retrace)
    from autograph.graph import guards

    class Plain:
        def __init__(self):
            self.w, self.unread = np.ones(2), np.ones(2)

    def f(x, p):
        return x * p.w

    plain = Plain()
    found = guards.guards_of(f, [plain])
    assert [label for _, _, _, label, _ in found] == ["attribute 'w'"]
    assert guards._implicit_reads(Plain) == (frozenset(), ())
    sized = Sized()
    sized.unread = np.ones(2)
    labels = [label for _, _, _, label, _ in guards.guards_of(times_length, [sized])]
    assert labels == ["attribute 'n'"]


class Bag:
    def __init__(self):
        self.items = [1]

    def __len__(self):
        return len(self.items)

    def add(self, value):
        self.items.append(value)


def test_list_of_numbers_read_by_len():
    # (a list of numbers the function names itself is not watched -- a log --
    # but one an implicitly called method answers from is)
    _agree(times_length, Bag(), lambda b: b.add(2))


def test_list_of_numbers_read_by_len_in_a_global():
    global BAG
    BAG = Bag()

    def f(x):
        return x * len(BAG)

    staged = ag.function(f)
    np.testing.assert_array_equal(staged(X), X)
    BAG.items.append(5)
    np.testing.assert_array_equal(staged(X), X * 2)
    BAG.items[:] = [7]  # (same length, other items: retraces, same value)
    np.testing.assert_array_equal(staged(X), X)


class Inner:
    def __init__(self):
        self.items = [1]
        self.n = 1


class Outer:
    def __init__(self):
        self.inner = Inner()

    def __len__(self):
        return len(self.inner.items) * self.inner.n


def test_what_a_dunder_reads_below_its_object():
    _agree(times_length, Outer(), lambda o: o.inner.items.append(2))
    _agree(times_length, Outer(), lambda o: setattr(o.inner, "n", 3))


class Allowed:
    def __init__(self):
        self.codes = {1}
        self.groups = [{1}]

    def __contains__(self, code):
        return code in self.codes

    def __len__(self):
        return sum(len(group) for group in self.groups)


def test_set_read_by_contains():
    def f(x, allowed):
        return x * 2.0 if 2 in allowed else x

    _agree(f, Allowed(), lambda a: a.codes.add(2))


def test_set_in_a_list_read_by_len():
    _agree(times_length, Allowed(), lambda a: a.groups[0].add(2))


class Slotted:
    __slots__ = ("items",)

    def __init__(self):
        self.items = [1]

    def __len__(self):
        return len(self.items)


class Truth:
    def __init__(self):
        self.on = True

    def __bool__(self):
        return self.on


class Index:
    def __init__(self):
        self.k = 2

    def __index__(self):
        return self.k


class Real:
    def __init__(self):
        self.v = 2.0

    def __float__(self):
        return self.v


class Buffered:
    def __init__(self):
        self.buf = collections.deque([1.0])

    def __iter__(self):
        return iter(self.buf)


def _sum_over(x, values):
    total = x
    for v in values:
        total = total + v
    return total


@pytest.mark.parametrize("f, make, change", [
    (times_length, Slotted, lambda s: s.items.append(2)),
    (lambda x, b: x * 2.0 if b else x, Truth, lambda b: setattr(b, "on", False)),
    (lambda x, i: x * len(range(i)), Index, lambda i: setattr(i, "k", 5)),
    (lambda x, r: x * float(r), Real, lambda r: setattr(r, "v", 5.0)),
    (_sum_over, Buffered, lambda b: b.buf.append(3.0)),
], ids=["slots-len", "bool", "index", "float", "iter-deque"])
def test_other_implicitly_called_methods(f, make, change):
    _agree(f, make(), change)
