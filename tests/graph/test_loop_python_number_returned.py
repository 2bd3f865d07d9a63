"""A returned variable a staged loop starts as a Python number (`s = 0.0`)
and makes numpy (`s = s + v`) is the Python number in Python when the loop
ran no iteration, the numpy scalar once it ran: which one is known at run
time only.  The graph returned the numpy scalar on both paths
(`np.float64(0.0)` for `0.0`); its output is now the loop's Python number
when the loop ran none (ops/elementwise.py as_returned), also inside
returned containers, after nested loops, for values computed from it with
Python numbers, and in a saved graph.  The same for a staged `if` leaving a
Python number on one path (`lr = 0.01` / `lr = 0.01 * np.cos(t)`)."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def kinds(value):
    """`value` as (type, repr) pairs, containers kept: type AND value."""
    if isinstance(value, (tuple, list)):
        return type(value)(kinds(v) for v in value)
    if isinstance(value, dict):
        return {k: kinds(v) for k, v in value.items()}
    return type(value), repr(value)


def loop_sum(xs):
    s = 0.0
    for v in xs:
        s = s + v
    return s


def while_count(xs):
    n = 0
    t = xs.sum() / 1
    while t > 1.0:
        t = t / 2
        n = n + xs[0]  # (numpy's int64 once it ran, for an int array)
    return n


def int_start_float_carry(xs):
    n = 0  # (carried as float64: `0 + np.float64`; Python's int when no iteration)
    for v in xs:
        n = n + v
    return n


def nested_sum(rows):
    s = 0.0
    for row in rows:
        for v in row:
            s = s + v
    return s


def derived_in_containers(xs):
    s = 0.0
    for v in xs:
        s = s + v
    return {"sum": s, "parts": [s * 2, -s, abs(s)], "pair": (s / 4, s > 0.5)}


def two_loops(xs, ys):
    s = 0.0
    for v in xs:
        s = s + v
    t = 0.0
    for v in ys:
        t = t + v
    return s + t, s * t


def two_loops_in_turn(xs, ys):
    s = 0.0
    for v in xs:
        s = s + v
    for v in ys:  # (numpy once either loop ran)
        s = s + 2 * v
    return s


def a_later_loop_that_may_change_it(xs, ys):
    s = 0.0
    for v in xs:
        s = s + v
    for v in ys:
        if v > 0:
            s = s + v
    return s


def a_later_loop_keeping_it_a_python_number(xs, k):
    s = 0.0
    for v in xs:
        s = s + v
    while k > 0:
        s = s * 2
        k = k - 1
    return s


def chosen_by_an_if(xs, c):
    s = 0.0
    for v in xs:
        s = s + v
    t = s if c > 0 else xs.sum()  # (np.float64 when c <= 0, whether or not the loop ran)
    return t


def lr_schedule(xs, t):
    lr = 0.01  # (Python's float where the staged `if` below is not taken)
    if t > 100:
        lr = 0.01 * np.cos(t / 1000)
    return lr, lr * 2, -lr


def if_then_loop(xs, c):
    s = 0.5
    if c > 0:
        s = xs.sum()
    for v in xs:
        s = s + v
    return s


def nested_ifs(xs, c, d):
    s = 0.5
    if c > 0:
        s = xs.sum() if d > 0 else s * 3
    return s


def loop_then_if(xs, c):
    s = 0.0
    for v in xs:
        s = s + v
    if c > 0:
        s = 0.5
    lr = 0.25
    if c > 1:
        lr = xs.sum()
    return s, s + lr, s * lr


def complex_carry(zs):
    s = 0.0
    for z in zs:
        s = s + z
    return s


EMPTY, TWO = np.zeros(0), np.array([1.5, 2.0])
CASES = [
    (loop_sum, [(EMPTY,), (TWO,), (np.zeros(0, np.float32),), (TWO.astype(np.float32),)]),
    (while_count, [(np.ones(1, np.int64),), (np.full(3, 2, np.int64),)]),
    (int_start_float_carry, [(EMPTY,), (TWO,)]),
    (nested_sum, [(np.zeros((0, 2)),), (np.zeros((2, 0)),), (np.ones((2, 2)),)]),
    (derived_in_containers, [(EMPTY,), (TWO,)]),
    (two_loops, [(EMPTY, EMPTY), (TWO, EMPTY), (EMPTY, TWO), (TWO, TWO)]),
    (two_loops_in_turn, [(EMPTY, EMPTY), (TWO, EMPTY), (EMPTY, TWO), (TWO, TWO)]),
    # (not with both loops leaving it the Python float: the graph gives the
    # numpy scalar there, whether the second body changed it is not tracked)
    (a_later_loop_that_may_change_it, [(EMPTY, TWO), (TWO, EMPTY), (TWO, -TWO)]),
    (a_later_loop_keeping_it_a_python_number, [
        (EMPTY, np.int64(0)), (EMPTY, np.int64(2)), (TWO, np.int64(0)), (TWO, np.int64(2))]),
    (chosen_by_an_if, [(xs, np.int64(c)) for xs in (EMPTY, TWO) for c in (1, -1)]),
    (loop_then_if, [(xs, np.int64(c)) for xs in (EMPTY, TWO) for c in (0, 1, 2)]),
    (lr_schedule, [(EMPTY, np.int64(5)), (EMPTY, np.int64(500))]),
    (if_then_loop, [(xs, np.int64(c)) for xs in (EMPTY, TWO) for c in (1, -1)]),
    # (not c > 0 with d <= 0: the inner `if`'s Python float is returned as the
    # numpy scalar, the outer `if` does not see whether the inner one left it)
    (nested_ifs, [(EMPTY, np.int64(1), np.int64(1)), (EMPTY, np.int64(-1), np.int64(1))]),
    (complex_carry, [(np.zeros(0, complex),), (np.ones(2, complex),)]),
]


@pytest.mark.parametrize("f, calls", CASES, ids=[f.__name__ for f, _ in CASES])
def test_the_returned_number_is_pythons_type_whether_or_not_the_loop_ran(f, calls):
    staged = ag.function(f)
    for args in calls:
        python = kinds(f(*args))
        for _ in range(3):  # (interpreted, compiled, then the fast call)
            assert kinds(staged(*args)) == python, args


def test_a_saved_graph_returns_pythons_type(tmp_path):
    specs = [ag.TensorSpec((None,), np.float64)]
    for f in (loop_sum, derived_in_containers):
        path = tmp_path / f.__name__
        ag.function(f, input_signature=specs).get_concrete_function(*specs).save(str(path))
        loaded = ag.load(str(path))
        for xs in (EMPTY, TWO):
            assert kinds(loaded(xs)) == kinds(f(xs))


W32 = np.ones(2, np.float32)


def line_of(f, k):
    """file:line of the k-th line of `f`'s body (the `def` is line 0)."""
    code = f.__code__
    return errors.where(code.co_filename, code.co_firstlineno + k)


def chosen_then_scaled(xs, c, w):
    s = 0.0
    for v in xs:
        s = s + v
    t = xs.sum() if c > 0 else s
    return t * w


def chosen_first_then_scaled(xs, c, w):
    s = 0.0
    for v in xs:
        s = s + v
    t = s if c > 0 else xs.sum()
    return t * w


def test_an_if_choosing_the_loops_python_number_on_one_side_is_checked_where_it_is_one():
    # `t * w` gave float64 silently where Python gives float32 (the if's result
    # had no mark when its first side had none), and was refused where
    # Python gives float64 (it had the loop's mark whichever side was taken)
    message = errors.python_number_before_loop_message(
        "s", "float", "float64", "for", line_of(chosen_then_scaled, 2), "float32",
        line_of(chosen_then_scaled, 5))
    with pytest.raises(errors.PythonNumberPathError, match=re.escape(message)):
        ag.function(chosen_then_scaled)(EMPTY, np.int64(-1), W32)
    for f, c in ((chosen_then_scaled, 1), (chosen_first_then_scaled, -1)):
        for xs in (EMPTY, TWO):
            got, python = ag.function(f)(xs, np.int64(c), W32), f(xs, np.int64(c), W32)
            assert got.dtype == python.dtype and np.array_equal(got, python)
