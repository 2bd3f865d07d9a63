"""Staged values in the Python positions users write (issue 8, item 7).

Each test runs the function as plain Python, converted (`ag.to_graph`) and
under `ag.function`, and compares; or checks the clear error where a
position cannot be staged.
"""

import collections
import dataclasses

import numpy as np
import pytest

import autograph as ag


@dataclasses.dataclass
class Pair:
    a: object
    b: object


Point = collections.namedtuple("Point", "a b")


def _three_ways(fn, *args):
    """fn(*args) plain, converted and staged: the three results."""
    return fn(*args), ag.to_graph(fn)(*args), ag.function(fn)(*args)


def _assert_same(expected, actual):
    if dataclasses.is_dataclass(expected) or isinstance(expected, tuple):
        assert type(actual) is type(expected), f"{actual!r}, expected {expected!r}"
        fields = (dataclasses.astuple(expected) if dataclasses.is_dataclass(expected)
                  else expected)
        got = dataclasses.astuple(actual) if dataclasses.is_dataclass(actual) else actual
        for e, a in zip(fields, got, strict=True):
            _assert_same(e, a)
        return
    if isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), actual
        for e, a in zip(expected, actual):
            _assert_same(e, a)
        return
    assert not hasattr(actual, "graph"), f"a graph tensor came back: {actual!r}"
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))


def _check(fn, *args):
    expected, converted, staged = _three_ways(fn, *args)
    _assert_same(expected, converted)
    _assert_same(expected, staged)
    return staged


# -- containers of arrays as outputs and loop state ---------------------------

def returns_dataclass(x):
    return Pair(x + 1, x * 2)


def returns_nested_dataclass(x):
    return {"p": Pair(x, [x, Point(x, 2 * x)])}, Pair(1, "label")


def dataclass_loop_state(x):
    s = Pair(x, x)
    i = 0
    while i < x:
        s = Pair(s.a + 1, s.b * 2)
        i += 1
    return s


def namedtuple_loop_state(x):
    s = Point(x, x)
    for _ in range(np.int64(3) if x > 100 else 3):  # Python range: unrolled
        s = Point(s.a + 1, s.b * 2)
    i = 0
    while i < x:
        s = Point(s.a - 1, s.b + 1)
        i += 1
    return s


@pytest.mark.parametrize("fn", [returns_dataclass, dataclass_loop_state,
                                namedtuple_loop_state])
def test_dataclass_and_namedtuple_outputs_hold_arrays(fn):
    staged = _check(fn, np.float64(3.0))
    assert type(staged) in (Pair, Point)
    assert all(isinstance(v, (np.ndarray, np.generic)) for v in
               (staged.a, staged.b))


def test_nested_containers_come_back_with_arrays():
    staged = _check(returns_nested_dataclass, np.float64(3.0))
    assert staged[1] == Pair(1, "label")  # Python leaves returned as they are
    assert isinstance(staged[0]["p"].b[1].b, np.generic)


def test_a_dataclass_output_is_built_fresh_on_every_call():
    f = ag.function(returns_dataclass)
    first, second = f(np.float64(1.0)), f(np.float64(5.0))
    assert (first.a, second.a) == (2.0, 6.0) and first is not second


# -- loops whose only state lives in ag.Variables -------------------------------

def test_while_loop_whose_only_state_is_a_variable():
    counter = ag.Variable(np.int64(0))

    @ag.function
    def count_to(n):
        while counter < n:
            counter.assign(counter + 1)
        return counter + 0

    assert count_to(np.int64(3)) == 3
    assert count_to(np.int64(5)) == 5
    assert count_to(np.int64(2)) == 5  # the loop runs zero times


def test_for_loop_whose_only_state_is_a_variable():
    total = ag.Variable(np.float64(0.0))

    @ag.function
    def add_up(xs):
        for x in xs:
            total.assign(total + x)
        return total + 0

    assert add_up(np.arange(4.0)) == 6.0
    assert add_up(np.arange(3.0)) == 9.0


# -- builtins passed as values ----------------------------------------------------

def sum_over(make_range, n):
    total = 0
    for i in make_range(n):
        total += i
    return total


def enumerate_twice(wrap, xs):
    total = 0.0
    for i, x in wrap(xs):
        total += i * x
    return total


@pytest.mark.parametrize("n", [0, 1, 4])
def test_range_passed_as_an_argument_and_called_on_a_staged_bound(n):
    _check(sum_over, range, np.int64(n))


def test_enumerate_passed_as_an_argument_over_a_staged_array():
    _check(enumerate_twice, enumerate, np.arange(4.0))


# -- sizes known only when the graph runs ---------------------------------------------

def zeros_of(n):
    return np.zeros(n), np.ones((n, 2), np.int32), len(np.empty(n))


def full_of(n, x):
    return np.full(n, 2.5), np.full((2, n), x), np.full(n, x, np.float32)


def arange_of(n):
    return np.arange(n), np.arange(1, n), np.arange(n, 0, -2), np.arange(0.5, n, dtype=np.float32)


def zeros_in_a_loop(n):
    total = np.float64(0.0)
    for i in range(n):
        total += np.sum(np.ones(i + 1) * i)
    return total


def used_downstream(n, x):
    a = np.zeros(n) + x
    return a, len(a), np.sum(np.arange(n) * 2)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_creation_functions_with_a_staged_size(n):
    for fn, args in ((zeros_of, (np.int64(n),)), (full_of, (np.int64(n), np.float64(1.5))),
                     (arange_of, (np.int64(n),)), (zeros_in_a_loop, (np.int64(n),)),
                     (used_downstream, (np.int64(n), np.float64(2.0)))):
        expected, converted, staged = _three_ways(fn, *args)
        _assert_same(expected, converted)
        _assert_same(expected, staged)
        for e, s in zip(np.atleast_1d(np.array(expected, dtype=object)),
                        np.atleast_1d(np.array(staged, dtype=object))):
            assert np.asarray(e).dtype == np.asarray(s).dtype, (fn.__name__, e, s)


def test_the_graph_has_unknown_dims_for_staged_sizes():
    concrete = ag.function(zeros_of).get_concrete_function(np.int64(3))
    shapes = [t.shape for t in concrete.outputs]
    assert shapes[0] == (None,) and shapes[1] == (None, 2)


def test_negative_staged_size_raises_numpys_error():
    with pytest.raises(ValueError, match="negative dimensions"):
        ag.function(zeros_of)(np.int64(-1))


def test_non_integer_staged_size_is_refused_at_trace_time():
    with pytest.raises(TypeError, match="a size must be an integer scalar"):
        ag.function(zeros_of)(np.float64(2.0))


def grow_by_padding(x, n):
    a = x
    i = 0
    while i < n:
        ag.set_loop_options(shape_invariants=[(a, (None,))])
        a = np.pad(a, (0, 1), constant_values=i)
        i += 1
    return a


def grow_by_concatenating(x, n):
    a = x
    i = 0
    while i < n:
        ag.set_loop_options(shape_invariants=[(a, (None, 2))])
        a = np.concatenate([a, np.full((1, 2), i)], axis=0)
        i += 1
    return a


def pad_2d(x):
    return np.pad(x, ((1, 0), (2, 1))), np.pad(x, 1, constant_values=7)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_array_grown_in_a_staged_loop_with_shape_invariants(n):
    _check(grow_by_padding, np.ones(2), np.int64(n))
    _check(grow_by_concatenating, np.ones((1, 2)), np.int64(n))


def test_pad_in_constant_mode():
    _check(pad_2d, np.arange(6.0).reshape(2, 3))


def test_pad_modes_other_than_constant_are_refused():
    with pytest.raises(TypeError, match=r"np.pad\(\.\.\., mode=\.\.\.\) is not supported"):
        ag.function(lambda x: np.pad(x, 1, mode="edge"))(np.ones(2))


def shape_of_unknown_dim(n):
    return np.zeros(n).shape[0]


def test_shape_attribute_of_a_staged_size():
    assert ag.function(shape_of_unknown_dim)(np.int64(3)) == 3
    assert ag.function(shape_of_unknown_dim)(np.int64(0)) == 0


# -- `in` on a staged array -------------------------------------------------------------

def contains_two(x):
    if 2.0 in x:
        return 1
    return 0


def test_in_of_a_staged_array_says_how_to_stage_it():
    with pytest.raises(ag.AutoGraphError, match=r"np\.any\(x == v\)"):
        ag.function(lambda x: 2.0 in x, autograph=False)(np.arange(3.0))


@pytest.mark.parametrize("x", [np.arange(3.0), np.arange(4.0, 6.0)])
def test_in_of_a_staged_array_in_converted_code(x):
    _check(contains_two, x)


def test_membership_operators_stage_numpys_meaning():
    from autograph.runtime import logical

    def members(x):
        return logical.contains(2.0, x), logical.not_contains(2.0, x), \
            logical.compare_chain(1.0, "<", lambda: 2.0, "in", lambda: x)

    for x in (np.arange(3.0), np.arange(4.0, 6.0), np.zeros((2, 2))):
        expected = tuple(bool(v) for v in members(x))
        staged = ag.function(members, autograph=False)(x)
        assert tuple(bool(v) for v in staged) == expected


# -- staged lists ----------------------------------------------------------------------

def staged_list_setitem(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    items[0] = 5.0
    return np.stack(items)


def staged_list_pop_in_expression(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    total = 0.0
    while len(items) > 0:
        total += items.pop()
    return total


def staged_list_pop_statement(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    total = 0.0
    while len(items) > 0:
        last = items.pop()
        total += last
    return total, len(items)


def python_list_of_staged_values(x):
    items = [x, 2 * x, 3 * x]
    items[1] = -x
    last = items.pop()
    first = items.pop(0)
    return last, first, items


def test_python_list_holding_staged_values_supports_setitem_and_pop():
    _check(python_list_of_staged_values, np.float64(2.0))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_pop_statement_on_a_staged_list_in_a_staged_loop(n):
    _check(staged_list_pop_statement, np.int64(n))


def test_item_assignment_on_a_staged_list():
    _check(staged_list_setitem, np.int64(3))


def staged_list_setitem_in_a_staged_loop(n, i):
    items = []
    for k in range(n):
        items.append(k * 1.0)
    for k in range(n):
        items[k] = items[k] * 2.0 + 1.0
    items[i] = -1.0
    return np.stack(items), len(items)


@pytest.mark.parametrize("i", [0, 2, -1, -3])
def test_item_assignment_on_a_staged_list_in_a_staged_loop(i):
    _check(staged_list_setitem_in_a_staged_loop, np.int64(3), i)
    _check(staged_list_setitem_in_a_staged_loop, np.int64(3), np.int64(i))  # a staged index


@pytest.mark.parametrize("i", [3, -4])
def test_item_assignment_out_of_range_on_a_staged_list_is_pythons_error(i):
    with pytest.raises(IndexError, match="^list assignment index out of range"):
        staged_list_setitem_in_a_staged_loop(3, i)
    with pytest.raises(IndexError, match="^list assignment index out of range"):
        ag.function(staged_list_setitem_in_a_staged_loop)(np.int64(3), np.int64(i))


def staged_list_setitem_loss(x, n, i):
    items = []
    for k in range(n):
        items.append(x * (k + 1.0))
    items[i] = x * x * 5.0
    return np.sum(np.stack(items) * np.arange(1.0, 4.0)[:, None])


@pytest.mark.parametrize("i", [0, 1, -1])
def test_gradient_through_item_assignment_on_a_staged_list(i):
    x, eps = np.array([2.0, 3.0]), 1e-6
    grad = ag.grad(ag.function(staged_list_setitem_loss))(x, np.int64(3), np.int64(i))
    numeric = [(staged_list_setitem_loss(x + eps * e, 3, i)
                - staged_list_setitem_loss(x - eps * e, 3, i)) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(grad, numeric, rtol=1e-6)


def staged_list_augmented_item_assignment(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    items[0] += 5.0
    return ag.stack(items)


def test_augmented_item_assignment_on_a_staged_list_is_refused_with_the_fix():
    with pytest.raises(ag.AutoGraphError, match=r"item assignment `lst\[i\] = v` on a staged "
                                                r"list .*np\.where"):
        ag.function(staged_list_augmented_item_assignment)(np.int64(3))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_pop_inside_an_expression_on_a_staged_list(n):
    _check(staged_list_pop_in_expression, np.int64(n))


def python_list_pops_in_expressions(values, a):
    lst = list(values)
    first = a and lst.pop()  # short-circuited: no pop when `a` is false
    nested = lst.pop(lst.pop())
    return first, nested, lst.pop(0) - lst.pop(), lst


@pytest.mark.parametrize("a", [0, 1])
def test_pops_inside_expressions_on_a_python_list_are_pythons(a):
    _check(python_list_pops_in_expressions, (1, 5, 0, 3, 4, 0, 7, 2, 2), a)


def staged_list_pop_in_a_comprehension(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    return [items.pop() for _ in range(2)]


def test_pop_inside_a_comprehension_says_to_make_it_a_statement():
    with pytest.raises(ag.AutoGraphError, match=r"`lst\.pop\(\.\.\.\)` on a staged list"):
        ag.function(staged_list_pop_in_a_comprehension)(np.int64(4))


# -- dataclasses as arguments ---------------------------------------------------------

def affine(p, x):
    return x * p.a + p.b


def test_dataclass_argument_is_keyed_by_its_fields_not_its_identity():
    f = ag.function(affine)
    p, x = Pair(np.ones(2), np.zeros(2)), np.ones(2)
    np.testing.assert_array_equal(f(p, x), [1.0, 1.0])
    p.a = np.full(2, 3.0)  # a new array in the same object: not a stale constant
    np.testing.assert_array_equal(f(p, x), [3.0, 3.0])
    np.testing.assert_array_equal(f(Pair(np.full(2, 5.0), np.ones(2)), x), [6.0, 6.0])
    assert f.experimental_get_tracing_count() == 1
    f(Pair(np.ones(3), np.zeros(3)), np.ones(3))  # other shapes: a new trace
    f(Pair(np.ones(2), 1.0), x)  # a Python number field: part of the key by value
    assert f.experimental_get_tracing_count() == 3


def test_dataclass_holding_a_variable_and_nested_containers():
    state = Pair(ag.Variable(np.float64(1.0)), {"scale": np.float64(2.0)})

    @ag.function
    def step(s, x):
        s.a.assign(s.a * s.b["scale"])
        return s.a + x

    assert step(state, np.float64(0.0)) == 2.0
    assert step(state, np.float64(1.0)) == 5.0
    assert step.experimental_get_tracing_count() == 1


class _HoldsArray:
    def __init__(self):
        self.w = np.ones(2)
        self.scale = 1.0
        self.last = None  # not read by the function

    @ag.function
    def __call__(self, x):
        return x * self.w * self.scale


def test_array_and_number_attributes_replaced_after_tracing_are_seen():
    model = _HoldsArray()
    x = np.ones(2)
    np.testing.assert_array_equal(model(x), [1.0, 1.0])
    model.w = np.full(2, 7.0)
    np.testing.assert_array_equal(model(x), [7.0, 7.0])
    model.scale = 2.0
    np.testing.assert_array_equal(model(x), [14.0, 14.0])
    traces = _HoldsArray.__call__.experimental_get_tracing_count()
    for _ in range(3):
        model.last = model(x)  # an attribute the function does not read: no retrace
    assert _HoldsArray.__call__.experimental_get_tracing_count() == traces


WEIGHTS = np.ones(2)
RATE = 1.0


def uses_globals(x):
    return x * WEIGHTS * RATE + np.sum(WEIGHTS * 2)


def test_global_array_and_number_rebound_after_tracing_are_seen():
    global WEIGHTS, RATE
    f = ag.function(uses_globals)
    x = np.ones(2)
    try:
        np.testing.assert_array_equal(f(x), uses_globals(x))
        WEIGHTS = np.full(2, 3.0)
        np.testing.assert_array_equal(f(x), uses_globals(x))
        RATE = 0.5
        np.testing.assert_array_equal(f(x), uses_globals(x))
        np.testing.assert_array_equal(f(x), uses_globals(x))
        assert f.experimental_get_tracing_count() == 3
    finally:
        WEIGHTS, RATE = np.ones(2), 1.0


def test_a_concrete_function_refuses_to_run_with_a_replaced_global():
    """A concrete function cannot trace again: once a global it baked in is
    replaced, calling it is an error naming the global and the fix (before,
    its fast call kept returning the old result), and the Function retraces."""
    global WEIGHTS
    f = ag.function(uses_globals)
    x = np.ones(2)
    concrete = f.get_concrete_function(x)
    try:
        np.testing.assert_array_equal(concrete(x), uses_globals(x))
        np.testing.assert_array_equal(concrete(x), uses_globals(x))  # the fast call
        WEIGHTS = np.full(2, 3.0)
        with pytest.raises(ag.AutoGraphError, match=r"test_positions\.py:\d+.*global 'WEIGHTS'"
                           r".*Call the ag\.function itself"):
            concrete(x)
        np.testing.assert_array_equal(f(x), uses_globals(x))
    finally:
        WEIGHTS = np.ones(2)


def test_closure_variable_rebound_after_tracing_is_seen():
    def make():
        weights = np.ones(2)

        @ag.function
        def apply(x):
            return x * weights

        def set_weights(w):
            nonlocal weights
            weights = w
        return apply, set_weights

    apply, set_weights = make()
    np.testing.assert_array_equal(apply(np.ones(2)), [1.0, 1.0])
    set_weights(np.full(2, 9.0))
    np.testing.assert_array_equal(apply(np.ones(2)), [9.0, 9.0])


def test_global_array_changed_in_place_is_seen_when_used_directly():
    f = ag.function(lambda x: x * WEIGHTS)
    np.testing.assert_array_equal(f(np.ones(2)), [1.0, 1.0])
    try:
        WEIGHTS[:] = 4.0
        np.testing.assert_array_equal(f(np.ones(2)), [4.0, 4.0])
    finally:
        WEIGHTS[:] = 1.0


def test_global_array_changed_in_place_after_numpy_work_at_tracing():
    f = ag.function(uses_globals)
    x = np.ones(2)
    f(x)
    try:
        WEIGHTS[:] = 4.0
        np.testing.assert_array_equal(f(x), uses_globals(x))
    finally:
        WEIGHTS[:] = 1.0


def dataclass_state_in_for_and_if(xs):
    s = Pair(np.float64(0.0), Point(np.float64(1.0), 0))
    for x in xs:
        if x > 1:
            s = Pair(s.a + x, Point(s.b.a * 2, 0))
        else:
            s = Pair(s.a - x, s.b)
    return s


@pytest.mark.parametrize("xs", [np.arange(4.0), np.zeros(0), np.array([3.0])])
def test_dataclass_and_namedtuple_state_in_a_staged_for_and_if(xs):
    _check(dataclass_state_in_for_and_if, xs)


def staged_list_pop_at(n, i):
    items = []
    for k in range(n):
        items.append(k * 10.0)
    first = items.pop(0)
    picked = items.pop(i)
    return first, picked, np.stack(items), len(items)


@pytest.mark.parametrize("i", [0, 1, -1, -2])
def test_pop_with_an_index_on_a_staged_list(i):
    _check(staged_list_pop_at, np.int64(4), i)
    _check(staged_list_pop_at, np.int64(4), np.int64(i))  # a staged index


def test_pop_index_out_of_range_on_a_staged_list():
    f = ag.function(staged_list_pop_at)
    with pytest.raises(IndexError, match="pop index out of range"):
        f(np.int64(4), np.int64(5))
    with pytest.raises(IndexError, match="pop from empty list"):
        f(np.int64(0), 0)


def test_a_saved_graph_with_staged_sizes_runs_without_its_source(tmp_path):
    @ag.function
    def made(n, x):
        return np.zeros(n) + x, np.arange(1, n), np.pad(np.ones(n), (1, 0))

    made(np.int64(3), np.float64(1.0))
    made.save(str(tmp_path / "made"))
    loaded = ag.load(str(tmp_path / "made"))
    expected = made.python_function(5, 2.0)
    for e, a in zip(expected, loaded(np.int64(5), np.float64(2.0)), strict=True):
        np.testing.assert_array_equal(a, e)


def test_replacing_a_read_global_on_every_call_warns_to_use_a_variable():
    global WEIGHTS
    f = ag.function(uses_globals)
    try:
        with pytest.warns(ag.errors.RetracingWarning, match="its global 'WEIGHTS' held a new "
                                                           "value each time.*ag.Variable"):
            for i in range(8):
                WEIGHTS = np.full(2, float(i))
                np.testing.assert_array_equal(f(np.ones(2)), uses_globals(np.ones(2)))
    finally:
        WEIGHTS = np.ones(2)


def squared_error(w):
    return np.sum((w * WEIGHTS - RATE) ** 2)


def test_gradient_of_a_function_reading_a_replaced_global():
    global WEIGHTS
    g = ag.grad(squared_error)
    w = np.full(2, 0.5)
    try:
        np.testing.assert_allclose(g(w), 2 * (w * WEIGHTS - RATE) * WEIGHTS)
        WEIGHTS = np.full(2, 3.0)
        np.testing.assert_allclose(g(w), 2 * (w * WEIGHTS - RATE) * WEIGHTS)
    finally:
        WEIGHTS = np.ones(2)


# -- aliases of a staged list -----------------------------------------------------------
# A staged list is a value: append, pop and item assignment rebind the name they
# are written with, so a second name bound to the same list before the change
# would keep the old value, where Python's one list object changes under both
# names.  Staged mode refuses such a change at trace time, naming both holders
# (more of the class: tests/staged/test_list_aliases.py).


def alias_before_a_staged_loop(x, n):
    items = []
    alias = items
    for _ in range(n):
        items.append(x)
    return len(alias)


def alias_before_an_item_assignment(x, n):
    items = []
    for _ in range(n):
        items.append(x)
    alias = items
    items[0] = x * 2.0
    return alias[0]


@pytest.mark.parametrize("fn, expected, change", [
    (alias_before_a_staged_loop, 2, "the staged `for` loop that starts there makes it a "
                                    "staged list"),
    (alias_before_an_item_assignment, 6.0, r"the staged list gets an item assigned")])
def test_an_alias_of_a_staged_list_sees_its_changes(fn, expected, change):
    assert fn(np.float64(3.0), 2) == expected  # plain Python
    with pytest.raises(ag.AutoGraphError, match=r"`items` and `alias` \(in " + fn.__name__
                       + r" at .*test_positions\.py:\d+\) hold the same list, and " + change
                       + r".* at .*test_positions\.py:\d+\..*Use one name for the list"):
        ag.function(fn)(np.float64(3.0), np.int64(2))
