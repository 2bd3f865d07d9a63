"""Gradients found wrong by a sweep over the rules (each test compares
ag.grad with central finite differences of the plain Python function)."""

import inspect
import math
import re

import numpy as np
import pytest
from grad_check import check, numeric_grad

import autograph as ag
from autograph import errors

WEIGHTS = np.random.default_rng(7).standard_normal((4, 2, 3))


def test_transpose_with_negative_axes():
    # the rule inverted the permutation as written: (-1, 0, 1) was taken as
    # already sorted, so the gradient came back (4, 2, 3), the output's shape
    x = np.random.default_rng(0).standard_normal((2, 3, 4))

    def loss(x):
        return np.sum(WEIGHTS * np.transpose(x, (-1, 0, 1)))

    def loss_method(x):
        return np.sum(WEIGHTS.transpose(1, 2, 0) * x.transpose((0, -2, -1)))

    check(loss, [x])
    check(loss_method, [x])
    cube = np.random.default_rng(1).standard_normal((2, 2, 2))

    def loss_cube(x):  # same shape either way: the values were wrong
        return np.sum(WEIGHTS[:2, :, :2] * np.transpose(x, (-1, 0, 1)))

    check(loss_cube, [cube])


def _refused(fn, args, line_of_read):
    message = errors.gradient_through_variable_message(
        "swept", f"{__file__}:{line_of_read}")
    with pytest.raises(errors.GradientError, match=re.escape(message)):
        ag.grad(fn)(*args)


def _line(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_reading_a_variable_assigned_from_the_arguments_is_refused():
    # the read after the assign had no path back to x: ag.grad gave the
    # gradient as if the variable were a constant (here [1, 0.4], not [2, 0.8])
    v = ag.Variable(np.array([1.0, 2.0]), name="swept")
    x = np.array([0.5, 0.2])

    def assign_then_read(x):
        v.assign(x * 2.0)
        return np.sum(v * x)  # read

    def read_in_a_branch(x):
        v.assign_add(x)
        if np.sum(x) > 0:
            y = v * 3.0  # read
        else:
            y = v * 1.0
        return np.sum(y)

    def read_by_the_next_iteration(x, n):
        s = 0.0
        for i in range(n):
            s = s + np.sum(x * v)  # read
            v.assign(v * x)
        return s

    _refused(assign_then_read, [x], _line(assign_then_read, "# read"))
    _refused(read_in_a_branch, [x], _line(read_in_a_branch, "# read"))
    _refused(read_by_the_next_iteration, [x, np.asarray(3)],
             _line(read_by_the_next_iteration, "# read"))


def test_variable_assigns_off_the_gradient_path_still_differentiate():
    v = ag.Variable(np.array([1.0, 2.0]))

    def constant_assign(x):
        v.assign(np.array([1.0, 2.0]))
        return np.sum(v * x)

    def never_read_again(x):
        v.assign(x * 2.0)
        return np.sum(x * x)

    def decayed_in_a_loop(x, n):  # the loop reads v, whose value never depends on x
        s = 0.0
        for i in range(n):
            v.assign(v * 0.5)
            s = s + np.sum(x * v)
        return s

    def fresh(fn):
        def run(*args):
            v.assign(np.array([1.0, 2.0]))
            return fn(*args)
        return run

    x = np.array([0.5, 0.2])
    for fn, args in ((constant_assign, [x]), (never_read_again, [x]),
                     (decayed_in_a_loop, [x, np.asarray(3)])):
        v.assign(np.array([1.0, 2.0]))
        got = ag.grad(fn)(*args)
        np.testing.assert_allclose(got, numeric_grad(fresh(fn), args, 0), rtol=1e-6)


def test_an_integer_variable_in_wrt_is_named_with_its_reason():
    # the reason (an integer variable) was swallowed: GradientError is a
    # TypeError, caught as "wrt is not a Variable or a list/tuple/dict"
    counts = ag.Variable(np.array([1, 2]))

    def loss(x):
        return np.sum(x * counts)

    line = inspect.getsourcelines(test_an_integer_variable_in_wrt_is_named_with_its_reason)
    where = f"{__file__}:{line[1] + len(line[0]) - 1}"
    message = errors.gradient_argument_message(
        "loss", f"{counts!r} in wrt (it takes float ag.Variables)", where)
    with pytest.raises(errors.GradientError, match=re.escape(message)):
        ag.grad(loss, wrt=[counts])(np.ones(2))


def test_second_derivatives_through_sort_tile_and_repeat():
    # the first gradient's ops (grad.unsort, grad.untile, grad.unrepeat) had
    # no rules: a Hessian-vector product through np.sort was refused
    rng = np.random.default_rng(3)
    x, v = rng.uniform(0.2, 0.9, (3, 4)), rng.standard_normal((3, 4))
    weights = np.arange(12.0).reshape(3, 4)
    losses = [
        lambda x: np.sum(np.sort(x, axis=1) ** 3 * weights),
        lambda x: np.sum(np.sort(x, axis=0) ** 3 * weights),
        lambda x: np.sum(np.sort(x, axis=None) ** 3 * np.arange(12.0)),
        lambda x: np.sum(np.tile(x, (2, 1)) ** 3 * np.tile(weights, (2, 1))),
        lambda x: np.sum(np.tile(x, 3) ** 3),
        lambda x: np.sum(np.repeat(x, 2, axis=0) ** 3 * np.repeat(weights, 2, axis=0)),
        lambda x: np.sum(np.repeat(x, 2) ** 3 * np.arange(24.0)),
    ]
    for loss in losses:
        first = ag.grad(loss)
        hvp = ag.grad(lambda x: np.sum(ag.grad(loss)(x) * v))(x)
        expected = numeric_grad(lambda x: np.sum(first(x) * v), [x], 0)
        np.testing.assert_allclose(hvp, expected, rtol=1e-5, atol=1e-6)
    # and a third one, through the sorted take of the second (grad.resort)
    third = ag.grad(lambda x: np.sum(ag.grad(lambda x: np.sum(
        ag.grad(losses[0])(x) * v))(x) * v))(x)
    second = ag.grad(lambda x: np.sum(ag.grad(losses[0])(x) * v))
    np.testing.assert_allclose(third, numeric_grad(lambda x: np.sum(second(x) * v), [x], 0),
                               rtol=1e-5, atol=1e-6)


def test_fmax_and_fmin_give_the_gradient_to_the_number_not_the_nan():
    # the NaN operand took the gradient (x > nan is False), though fmax
    # returned the other operand: ag.grad said 0 where the slope is 1
    x = np.array([1.0, 2.0, -1.0])
    y = np.array([np.nan, 0.0, np.nan])
    for op in (np.fmax, np.fmin):
        def loss(x, y):
            return np.sum(np.arange(1.0, 4.0) * op(x, y))
        gx, gy = ag.grad(loss, argnums=(0, 1))(x, y)
        np.testing.assert_allclose(gx, numeric_grad(loss, [x, y], 0))
        np.testing.assert_allclose(gx + gy, np.arange(1.0, 4.0))  # all of it, to one side
        gy, gx = ag.grad(loss, argnums=(0, 1))(y, x)  # NaN first
        np.testing.assert_allclose(gx, numeric_grad(lambda x: loss(y, x), [x], 0))


def test_heaviside_value_at_zero_has_a_gradient():
    # np.heaviside was listed as piecewise constant: the gradient of its
    # second argument (the value where x is 0) was a silent 0
    steps = np.array([[0.0, 1.0, -1.0], [0.0, 0.0, 2.0]])
    x = np.array([0.3, 0.7, 0.2])

    def loss(x, at_zero):
        return np.sum(np.arange(6.0).reshape(2, 3) * np.heaviside(steps * x, at_zero))

    check(loss, [x, np.array([0.25, 0.5, 0.75])])
    check(lambda at_zero: loss(x, at_zero), [np.array(0.5)])  # broadcast to (2, 3)


def test_python_float_arithmetic_and_math_functions():
    # a Python float made from the differentiated array (float(x[i])) and
    # then divided, raised to a power or passed to math.* was refused: no
    # rule for the python_float ops Python's float operators record
    x = np.array([0.3, 0.25, 0.4])

    def running(x, n):
        s = 0.0
        for i in range(n):
            s = s + float(x[i]) / 2.0 + float(x[i]) ** 2 + 2.0 ** float(x[i])
            s = s % 5.0 + s // 7.0
        return s

    def with_math(x):
        s = float(np.sum(x))
        return (math.sqrt(s) + math.exp(s) * math.tanh(s) + math.log(s) + math.asin(s / 2)
                + math.erf(s) - math.erfc(s / 3) + math.acosh(s + 1.5) + math.degrees(s))

    check(lambda x: running(x, np.asarray(3)), [x])
    check(with_math, [x])
    check(with_math, [x.astype(np.float32)], rtol=1e-3)  # (float32 finite differences)
    assert ag.grad(with_math)(x.astype(np.float32)).dtype == np.float32

    def no_rule(x):
        return math.lgamma(float(np.sum(x)) + 1.0)  # lgamma

    where = f"{__file__}:{_line(no_rule, '# lgamma')}"
    message = errors.no_gradient_rule_message(
        "python_float.math", where, "math.lgamma has no gradient rule")
    with pytest.raises(errors.GradientError, match=re.escape(message)):
        ag.grad(no_rule)(x)


def test_matrix_two_norm_over_axes_is_refused_not_frobenius():
    # np.linalg.norm(m, ord=2, axis=(0, 1)) is the largest singular value;
    # the rule gave the Frobenius norm's gradient (only axis=None was refused)
    m = np.random.default_rng(4).standard_normal((3, 4))

    def spectral(m):
        return np.linalg.norm(m, ord=2, axis=(0, 1))  # spectral

    where = f"{__file__}:{_line(spectral, '# spectral')}"
    message = errors.no_gradient_rule_message(
        "np.linalg.norm", where, "only the Euclidean norm (ord=None or 'fro', ord=2 of a "
        "vector) has a gradient rule, not ord=2 of a matrix")
    with pytest.raises(errors.GradientError, match=re.escape(message)):
        ag.grad(spectral)(m)
    # the norms that have the rule still differentiate
    check(lambda m: np.linalg.norm(m, ord="fro", axis=(0, 1)), [m])
    check(lambda m: np.sum(np.linalg.norm(m, ord=2, axis=-1)), [m])


def test_take_with_wrap_and_clip_modes():
    # mode= was dropped: staged np.take(x, [-1], mode="clip") gave x[-1], not
    # x[0], and an index past the end raised IndexError (so did the gradient)
    x = np.arange(12.0).reshape(3, 4)
    takes = [
        lambda x: np.take(x, [-1, 2, 17], mode="clip"),
        lambda x: np.take(x, [-1, 2, 17], mode="wrap"),
        lambda x: np.take(x, [-13, 5, 1], axis=-1, mode="wrap"),
        lambda x: np.take(x, [-1, 5, 2], axis=0, mode="clip"),
        lambda x: np.take(x, np.argmax(x[0]) + 3, axis=1, mode="clip"),  # a tensor index
    ]
    for take in takes:
        expected = take(x)
        got = ag.function(take)(x)
        assert np.shape(got) == np.shape(expected) and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
        weights = np.arange(1.0, expected.size + 1).reshape(expected.shape)
        check(lambda x: np.sum(np.sin(take(x)) * weights), [x * 0.1])


def test_staged_sum_hint_keeps_pythons_row_sum():
    # the hint said np.sum(x) for an array: a scalar, where Python's sum(x)
    # of a 2-d array adds its rows (and sum of a list of vectors, the vectors)
    x = np.arange(6.0).reshape(2, 3)

    def summed(x):
        return sum(x)

    def hinted(x):  # what the message now says to write
        return np.sum(x, axis=0)

    def listed(x):
        return np.sum(np.stack([x[0], x[1]]), axis=0)

    line = inspect.getsourcelines(summed)[1] + 1
    message = errors.staged_sum_message("x", f"{__file__}:{line}", "graph tensor", "np")
    assert "np.sum(x, axis=0)" in message and "np.sum(np.stack(x), axis=0)" in message
    with pytest.raises(errors.TensorUsageError, match=re.escape(message)):
        ag.function(summed)(x)
    np.testing.assert_array_equal(ag.function(hinted)(x), summed(x))
    np.testing.assert_array_equal(ag.function(listed)(x), sum([x[0], x[1]]))


def test_dot_of_higher_rank_arrays():
    # refused, with a hint to use np.matmul, which computes something else
    # for them (np.dot pairs a's last axis with b's second-to-last, over all
    # the other axes of both): now a contraction, as np.tensordot's
    rng = np.random.default_rng(5)
    for a_shape, b_shape in (((2, 3, 4), (4,)), ((2, 3, 4), (3, 4, 2)), ((4,), (2, 4, 3)),
                             ((3, 4), (2, 4, 5))):
        a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
        weights = rng.standard_normal(np.dot(a, b).shape)
        check(lambda a, b: np.sum(weights * np.dot(a, b)), [a, b])
