"""An array a staged `if` or loop may pass on unchanged, changed in place
after it, under `jax.jit` (autograph/backends/jax.py, `_note_passed_on`).

`if x[0] > 0: s = s * 2` leaves `s` the caller's array on the path not
taken; Python's `s *= 3.0` after it then changes the caller's array there.
The staged `if` gave a new tracer, so `s *= 3.0` rebound it and the
caller's array kept its old numbers, silently (the graph engine refuses
it).  The same for a loop that may run no iteration, or whose body may
leave the variable as it came in.  Now refused naming the holder and the
statement that passes it on; arrays made fresh, or always replaced, still
run and match plain Python.
"""

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)

from autograph import errors  # noqa: E402
from tests.jax_backend.helpers import first_line, jitted, line_of  # noqa: E402

W = np.array([1.0, 2.0])


@pytest.fixture(autouse=True)
def _fresh_global():
    W[:] = [1.0, 2.0]
    yield
    W[:] = [1.0, 2.0]


def doubled_if_positive(s, x):
    if x[0] > 0:
        s = s * 2
    s *= 3.0
    return s


def doubled_while(s, x):
    i = 0
    while i < x[0]:
        s = s * 2
        i += 1
    s += 1.0
    return s


def global_doubled_if_positive(x):
    s = W
    if x[0] > 0:
        s = s * 2
    s += 1.0
    return s


def doubled_in_a_for(s, x):
    t = s
    for v in x:
        if v > 0:
            t = t * 2
    t += 1.0
    return t


def _caller_refusal(fn, name, change, statement, statement_text):
    return errors.in_place_traced_message(
        name, change, line_of(fn, change.replace("...", "").strip()), "the caller's array",
        f"an argument of {fn.__name__} at {first_line(fn)}, passed on by {statement} at "
        f"{line_of(fn, statement_text)}", "passed", "jax")


@pytest.mark.parametrize("s", [np.array([1.0, 2.0]), np.array(1.0)], ids=["vector", "0-d"])
@pytest.mark.parametrize("fn, change, statement, text", [
    (doubled_if_positive, "s *= ...", "the staged `if`", "if x[0] > 0:"),
    (doubled_while, "s += ...", "the staged `while` loop", "while i < x[0]:"),
])
def test_the_callers_array_passed_on_then_changed_in_place_is_refused(fn, change, statement,
                                                                       text, s):
    x = np.array([-0.5, 2.0])
    python = s.copy()
    fn(python, x)
    assert not np.array_equal(python, s)  # Python: the caller's array changed
    given = s.copy()
    with pytest.raises(errors.InPlaceChangeError, match="^" + re.escape(
            _caller_refusal(fn, "s", change, statement, text))):
        jitted(fn)(given, x)
    np.testing.assert_array_equal(given, s)


def test_a_global_passed_on_then_changed_in_place_is_refused():
    x = np.array([-0.5, 2.0])
    global_doubled_if_positive(x)
    assert W[0] == 2.0  # Python: the global changed
    W[:] = [1.0, 2.0]
    with pytest.raises(errors.InPlaceChangeError) as raised:
        jitted(global_doubled_if_positive)(x)
    assert str(raised.value).startswith(
        f"`s += ...` at {line_of(global_doubled_if_positive, 's += 1.0')} changes `s` in place, "
        "and `s` may hold `W` (")
    assert f"passed on by the staged `if` at {line_of(global_doubled_if_positive, 'if x[0]')})" \
        in str(raised.value)
    assert W[0] == 1.0


def test_an_argument_a_loop_body_may_pass_on_is_refused():
    with pytest.raises(errors.InPlaceChangeError) as raised:
        jitted(doubled_in_a_for)(np.array([1.0, 2.0]), np.array([-0.5, -2.0]))
    assert str(raised.value).startswith(
        f"`t += ...` at {line_of(doubled_in_a_for, 't += 1.0')} changes `t` in place, and `t` "
        "may hold `s` (")
    assert f"passed on by the staged `for` loop at {line_of(doubled_in_a_for, 'for v in x')})" \
        in str(raised.value)


# --- still staged: nothing else holds the array, or it is always replaced ------------------

def fresh_if(x):
    s = np.ones(2)
    if x[0] > 0:
        s = s * 2
    s *= 3.0
    return s


def fresh_zero_d_if(x):
    s = np.array(1.0)
    if x[0] > 0:
        s = s * 2
    s *= 3.0
    return s


def replaced_on_both_sides(s, x):
    if x[0] > 0:
        s = s * 2
    else:
        s = s - 1
    s *= 3.0
    return s


def always_replaced_in_a_for(s, x):
    t = s
    for v in x:
        t = t * 2
    t += 1.0
    return t


def fresh_while(x):
    t = np.zeros(2)
    i = 0
    while i < x[0]:
        t = t + 1
        i += 1
    t += 1.0
    return t


def accumulated(x):
    total = np.zeros(2)
    for v in x:
        if v > 0:
            total += v
    total *= 2
    return total


def scalar_passed_on(s, x):
    if x[0] > 0:
        s = s * 2
    s *= 3.0
    return s


@pytest.mark.parametrize("fn, args", [
    (fresh_if, (np.array([-0.5, 2.0]),)),
    (fresh_if, (np.array([0.5, 2.0]),)),
    (fresh_zero_d_if, (np.array([-0.5, 2.0]),)),
    (replaced_on_both_sides, (np.array([1.0, 2.0]), np.array([-0.5, 2.0]))),
    (always_replaced_in_a_for, (np.array([1.0, 2.0]), np.array([-0.5, 2.0]))),
    (fresh_while, (np.array([2.0, 1.0]),)),
    (accumulated, (np.array([2.0, -1.0]),)),
    (scalar_passed_on, (1.0, np.array([-0.5, 2.0]))),
    (scalar_passed_on, (np.float64(1.0), np.array([0.5, 2.0]))),
], ids=lambda v: v.__name__ if callable(v) else None)
def test_an_array_nothing_else_holds_is_changed_as_python_changes_it(fn, args):
    expected = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = jitted(fn)(*args)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))
    assert np.asarray(got).dtype == np.asarray(expected).dtype
