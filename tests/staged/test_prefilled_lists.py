"""A Python list that holds items before a staged loop and grows in it
(`losses = [first]; while step < n: losses.append(loss)`) becomes a staged
list pre-filled with those items (runtime/lists.py `staged_loop`), when they
and the appended items share one dtype and shape; else it is refused naming
the list and the item.  Each program runs as plain Python, converted (on
plain values), under ag.function and, where jax is installed, under
jax.jit(ag.to_graph(f)); the staged results must be eager numpy's values and
dtypes (a Python number may come back as numpy's scalar of its dtype)."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors

try:
    import jax
except ImportError:  # the jax mode is skipped (an optional extra)
    jax = None


def _run_jax(fn, args):
    jax.config.update("jax_enable_x64", True)  # numpy's dtypes (int64, float64)
    out = jax.jit(ag.to_graph(fn))(*args)
    return jax.tree_util.tree_map(lambda v: np.asarray(v)[()], out)


def _modes(jax_too):
    modes = {"converted": lambda fn, args: ag.to_graph(fn)(*args),
             "graph": lambda fn, args: ag.function(fn)(*args)}
    if jax_too and jax is not None:
        modes["jax"] = _run_jax
    return modes


def _same(expected, actual):
    """Same nesting, numbers, dtypes (a Python int/float may be int64/float64)."""
    if isinstance(expected, (tuple, list)):
        return isinstance(actual, (tuple, list)) and len(actual) == len(expected) and all(
            _same(e, a) for e, a in zip(expected, actual))
    e, a = np.asarray(expected), np.asarray(actual)
    return e.shape == a.shape and e.dtype == a.dtype and bool(np.array_equal(e, a))


def check(fn, *args, jax_too=False):
    expected = fn(*args)
    for mode, run in _modes(jax_too).items():
        actual = run(fn, args)
        assert _same(expected, actual), f"{mode}: {actual!r}, expected {expected!r}"
    return expected


# --- while loops (a trip count known only at run time) ----------------------------

def while_one_item(x, n):
    losses = [x * 0.5]
    step = 0
    while step < n:
        losses.append(x * step)
        step += 1
    return ag.stack(losses), len(losses), losses[0], losses[-1]


def while_several_items(x, n):
    history = [x, x + 1.0, x * 3.0]
    i = 0
    while i < n:
        history.append(history[-1] * 0.5)
        i += 1
    return np.stack(history), history[1]


@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_loop_with_one_item_before(n):
    stacked, length, first, last = check(while_one_item, np.float64(2.0), np.int64(n))
    assert length == n + 1 and first == 1.0


@pytest.mark.parametrize("n", [0, 3])
def test_while_loop_with_several_items_before(n):
    check(while_several_items, np.array([1.0, -2.0]), np.int64(n))


# --- for loops (over an array: jax scans them) -----------------------------------

def for_over_array(x, first):
    seen = [first, first * 2.0]
    for v in x:
        seen.append(v * first)
    return ag.stack(seen), seen[0], seen[3]


def test_for_loop_over_an_array():
    check(for_over_array, np.arange(4.0), np.float64(1.5), jax_too=True)


def for_range_then_return_list(x, n):
    out = [x]
    for i in range(n):
        out.append(x + i)
    return out


@pytest.mark.parametrize("n", [0, 2])
def test_the_list_itself_is_returned(n):
    result = check(for_range_then_return_list, np.array([1.0, 2.0]), np.int64(n))
    assert len(result) == n + 1


# --- what the items before the loop are --------------------------------------------

def grows_from(first, x, n):
    items = [first]
    for _ in range(n):
        items.append(x)
    # (not ag.stack: run eagerly, it leaves a list of Python numbers alone a
    # list, as when the loop ran no iteration here)
    return np.stack(items), items[0], items[-1], len(items)


@pytest.mark.parametrize("first", [1.0, np.float64(1.0), np.array(1.0), 7,
                                   np.int64(7)], ids=repr)
def test_python_numbers_numpy_scalars_and_0d_arrays_before(first):
    x = np.asarray(2.0 if isinstance(first, float) or np.asarray(first).dtype.kind == "f"
                   else 3)[()]
    if type(first) in (int, float):  # then numpy items: a list of both kinds is refused
        with pytest.raises(errors.StagingError, match="the staged list 'items' at .* would "
                           "hold both Python numbers"):
            ag.function(grows_from)(first, x, np.int64(2))
        return
    for n in (0, 2):
        stacked = check(grows_from, first, x, np.int64(n))[0]
        assert stacked.dtype == x.dtype and stacked.shape == (n + 1,)


@pytest.mark.parametrize("first, x, item, appended", [
    # eager numpy would give float64 for the mix: the staged list holds one dtype
    (1.0, np.float32(2.0), r"dtype float64, shape \(\)", r"dtype float32, shape \(\)"),
    (np.float32(1.0), np.float64(2.0), r"dtype float32, shape \(\)",
     r"dtype float64, shape \(\)"),
    (3, np.int32(2), r"dtype int64, shape \(\)", r"dtype int32, shape \(\)"),
    (np.zeros(2), np.zeros(3), r"dtype float64, shape \(2,\)", r"dtype float64, shape \(3,\)"),
])
def test_items_of_another_dtype_or_shape_are_refused(first, x, item, appended):
    if np.ndim(first) == 0:  # eagerly, np.stack promotes: one side's dtype is lost
        eager = grows_from(first, x, 2)[0].dtype
        assert eager != np.asarray(first).dtype or eager != np.asarray(x).dtype
    with pytest.raises(errors.StagingError, match=(
            rf"list 'items' holds items before the staged `for` loop at \S+:\d+, which "
            rf"appends items of {appended}; items\[0\] is {item}\.")):
        ag.function(grows_from)(first, x, np.int64(2))


def grows_from_a_string(x, n):
    log = ["start"]
    for _ in range(n):
        log.append(x)
    return len(log)


def test_items_that_are_not_numbers_keep_the_refusal():
    with pytest.raises(errors.StagingError, match=r"variable 'log' is a Python list of "
                       r"length 1 that the staged `for` loop at \S+:\d+ changes to length 2"):
        ag.function(grows_from_a_string)(np.float64(1.0), np.int64(2))


def aliased(x, n):
    history = [x]
    alias = history
    for _ in range(n):
        history.append(x)
    return len(alias)


def test_an_alias_of_the_list_is_refused():
    with pytest.raises(errors.StagingError, match=r"`history` and `alias` .* hold the same list"):
        ag.function(aliased)(np.float64(1.0), np.int64(2))


# --- pop, nesting, branches --------------------------------------------------------

def pops_past_the_items_before(x, n):
    items = [x, x * 10.0]
    for i in range(n):
        items.append(x + i)
    a = items.pop()
    b = items.pop()
    c = items.pop()
    return a, b, c, ag.stack(items)


def test_pop_past_the_appended_items():
    check(pops_past_the_items_before, np.float64(1.0), np.int64(2))


def nested_loops(x, n, m):
    trace = [x * 0.0]
    for i in range(n):
        j = 0
        while j < m:
            trace.append(x * i + j)
            j += 1
    return ag.stack(trace)


@pytest.mark.parametrize("n, m", [(0, 2), (2, 0), (3, 2)])
def test_nested_loops(n, m):
    check(nested_loops, np.float64(1.5), np.int64(n), np.int64(m))


def grown_in_a_branch(x):
    kept = [np.float64(-1.0)]
    for v in x:
        if v > 0:
            kept.append(v)
    return ag.stack(kept), len(kept)


def test_appended_in_a_staged_if_inside_the_loop():
    check(grown_in_a_branch, np.array([1.0, -2.0, 3.0]))
    check(grown_in_a_branch, np.array([-1.0]))


def iterated_after_the_loop(x, n):
    values = [x]
    for i in range(n):
        values.append(x * i)
    total = x * 0.0
    for v in values:
        total = total + v
    return total


def test_iterated_after_the_loop():
    check(iterated_after_the_loop, np.float64(2.0), np.int64(3))


def scanned_then_popped(x, first):
    seen = [first, first + 1.0]
    for v in x:
        seen.append(v)
    last = seen.pop()
    # (ag.stack: np.stack cannot stack a list under jax.jit; the items are
    # numpy values here, which ag.stack stacks when run eagerly too)
    return ag.stack(seen), last, seen, len(seen)


def scanned_list_of_python_numbers(x):
    seen = [-1.0, 2.0]
    for v in x:
        seen.append(v)
    last = seen.pop()
    return seen, last, seen[0], len(seen)


@pytest.mark.parametrize("first", [np.float64(-1.0), np.array(-1.0)], ids=repr)
@pytest.mark.parametrize("size", [0, 1, 3])
def test_pop_after_a_scan_including_one_of_no_items(size, first):
    check(scanned_then_popped, np.arange(float(size)), first, jax_too=True)
    # (Python numbers, then numpy items: both kinds, refused by the graph engine)
    with pytest.raises(errors.StagingError, match="would hold both Python numbers"):
        ag.function(scanned_list_of_python_numbers)(np.arange(float(size)))


@pytest.mark.skipif(jax is None, reason="jax is not installed (an optional extra)")
def test_jax_refuses_items_of_another_dtype():
    with pytest.raises(errors.StagingError, match=r"list 'seen' holds items before the staged "
                       r"`for` loop .* items of dtype float64, shape \(\); seen\[0\] is "
                       r"dtype float32"):
        _run_jax(scanned_then_popped, (np.arange(3.0), np.float32(1.0)))


@pytest.mark.skipif(jax is None, reason="jax is not installed (an optional extra)")
def test_jax_refuses_a_while_loop_growing_it_as_a_list_that_starts_empty():
    # lax.while_loop cannot grow a list (its trip count is not known while
    # tracing): the same refusal as for a list that starts empty
    with pytest.raises(errors.StagingError, match=r"list 'losses' gets items appended at "
                       r"\S+:\d+ in a staged `while` loop whose trip count is not known"):
        _run_jax(while_one_item, (np.float64(2.0), np.int64(3)))


def shrinks(x, n):
    items = [x, x + 1.0, x + 2.0]
    i = 0
    while i < n:
        items.pop()
        i += 1
    return items, len(items)


def test_a_list_the_loop_only_pops_from():
    check(shrinks, np.float64(1.0), np.int64(2))
    with pytest.raises(IndexError):  # as Python's: more pops than items
        ag.function(shrinks)(np.float64(1.0), np.int64(4))


def grows_until_break_or_return(x, n):
    items = [x]
    for i in range(n):
        if i > 2:
            break
        items.append(x * i)
        if items[-1] > 3.0:
            return ag.stack(items) * 2.0
    return ag.stack(items)


@pytest.mark.parametrize("n", [0, 2, 6])
@pytest.mark.parametrize("x", [1.0, 2.5])
def test_break_and_return_in_the_loop(n, x):
    check(grows_until_break_or_return, np.float64(x), np.int64(n))


def two_lists(x, n):
    a = [x]
    b = [x * 2.0, x * 3.0]
    i = 0
    while i < n:
        a.append(x + i)
        b.append(a[-1] * 2.0)
        i += 1
    return ag.stack(a), ag.stack(b), len(a), len(b)


def test_two_lists_grown_in_one_loop():
    check(two_lists, np.float64(1.0), np.int64(3))
