"""A variable a staged jump left unbound, read after passing through the
state of a later staged statement (issue 8).

A staged branch that jumps (`return` in a `try`, or a user variable named
like a jump flag) leaves a variable unbound on that path; it travels as a
zero stand-in, and a direct read (`ag__.ld`) raises Python's
UnboundLocalError when the graph runs that path (test_unbound_after_jump.py).
Here the stand-in first becomes an output of a later staged `if` or the
state of a later staged `while`/`for` and is read inside it or after it:
the "unbound" condition travels with the value (runtime/special_values.py:
the `if` returns a flag per output, a loop carries one), so the graph raises
where Python raises and returns Python's value elsewhere.  Before, these
returned the stand-in's arithmetic (a wrong number) on the unbound path.
"""

import numpy as np
import pytest

import autograph as ag


def through_while(x, n):
    try:
        if x > 0:
            return x
        y = x * 2
    finally:
        i = 0
        while i < n:
            y = y + 1
            i += 1
    return y


def through_for(x, n):
    try:
        if x > 0:
            return x
        y = x * 2
    finally:
        for _ in range(n):
            y = y * 2
    return y


def through_nested_loops(x, n):
    try:
        if x > 0:
            return x
        y = x * 2
    finally:
        i = 0
        while i < n:
            j = 0
            while j < n:
                y = y + 1
                j += 1
            i += 1
    return y


def assigned_before_read_in_loop(x, n):
    try:
        if x > 0:
            return x
        y = x * 2
    finally:
        i = 0
        while i < n:
            y = x + i
            i += 1
        z = y
    return z


def through_if_read_after(x, n):
    try:
        if x > 0:
            return x
        y = x * 2
    finally:
        if n > 2:
            y = x * 5
        z = y + 1
    return z


def user_flag_then_loop(x, n):
    if x > 0:
        break_ = True
    else:
        break_ = False
        y = x * 3
    i = 0
    while i < n:
        y = y + 1
        i += 1
    return y, break_


def user_flag_then_if(x, n):
    if x > 0:
        do_return = True
    else:
        do_return = False
        y = x * 3
    if n > 2:
        y = y + 1
    return y, do_return


def user_flag_then_if_then_loop(x, n):
    if x > 0:
        continue_ = True
    else:
        continue_ = False
        y = x * 3
    if n > 2:
        y = y * 2
    for _ in range(n):
        y = y - 1
    return y, continue_


def user_flag_then_augmented(x):
    if x > 0:
        do_return_1 = True
    else:
        do_return_1 = False
        y = x * 3
    y += 1
    return y, do_return_1


def user_flag_both_assign(x, n):
    if x > 0:
        break_ = True
        y = x * 2
    else:
        break_ = False
        y = x * 3
    for _ in range(n):
        if break_:
            y = y + 1
    return y, break_


PROGRAMS = [through_while, through_for, through_nested_loops, assigned_before_read_in_loop,
            through_if_read_after]
USER_FLAGS = [user_flag_then_loop, user_flag_then_if, user_flag_then_if_then_loop]


def _outcome(fn, *args):
    try:
        return "value", np.asarray(fn(*args)).tolist()
    except UnboundLocalError as e:
        return "UnboundLocalError", str(e)


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x, n", [(1.0, 3), (-1.0, 3), (1.0, 0), (-1.0, 0), (1.0, 1)])
def test_graph_raises_exactly_where_python_does(fn, x, n):
    staged = ag.function(fn)
    expected = _outcome(fn, np.float64(x), n)
    assert _outcome(staged, np.float64(x), np.int64(n)) == expected


def test_the_unbound_path_is_covered():
    """Each program has a path where Python raises (else the test above
    could not tell a stand-in from a value)."""
    for fn in PROGRAMS:
        assert any(_outcome(fn, np.float64(x), n)[0] == "UnboundLocalError"
                   for x in (1.0, -1.0) for n in (0, 1, 3)), fn.__name__


@pytest.mark.parametrize("fn", [through_while, through_for], ids=lambda f: f.__name__)
def test_jax_raises_where_python_does(fn):
    jax = pytest.importorskip("jax")
    staged = jax.jit(ag.to_graph(fn))
    for x, n in [(1.0, 3), (-1.0, 3)]:
        expected = _outcome(fn, np.float64(x), n)
        if expected[0] == "value":
            np.testing.assert_allclose(staged(x, n), expected[1], rtol=1e-6)
        else:
            with pytest.raises(Exception, match="not associated with a value"):
                jax.block_until_ready(staged(x, n))


# --- a user's variable named like a jump flag is an ordinary variable ----------------
# The runtime used to tell jump flags by their names: `do_return = True` in a
# branch made a variable the branch left unassigned a stand-in, which `y += 1`
# then read unchecked (a wrong number where Python raises).  The converter now
# names the flags (`ag__.if_stmt(..., jumps=(...))`): such a variable is refused
# as undefined in one branch at trace time, as for any other name.


@pytest.mark.parametrize("fn, args", [
    (user_flag_then_loop, (np.float64(1.0), np.int64(3))),
    (user_flag_then_if, (np.float64(1.0), np.int64(3))),
    (user_flag_then_if_then_loop, (np.float64(1.0), np.int64(3))),
    (user_flag_then_augmented, (np.float64(1.0),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_user_variable_named_like_a_flag_is_not_one(fn, args):
    with pytest.raises(ag.errors.StagingError,
                       match=r"variable 'y' is undefined in a branch of the staged `if` at "
                             r"\S*test_unbound_through_state\.py:\d+"):
        ag.function(fn)(*args)


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_user_variable_named_like_a_flag_works_as_a_variable(x):
    expected = user_flag_both_assign(np.float64(x), 3)
    got = ag.function(user_flag_both_assign)(np.float64(x), np.int64(3))
    np.testing.assert_array_equal(got[0], expected[0])
    assert bool(got[1]) == expected[1]


def test_converter_names_the_jump_flags():
    code = ag.to_code(through_while)
    assert "jumps=('do_return',))" in code
    assert "jumps=" not in ag.to_code(user_flag_then_if)
