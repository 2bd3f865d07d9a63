"""The fast call's contents check of watched arrays (guards._ContentTests):
small arrays compared together by one `b"".join(...) == snapshot`, large ones
by `snapshot.startswith(array)`, others (not C-contiguous, no buffer) by
tobytes().  Every form must see exactly what `_changed` sees -- a change of
bits, shape, dtype or strides in place makes the next call trace again (or
a ConcreteFunction refuse), equal bytes (NaN for the same NaN) do not."""

import warnings

import numpy as np
import pytest

import autograph as ag
from autograph.graph import concrete as concrete_module

SMALL = [(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0.5, -0.0])),
         (np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([np.nan, 2.0]))]
LARGE = np.linspace(-1.0, 1.0, 1024)  # 8 kB: compared by startswith
STRIDED = np.arange(12.0).reshape(3, 4).T  # not C-contiguous: compared by tobytes()
DAYS = np.array(["2026-01-01", "2026-01-03"], dtype="datetime64[D]")  # no buffer


def through_small(x):
    for w, b in SMALL:  # numpy work while tracing: bakes the contents in
        x = x @ w + np.nan_to_num(b, nan=3.0).sum()
    return x


def through_large(x):
    return x + LARGE.sum()


def through_strided(x):
    return x + STRIDED.sum(axis=1)


def through_days(x):
    return x + float((DAYS[1] - DAYS[0]).astype(np.int64))


def _fast(staged, *args):
    """The result of the first fast call, or MISS."""
    return staged._entries[0](args)


def _changes():
    """(label, change, restore) of each way to change SMALL in place."""
    w, b = SMALL[1]

    def set_shape():
        w.shape = (4,)

    def unset_shape():
        w.shape = (2, 2)

    def set_dtype():
        b.dtype = np.int64

    def unset_dtype():
        b.dtype = np.float64

    def set_bits():
        b[1] = -0.0  # 2.0 -> -0.0
        b[1] = 2.0
        w[0, 0] = -0.0  # 0.0 -> -0.0: other bits, equal value

    def unset_bits():
        w[0, 0] = 0.0

    return [("shape", set_shape, unset_shape), ("dtype", set_dtype, unset_dtype),
            ("bits", set_bits, unset_bits)]


@pytest.mark.parametrize("label, change, restore", _changes(), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_an_array_in_a_global_list_changed_in_place_misses_the_fast_call(label, change,
                                                                          restore):
    staged = ag.function(through_small, autograph=False)
    x = np.ones((1, 2))
    expected = through_small(x)
    staged(x)
    np.testing.assert_array_equal(staged(x), expected)  # (makes the fast call)
    np.testing.assert_array_equal(_fast(staged, x), expected)
    assert "join" in staged._entries[0].__code__.co_names
    change()
    try:
        assert _fast(staged, x) is concrete_module.MISS
        if label == "bits":  # the same values, other bits: traced again, same result
            np.testing.assert_array_equal(staged(x), through_small(x))
            assert staged.experimental_get_tracing_count() == 2
    finally:
        restore()
    np.testing.assert_array_equal(staged(x), expected)


def test_the_same_nan_bits_keep_the_fast_call():
    staged = ag.function(through_small, autograph=False)
    x = np.ones((1, 2))
    staged(x)
    staged(x)
    SMALL[1][1][0] = np.nan  # the same NaN written again: the same bytes
    assert _fast(staged, x) is not concrete_module.MISS
    assert staged.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("fn, array, method", [
    (through_large, LARGE, "startswith"),
    (through_strided, STRIDED, "tobytes"),
    (through_days, DAYS, "tobytes"),
])
def test_large_strided_and_unbuffered_arrays(fn, array, method):
    staged = ag.function(fn, autograph=False)
    x = np.zeros(4) if fn is through_strided else np.zeros(())
    expected = fn(x)
    staged(x)
    np.testing.assert_array_equal(staged(x), expected)
    entry = staged._entries[0]
    assert method in entry.__code__.co_names
    np.testing.assert_array_equal(entry((x,)), expected)
    saved = array.copy()
    try:
        array[-1] = array[0]
        assert entry((x,)) is concrete_module.MISS
        np.testing.assert_array_equal(staged(x), fn(x))
        assert staged.experimental_get_tracing_count() == 2
    finally:
        array[...] = saved


def test_strides_changed_in_place_miss_the_fast_call():
    """An array whose strides are assigned no longer exports its buffer:
    the join raises, which the entry turns into a miss (the slow path then
    compares tobytes(), the contents in their new order)."""
    held = np.array([[1.0, 2.0], [3.0, 4.0]])

    def reads(x):
        return x + held.cumsum()  # (C order: 1, 3, 6, 10)

    staged = ag.function(reads, autograph=False)
    x = np.zeros(4)
    expected = reads(x)
    staged(x)
    np.testing.assert_array_equal(staged(x), expected)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (setting strides, numpy 2.4)
        held.strides = (8, 16)  # the transpose, in place: the same shape and dtype
    assert held.shape == (2, 2) and not held.flags.c_contiguous
    assert _fast(staged, x) is concrete_module.MISS
    np.testing.assert_array_equal(staged(x), reads(x))
    assert not np.array_equal(reads(x), expected)
    assert staged.experimental_get_tracing_count() == 2


def test_a_concrete_function_refuses_a_watched_list_changed_in_place():
    staged = ag.function(through_small, autograph=False)
    x = np.ones((1, 2))
    concrete = staged.get_concrete_function(x)
    concrete(x)
    concrete(x)
    assert concrete._entry
    saved = SMALL[0][1].copy()
    try:
        SMALL[0][1][0] = 7.0
        with pytest.raises(ag.errors.GraphError, match="changed in place"):
            concrete(x)
    finally:
        SMALL[0][1][...] = saved
    np.testing.assert_array_equal(concrete(x), through_small(x))


PAIR = [SMALL[0][0], SMALL[0][0]]  # one array held twice


def through_pair(x):
    return x @ (PAIR[0] + PAIR[1])


def test_an_array_held_twice_is_compared_once_and_still_watched():
    staged = ag.function(through_pair, autograph=False)
    x = np.ones((1, 2))
    staged(x)
    staged(x)
    entry = staged._entries[0]
    assert [n for n in entry.__globals__ if n.startswith("_shape")] == ["_shape0"]
    saved = PAIR[0].copy()
    try:
        PAIR[1][0, 0] = 5.0
        assert entry((x,)) is concrete_module.MISS
        np.testing.assert_array_equal(staged(x), through_pair(x))
    finally:
        PAIR[0][...] = saved


SECOND = [np.array([2.0, 3.0]), np.array([4.0, 5.0])]


def through_two_lists(x):
    return x @ SMALL[0][0] + SECOND[0] * SECOND[1].sum()


def test_two_watched_lists_keep_the_fast_call():
    """Each watched list's items get their own names in the fast call (a
    second list's items once took the first's: the fast call always missed)."""
    staged = ag.function(through_two_lists, autograph=False)
    x = np.ones((3, 2))
    for _ in range(3):
        np.testing.assert_array_equal(staged(x), through_two_lists(x))
    assert _fast(staged, x) is not concrete_module.MISS
    saved = SECOND[1]
    try:
        SECOND[1] = saved.copy()  # equal, but another array: the list's item test
        assert _fast(staged, x) is concrete_module.MISS
    finally:
        SECOND[1] = saved
    assert _fast(staged, x) is not concrete_module.MISS
