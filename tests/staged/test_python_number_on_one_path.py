"""A staged `if` leaving a Python number on one path and a numpy value of
that number's default dtype on the other (`lr = 0.01` / `lr = 0.01 *
np.cos(t)`) gives one graph value of the numpy dtype.  The two differ where
the value meets a narrower array (`w_f32 - lr * g_f32`: float32 for the
Python float, float64 for np.float64); there the graph would silently give
the numpy path's dtype on both, so such a use is refused
(errors.python_number_on_one_path_message).  Uses where both paths give one
dtype run and match Python."""

import re

import numpy as np
import pytest

import autograph as ag

W = np.ones(2, np.float32)
G = np.full(2, 0.5, np.float32)


def _scheduled(w, g, t):
    lr = 0.01
    if t > 100:
        lr = 0.01 * np.cos(t / 1000)
    return w - lr * g


def _derived(w, g, t):
    lr = 0.01
    if t > 100:
        lr = 0.01 * np.cos(t / 1000)
    half = -lr / 2  # (still a Python float on the first path)
    return w + half * g


def _used_in_a_later_if(w, g, t):
    lr = 0.01
    if t > 100:
        lr = 0.01 * np.cos(t / 1000)
    if t > 3:
        w = w - lr * g
    return w


def _int_counter(x, k):
    step = 1
    if k > 2:
        step = k * 2  # np.int64 on this path
    return x + step


@pytest.mark.parametrize("fn, python_path, numpy_path", [
    (_scheduled, (W, G, np.int64(5)), (W, G, np.int64(500))),
    (_derived, (W, G, np.int64(5)), (W, G, np.int64(500))),
    (_used_in_a_later_if, (W, G, np.int64(5)), (W, G, np.int64(500))),
    (_int_counter, (np.ones(2, np.int8), np.int64(1)), (np.ones(2, np.int8), np.int64(5))),
])
def test_a_use_whose_dtype_depends_on_the_path_is_refused(fn, python_path, numpy_path):
    # (Python's own dtype differs between the paths; the graph would give one)
    assert fn(*python_path).dtype != fn(*numpy_path).dtype
    name = "step" if fn is _int_counter else "lr"
    for args in (python_path, numpy_path):
        with pytest.raises(ag.AutoGraphError, match=re.escape(
                f"variable '{name}' is a Python ")) as info:
            ag.function(fn)(*args)
        message = str(info.value)
        assert "on one path of the staged `if` at" in message
        assert "a graph value has one dtype" in message and __file__ in message


def test_the_refusal_names_both_dtypes():
    with pytest.raises(ag.AutoGraphError, match=re.escape(
            "makes the result float32 for the Python float but float64 for the numpy value")):
        ag.function(_scheduled)(W, G, np.int64(5))


def _float64_operands(x, t):
    s = 0.0
    if t > 1:
        s = np.float64(2.5)
    return x + s * 2


def _numpy_call(w, t):
    lr = 0.01
    if t > 100:
        lr = 0.01 * np.cos(t / 1000)
    return w.astype(np.float64) * lr


@pytest.mark.parametrize("fn, arg_sets", [
    (_float64_operands, [(np.ones(2), np.int64(5)), (np.ones(2), np.int64(0))]),
    (_numpy_call, [(W, np.int64(5)), (W, np.int64(500))]),
])
def test_uses_giving_one_dtype_on_both_paths_run(fn, arg_sets):
    staged = ag.function(fn)
    for args in arg_sets:
        want, got = fn(*args), staged(*args)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want)


def _set_in_a_loop_branch(x, w):
    c = x[0]
    for v in x:
        if v > 2:
            c = 0.5
    return w * c


def _set_by_a_loop(x, w):
    c = x[0]
    for _ in x:
        c = 0.5
    return w * c


def _set_by_a_while(x, w, n):
    c = x[0]
    i = 0
    while i < n:
        c = 0.25
        i += 1
    return w * c


@pytest.mark.parametrize("fn, args, what", [
    (_set_in_a_loop_branch, (np.array([1.0, 3.0]), W), "one path of the staged `if`"),
    (_set_by_a_loop, (np.array([1.0, 3.0]), W),
     "the path through the body of the staged `for` loop"),
    (_set_by_a_while, (np.array([1.0, 3.0]), W, np.int64(3)),
     "the path through the body of the staged `while` loop"),
])
def test_a_loop_leaving_a_python_number_after_a_numpy_start_is_marked(fn, args, what):
    assert fn(*args).dtype == np.float32  # (a numpy start would give float64)
    with pytest.raises(ag.AutoGraphError, match=re.escape(
            f"variable 'c' is a Python float on {what}")):
        ag.function(fn)(*args)


def _accumulated(x, w):
    s = 0.0
    for v in x:
        s = s + v
    return w * s


def test_an_accumulator_a_loop_makes_numpy_is_not_refused():
    # (its Python float is only the path of a loop that runs no iteration)
    x = np.array([1.0, 2.0])
    want, got = _accumulated(x, W), ag.function(_accumulated)(x, W)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_array_equal(got, want)


def _returned_from_one_path(n, a):
    t = a + 0.5
    c = n * 0
    if c % 2 == 0:
        for _ in range(3):
            t = 0.7
            if c > 2:
                break
        if t > 0.5:
            return t * 3  # a Python float: 2.0999999999999996
        for _ in range(n - 1):
            t = np.sin(a)
    return t  # np.float32


def test_a_python_number_kept_by_a_branch_outside_loops_is_not_let_through():
    # (found by the staged fuzzer, seed 2701: the float32 side's dtype was
    # given to Python's 2.0999999999999996, which came back as np.float32(2.1))
    assert _returned_from_one_path(np.uint8(0), np.float32(0.0)) == 3 * 0.7
    with pytest.raises(ag.AutoGraphError, match=re.escape(
            "variable 't' has a different dtype in the two branches of the staged `if`")):
        ag.function(_returned_from_one_path)(np.uint8(0), np.float32(0.0))


def _kept_in_a_loop_body(x, n, a):
    last = 0.0
    for _ in range(n):
        t = float(x[0]) * 3  # a Python float made in the body: no loop variable
        if x[1] > 0:
            t = a + 0.5  # np.float32
        last = t
    return last


def test_a_python_number_kept_by_a_branch_in_a_loop_body_is_not_let_through():
    # (only the loop's own Python-number variables are let through, which the
    # loop gives numpy's type after one iteration)
    x = np.array([0.7, -1.0])
    assert _kept_in_a_loop_body(x, np.int64(2), np.float32(0.25)) == 3 * 0.7
    with pytest.raises(ag.AutoGraphError, match=re.escape(
            "variable 't' has a different dtype in the two branches of the staged `if`")):
        ag.function(_kept_in_a_loop_body)(x, np.int64(2), np.float32(0.25))


def _accumulated_in_a_branch(xs):
    s = 0.0
    for v in xs:
        if v > 0:
            if v > 1:
                s = s + v
    return s


def test_a_loop_variable_kept_by_nested_branches_is_promoted():
    xs = np.array([1.0, 2.0, 3.0], np.float32)
    want, got = _accumulated_in_a_branch(xs), ag.function(_accumulated_in_a_branch)(xs)
    assert type(got) is type(want) and got == want
