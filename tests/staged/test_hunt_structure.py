"""Program structure around staged control flow: recursion, closures, calls
through helpers and objects, state read between calls.  Each program runs as
plain Python and under `ag.function` (and the JAX backend where it matters);
the staged result must be Python's, or a catalog error naming the line."""

import inspect
import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def _line_of(fn, marker):
    lines, first = inspect.getsourcelines(fn)
    return f"{inspect.getsourcefile(fn)}:{first + next(i for i, line in enumerate(lines) if marker in line)}"


# --- recursion ---------------------------------------------------------------------


def halve_until_small(x, depth):
    if depth <= 0:  # the stop test
        return x
    return halve_until_small(x * 0.5, depth - 1)


def repeat_in_loop(x, n):
    i = 0
    while i < n:  # the stop test
        x = repeat_in_loop(x, n - 1) + 1.0
        i += 1
    return x


def ping(x, k):
    if k <= 0:  # the stop test
        return x
    return pong(x + 1.0, k - 1)


def pong(x, k):
    return ping(x * 2.0, k)


def _recursion_message(statement, fn):
    return re.escape(errors.staged_recursion_message(statement, _line_of(fn, "the stop test")))


@pytest.mark.parametrize("fn, statement", [(halve_until_small, "`if`"),
                                           (repeat_in_loop, "`while` loop"),
                                           (ping, "`if`")])
def test_recursion_with_a_staged_stop_test_is_refused_naming_the_test(fn, statement):
    # Python's recursion limit, reached deep inside the trace, was what the user saw
    with pytest.raises(errors.StagedRecursionError, match=_recursion_message(statement, fn)):
        ag.function(fn)(np.float64(3.0), np.int64(3))


def test_the_jax_backend_refuses_a_staged_stop_test_the_same_way():
    jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra")
    with pytest.raises(errors.StagedRecursionError,
                       match=_recursion_message("`if`", halve_until_small)):
        jax.jit(ag.to_graph(halve_until_small))(3.0, 3)  # (a jit argument is staged)


def test_recursion_with_a_python_depth_is_staged_as_python_runs_it():
    x = np.float64(3.0)
    assert ag.function(halve_until_small)(x, 3) == halve_until_small(x, 3)
    assert ag.function(ping)(x, 3) == ping(x, 3)


# --- closures ----------------------------------------------------------------------


def lambdas_made_by_a_comprehension_in_a_loop(x, n):
    total = x * 0
    for i in range(n):
        scales = [lambda: x * k for k in range(3)]  # each sees the last k, as in Python
        total = total + sum(f() for f in scales)
    return total


def lambdas_made_by_a_comprehension_in_a_branch(x):
    if x > 0:
        picks = [lambda: x + k for k in range(2)]
        y = picks[0]()
    else:
        y = x
    return y


@pytest.mark.parametrize("fn, args", [
    (lambdas_made_by_a_comprehension_in_a_loop, (np.float64(1.5), np.int64(3))),
    (lambdas_made_by_a_comprehension_in_a_branch, (np.float64(1.5),)),
])
def test_a_comprehension_target_read_by_its_lambdas_is_the_comprehensions_own(fn, args):
    # the pass sharing closure variables declared `nonlocal k` in the loop or
    # branch function: a SyntaxError converting the function (plain calls too)
    expected = fn(*args)
    assert ag.to_graph(fn)(*args) == expected
    assert ag.function(fn)(*args) == expected


def helpers_defined_in_one_branch(x):
    if x > 0:
        def square(v):
            return v * v

        def fourth_power(v):
            return square(square(v))
        y = fourth_power(x)
    else:
        y = x
    return y


def helpers_defined_in_both_branches(x):
    if x > 0:
        def step(v):
            return v * v

        def apply_twice(v):
            return step(step(v))
        y = apply_twice(x)
    else:
        def step(v):
            return v + v

        def apply_twice(v):
            return step(v)
        y = apply_twice(x)
    return y


def closure_over_a_variable_of_its_branch(x):
    if x > 0:
        scale = x * 2
        by_scale = lambda v: v * scale  # noqa: E731
        scale = scale + 1  # (the lambda reads it when called, as in Python)
        y = by_scale(x)
    else:
        y = -x
    return y


@pytest.mark.parametrize("fn", [helpers_defined_in_one_branch, helpers_defined_in_both_branches,
                                closure_over_a_variable_of_its_branch])
@pytest.mark.parametrize("x", [1.5, -1.5])
def test_closures_a_staged_branch_defines_and_only_calls_are_its_own(fn, x):
    # their free variables were carried out of the `if` as outputs, so the
    # branch that defines them was refused: 'square' undefined in the other
    # branch, or a different Python value in the two
    x = np.float64(x)
    assert ag.function(fn)(x) == fn(x)


def test_the_jax_backend_stages_a_branch_defining_its_helpers():
    jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra")
    for fn in (helpers_defined_in_one_branch, closure_over_a_variable_of_its_branch):
        assert float(jax.jit(ag.to_graph(fn))(1.5)) == fn(1.5)


def helper_passed_on(x):
    if x > 0:
        scale = x * 2

        def by_scale(v):
            return v * scale
        y = _apply(by_scale, x)
    else:
        y = x
    return y


def _apply(f, v):
    return f(v)


def test_a_closure_passed_on_from_its_branch_still_carries_what_it_reads():
    # (the callee may keep it and call it after the `if`: Python's value of
    # `scale` is then the branch's, which a staged `if` cannot give)
    where = _line_of(helper_passed_on, "if x > 0")
    with pytest.raises(errors.StagingError, match=re.escape(f"variable 'scale' is undefined in a branch of the staged `if` at {where}")):
        ag.function(helper_passed_on)(np.float64(1.5))


def generator_made_in_a_branch(x, flag):
    if flag:
        w = x + 1

        def gen():
            yield w
        it = gen()
    else:
        it = iter([x])
    w = x * 10  # the generator reads the function's `w` when it runs: this one
    return next(it)


def test_a_helper_whose_calls_give_what_reads_its_variables_later_shares_them():
    # (a generator, or a closure the helper returns, reads the function's
    # variable after the `if`: the branch may not keep it its own)
    x = np.float64(1.5)
    assert ag.function(generator_made_in_a_branch)(x, True) == generator_made_in_a_branch(x, True)


# --- walrus in expressions Python keeps --------------------------------------------


def walrus_in_an_and(x):
    b = x * 0
    if (a := x * 2) > 1 and (b := a + 1) > 2:  # the and
        y = b
    else:
        y = a
    return y, b


def walrus_in_a_conditional_expression(x):
    y = (z := x * 2) if x > 0 else (z := x * 3)  # the conditional expression
    return y, z


def walrus_after_a_python_operand(x, flag):
    b = x * 0
    if flag or (b := x + 1) > 2:
        y = x
    else:
        y = b
    return y, b


def walrus_in_a_comparison_chain(x):
    if 0 < (m := x * 2) < 5:  # the chain
        return m
    return -x


def walrus_in_a_python_comparison_chain(x, k):
    if 0 < (m := k * 2) < 5:
        return x * m
    return -x


def _not_stageable(fn, construct, marker):
    return re.escape(errors.not_stageable_message(construct, _line_of(fn, marker)))


_AND = "an `and` whose later operands hold a walrus (`:=`), `yield`, `await` or a call " \
    "such as super() or locals()"
_IF_EXP = "a conditional expression whose branches hold a walrus (`:=`), `yield`, `await` " \
    "or a call such as super() or locals()"


_CHAIN = "a comparison chain whose later operands hold a walrus (`:=`), `yield`, `await` " \
    "or a call such as super() or locals()"


@pytest.mark.parametrize("fn, construct, marker", [
    (walrus_in_an_and, _AND, "# the and"),
    (walrus_in_a_conditional_expression, _IF_EXP, "# the conditional expression"),
    (walrus_in_a_comparison_chain, _CHAIN, "# the chain"),
])
def test_an_and_or_conditional_left_to_python_for_its_walrus_names_why(fn, construct, marker):
    # (a walrus cannot move into the lambda that defers an operand, so Python's
    # own `and` asked the tensor for its bool: a message about bool() calls
    # under the graph engine, JAX's TracerBoolConversionError under jax.jit)
    with pytest.raises(errors.NotStageableError, match=_not_stageable(fn, construct, marker)):
        ag.function(fn)(np.float64(1.5))
    jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra")
    with pytest.raises(errors.NotStageableError, match=_not_stageable(fn, construct, marker)):
        jax.jit(ag.to_graph(fn))(1.5)


@pytest.mark.parametrize("flag", [True, False])
def test_a_python_operand_before_a_walrus_runs_as_python(flag):
    x = np.float64(1.5)
    assert ag.function(walrus_after_a_python_operand)(x, flag) == \
        walrus_after_a_python_operand(x, flag)


@pytest.mark.parametrize("k", [1, 4])
def test_a_python_comparison_chain_with_a_walrus_runs_as_python(k):
    x = np.float64(1.5)
    assert ag.function(walrus_in_a_python_comparison_chain)(x, k) == \
        walrus_in_a_python_comparison_chain(x, k)


# --- functions held by objects, replaced between calls -----------------------------


def _relu(v):
    return np.maximum(v, 0.0)


def _double(v):
    return v * 2.0


class _Layer:
    def __init__(self):
        self.act = _relu

    def __call__(self, x):
        return self.act(x)


class _WithMethod:
    def act(self, v):
        return v

    def __call__(self, x):
        return self.act(x)


class _WithStatic:
    act = staticmethod(_relu)

    def __call__(self, x):
        return self.act(x)


class _WithClassmethod:
    scale = 1.0

    @classmethod
    def act(cls, v):
        return v * cls.scale

    def __call__(self, x):
        return self.act(x)


class _Namespace:
    act = staticmethod(_relu)


def _replace_instance_function(layer):
    layer.act = _double


def _replace_method(layer):
    type(layer).act = lambda self, v: v * 2.0


def _replace_staticmethod(layer):
    type(layer).act = staticmethod(_double)


def _replace_classmethod(layer):
    type(layer).act = classmethod(lambda cls, v: v * 5.0)


@pytest.mark.parametrize("make, replace", [
    (_Layer, _replace_instance_function),
    (type("M", (_WithMethod,), {}), _replace_method),
    (type("S", (_WithStatic,), {}), _replace_staticmethod),
    (type("C", (_WithClassmethod,), {}), _replace_classmethod),
])
def test_a_function_an_object_holds_replaced_between_calls_traces_again(make, replace):
    # (only globals and closure variables holding functions were watched: the
    # graph kept running the old function's code, a silent wrong value)
    layer = make()

    def apply(x):
        return layer(x)

    staged, x = ag.function(apply), np.float64(1.5)
    assert staged(x) == apply(x)
    assert staged(x) == apply(x) and staged.experimental_get_tracing_count() == 1
    replace(layer)
    assert staged(x) == apply(x) != 1.5


def test_a_staticmethod_read_through_its_class_replaced_between_calls_traces_again():
    def apply(x):
        return _Namespace.act(x)

    staged, x = ag.function(apply), np.float64(1.5)
    assert staged(x) == apply(x)
    original = _Namespace.__dict__["act"]
    try:
        _Namespace.act = staticmethod(_double)
        assert staged(x) == apply(x) == 3.0
    finally:
        _Namespace.act = original


# --- a closure reading a loop variable after the loop ------------------------------


def closure_reads_the_loop_variable_after_the_loop(x, n):
    i = 7
    scaled = lambda: i * x  # noqa: E731
    total = x * 0
    for i in range(n):
        total = total + scaled()
    return total, scaled()  # the last item, or 7 if the loop never ran


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype int64")  # (jax without x64)
@pytest.mark.parametrize("n", [3, 0])
def test_a_closure_from_before_a_staged_loop_sees_its_last_item_after_it(n):
    # (the loop variable was left out of the loop's state: the closure read
    # the body's traced item after the loop, refused as a tensor used outside
    # its graph, and under jax.jit JAX's UnexpectedTracerError)
    args = (np.float64(1.5), np.int64(n))
    expected = closure_reads_the_loop_variable_after_the_loop(*args)
    assert ag.function(closure_reads_the_loop_variable_after_the_loop)(*args) == expected
    jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra")
    got = jax.jit(ag.to_graph(closure_reads_the_loop_variable_after_the_loop))(1.5, n)
    assert tuple(float(v) for v in got) == expected
