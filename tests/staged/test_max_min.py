"""`max(a, b)` / `min(a, b)` with a staged operand: Python's fold, with staged
comparisons (runtime/builtins.py `max_`, `min_`); what cannot be staged is
refused naming the value and the fix."""

import math

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def running_max(x):
    m = x[0]
    for v in x:
        m = max(m, v)
    return m


def running_min(x):
    m = x[0]
    for v in x:
        m = min(m, v)
    return m


def three_way(x):
    return max(x[0], x[1], x[2]), min(x[2], x[1], x[0])


def best_loss(losses):
    best = np.float32(np.inf)
    for loss in losses:
        if loss < 10:
            best = min(best, loss)
    return best


def of_a_list(x):
    """A Python list or tuple of staged items: the same fold (it was refused
    as "bool() of graph tensor 'the value in `[x[0], x[1], x[2]]`'")."""
    items = [x[0], x[1], x[2]]
    return max(items), min((x[2], x[1], x[0])), max([x[1], x[0]], default=x[2])


def _bits(value):
    value = np.asarray(value)
    return value.dtype, value.tobytes()


EDGES = [
    np.array([1.0, 3.0, 2.0], np.float32),
    np.array([np.nan, 1.0, 2.0], np.float32),  # a NaN first stays (Python compares)
    np.array([1.0, np.nan, 2.0], np.float32),  # a NaN later is skipped
    np.array([0.0, -0.0, 0.0], np.float32),  # the first of equal extremes
    np.array([-0.0, 0.0, -0.0], np.float32),
    np.array([-np.inf, np.inf, 5.0], np.float64),
    np.array([3, -7, 3], np.int8),
]


@pytest.mark.parametrize("fn", [running_max, running_min, three_way, best_loss, of_a_list])
@pytest.mark.parametrize("x", EDGES, ids=lambda x: f"{x.dtype}{x.tolist()}")
def test_staged_max_and_min_are_pythons_bit_for_bit(fn, x):
    if fn is best_loss and x.dtype != np.float32:  # (see the test below)
        with pytest.raises(errors.StagingError, match=r"'the value of `min\(\.\.\.\)`' has "
                           "a different dtype in the two branches"):
            ag.function(fn)(x)
        return  # Python's `best` is a float32 or an item of x: two types
    expected = fn(x)
    staged = ag.function(fn)(x)
    if isinstance(expected, tuple):
        assert [_bits(s) for s in staged] == [_bits(e) for e in expected]
    else:
        assert _bits(staged) == _bits(expected)
        assert type(staged) is type(expected)


def test_python_values_call_the_builtin_unchanged():
    def f(xs):
        return max(xs), min(3, 1, 2), max(xs, key=lambda v: -v), min([], default=7)

    assert ag.to_graph(f)([4, 9, 2]) == f([4, 9, 2]) == (9, 1, 2, 7)
    with pytest.raises(ValueError) as python_error:
        f([])
    with pytest.raises(ValueError) as converted_error:
        ag.to_graph(f)([])
    assert str(converted_error.value) == str(python_error.value)
    assert "ag__.max_(" in ag.to_code(f)


def test_max_of_one_staged_array_is_refused_with_the_numpy_fix():
    def f(x):
        return max(x)

    with pytest.raises(errors.TensorUsageError) as e:
        ag.function(f)(np.array([1.0, 2.0]))
    message = str(e.value)
    assert "max() of graph tensor 'x'" in message and "np.max(x)" in message
    assert f"{__file__}:" in message


def test_min_with_a_key_is_refused():
    def f(x):
        return min(x[0], x[1], key=abs)

    with pytest.raises(errors.TensorUsageError, match=r"min\(\) with `key=` or `default=`"):
        ag.function(f)(np.array([1.0, -2.0]))


def test_a_python_number_of_another_type_is_refused_as_in_a_staged_if():
    def f(x):
        return max(x[0], 0)  # Python gives the int 0 or the float32: two types

    with pytest.raises(errors.StagingError, match=r"max\(\.\.\.\)"):
        ag.function(f)(np.array([-1.0, 2.0], np.float32))
    assert math.isclose(f(np.array([1.5], np.float32)), 1.5)


def test_key_none_is_no_key_and_a_default_with_several_arguments_is_pythons_type_error():
    def no_key(x):
        return min(x[0], x[1], key=None), max(x[0], x[1], x[2], key=None)

    def with_default(x):
        return max(x[0], x[1], default=0.0)

    x = np.array([2.0, -1.0, np.nan])
    assert ag.function(no_key)(x) == no_key(x) == (-1.0, 2.0)
    with pytest.raises(TypeError) as python:
        with_default(x)
    with pytest.raises(TypeError) as staged:
        ag.function(with_default)(x)
    assert str(staged.value) == str(python.value)


def test_the_refusals_name_the_fix_in_a_sentence():
    def one(x):
        return max(x)

    def keyed(x):
        return min(x[0], x[1], key=abs)

    with pytest.raises(errors.TensorUsageError) as e:
        ag.function(one)(np.array([1.0, 2.0]))
    assert "Write np.max(x), which computes it in the graph" in str(e.value)
    with pytest.raises(errors.TensorUsageError) as e:
        ag.function(keyed)(np.array([1.0, 2.0]))
    assert ". Compare the keys yourself (`a if key(a) <= key(b) else b`" in str(e.value)


def max_of_a_generator(x):
    return max(v * 2 for v in [x[0], x[1], x[2]]), min(x[i] for i in range(3))


def max_of_an_empty_generator_with_a_default(x):
    return max((v for v in []), default=x[0])


@pytest.mark.parametrize("fn", [max_of_a_generator, max_of_an_empty_generator_with_a_default])
def test_max_and_min_of_a_generator_of_staged_values(fn):
    """The generator's items, as Python's max takes them (it was refused:
    bool() of a graph tensor)."""
    for x in (np.array([1.5, -2.25, 3.75]), np.array([np.nan, 1.0, -1.0])):
        expected, got = fn(x), ag.function(fn)(x)
        for e, g in zip(expected if type(expected) is tuple else (expected,),
                        got if type(got) is tuple else (got,), strict=True):
            assert type(g) is type(e)
            np.testing.assert_array_equal(g, e)
