"""cond and while_loop with sub-graphs, and the functional TensorList."""

import re

import numpy as np
import pytest

from autograph import errors
from autograph.graph import (Variable, assert_op, cond, function, list_append, list_from,
                             list_length, list_new, list_pop, list_stack, print_op,
                             while_loop)


def staged(fn):
    return function(fn, autograph=False)


def test_cond_picks_the_branch_at_run_time():
    f = staged(lambda x: cond(x.sum() > 0, lambda: (x * 2, x.sum()), lambda: (-x, 0.0)))
    y, s = f(np.ones(2))
    np.testing.assert_array_equal(y, [2.0, 2.0]) and s == 2.0
    y, s = f(-np.ones(2))
    np.testing.assert_array_equal(y, [1.0, 1.0])
    assert s == 0.0 and f.experimental_get_tracing_count() == 1


def test_cond_branch_side_effects_run_only_when_taken(capsys):
    v = Variable(0.0)

    def f(x):
        def yes():
            print_op("yes", x)
            v.assign(1.0)
            return (x,)

        def no():
            print_op("no")
            assert_op(x.sum() > -10, "too small")
            return (x - 1,)

        return cond(x[0] > 0, yes, no)[0]

    g = staged(f)
    g(np.ones(1))
    assert capsys.readouterr().out == "yes [1.]\n" and v.numpy() == 1.0
    v.assign(0.0)
    g(-np.ones(1))
    assert capsys.readouterr().out == "no\n" and v.numpy() == 0.0
    with pytest.raises(AssertionError, match="too small"):
        g(np.full(1, -20.0))


def test_cond_python_numbers_adopt_the_tensor_dtype():
    f = staged(lambda x: cond(x[0] > 0, lambda: (x[0],), lambda: (0,))[0])
    assert f(np.ones(2, np.float32)).dtype == np.float32
    assert f(-np.ones(2, np.float32)).dtype == np.float32
    g = staged(lambda x: cond(x[0] > 0, lambda: (1,), lambda: (2.5,))[0])
    assert g(np.ones(1)) == 1.0 and g(np.ones(1)).dtype == np.float64


def test_cond_shapes_merge_to_none():
    def f(x):
        return cond(x[0] > 0, lambda: (x,), lambda: (x[:1],))

    cf = staged(f).get_concrete_function(np.ones(3))
    assert cf.outputs[0].shape == (None,)
    assert cf(-np.ones(3))[0].shape == (1,)


@pytest.mark.parametrize("false_fn,text", [
    (lambda x: (x, x), "the true branch returns 1 values, the false branch 2"),
    (lambda x: (x.astype(np.int32),), "output #0 differs between branches"),
    (lambda x: (x[0],), "ranks differ"),
])
def test_cond_mismatch_errors(false_fn, text):
    f = staged(lambda x: cond(x[0] > 0, lambda: (x,), lambda: false_fn(x)))
    with pytest.raises(errors.GraphError, match=re.escape(text)):
        f(np.ones(2))


def test_cond_with_python_predicate_just_calls_the_branch():
    assert cond(True, lambda: (1,), lambda: (2,)) == (1,)


def test_nested_cond_captures_through_levels():
    def f(x, y):
        def outer_true():
            return cond(y > 0, lambda: (x + y,), lambda: (x - y,))
        return cond(x > 0, outer_true, lambda: (x * 0,))[0]

    g = staged(f)
    assert g(np.float64(2), np.float64(3)) == 5
    assert g(np.float64(2), np.float64(-3)) == 5
    assert g(np.float64(-2), np.float64(3)) == 0


def test_while_loop_counts_and_converts_python_vars():
    def f(n):
        return while_loop(lambda i, total: i < n, lambda i, total: (i + 1, total + i),
                          (0, 0.0))

    g = staged(f)
    i, total = g(np.int64(5))
    assert (i, total) == (5, 10.0)
    assert type(i) is int and type(total) is float  # Python numbers stay Python numbers
    assert g(np.int64(0)) == (0, 0.0)


def test_while_loop_collatz():
    def collatz(n):
        def body(n, count):
            n = cond(n % 2 == 0, lambda: (n // 2,), lambda: (3 * n + 1,))[0]
            return n, count + 1
        return while_loop(lambda n, count: n != 1, body, (n, 0))[1]

    g = staged(collatz)
    assert [int(g(np.int64(k))) for k in (1, 6, 27)] == [0, 8, 111]


def test_while_loop_prints_every_iteration(capsys):
    def f(x):
        def body(i, x):
            print_op("i =", i)
            return i + 1, x * 2
        return while_loop(lambda i, x: i < 3, body, (0, x))[1]

    g = staged(f)
    assert g(np.ones(1))[0] == 8
    g(np.ones(1))
    assert capsys.readouterr().out == "i = 0\ni = 1\ni = 2\n" * 2


def test_while_loop_maximum_iterations():
    f = staged(lambda x: while_loop(lambda x: x > 0, lambda x: (x + 1,), (x,),
                                    maximum_iterations=4)[0])
    assert f(np.float64(1)) == 5.0


def test_while_loop_shape_change_needs_shape_invariants():
    def f(x, invariants):
        return while_loop(lambda x: x.sum() < 8,
                          lambda x: (np.concatenate([x, x]),), (x,),
                          shape_invariants=invariants)[0]

    with pytest.raises(errors.GraphError, match=re.escape("pass shape_invariants")):
        staged(f)(np.ones(1), None)
    assert staged(f)(np.ones(1), ((None,),)).shape == (8,)


def test_while_loop_dtype_change_is_an_error():
    f = staged(lambda x: while_loop(lambda i: i < 3, lambda i: (i + 0.5,), (0,)))
    with pytest.raises(errors.GraphError, match=re.escape("keep its dtype")):
        f(np.ones(1))


def test_while_loop_with_stateful_body_is_kept_and_ordered():
    v = Variable(0.0)

    def f(n):
        def body(i):
            v.assign_add(i.astype(np.float64))
            return (i + 1,)
        while_loop(lambda i: i < n, body, (np.int64(0),))
        return v.read_value()

    g = staged(f)
    assert g(np.int64(4)) == 6.0
    assert g(np.int64(1)) == 6.0


def test_tensor_list_in_a_loop():
    def f(x, n):
        def body(i, lst):
            return i + 1, list_append(lst, x * i)
        _, lst = while_loop(lambda i, lst: i < n, body, (0, list_new()))
        return list_stack(lst), list_length(lst)

    g = staged(f)
    stacked, length = g(np.ones(2), np.int64(3))
    np.testing.assert_array_equal(stacked, [[0, 0], [1, 1], [2, 2]])
    assert length == 3
    cf = g.get_concrete_function(np.ones(2), np.int64(3))
    assert cf.outputs[0].shape == (None, 2)


def test_tensor_list_pop_and_from():
    def f(x):
        lst = list_from([x, x + 1, x + 2])
        lst, last = list_pop(lst)
        return list_stack(lst), last, list_length(lst)

    stacked, last, length = staged(f)(np.zeros(2))
    np.testing.assert_array_equal(stacked, [[0, 0], [1, 1]])
    np.testing.assert_array_equal(last, [2, 2])
    assert length == 2


def test_empty_tensor_list_with_known_element_type_stacks():
    def f(x):
        lst = list_new(np.float32, (3,))
        _, lst = while_loop(lambda i, l: i < 0, lambda i, l: (i + 1, list_append(l, x)),
                            (0, lst))
        return list_stack(lst)

    assert staged(f)(np.ones(3, np.float32)).shape == (0, 3)


def test_tensor_list_dtype_errors():
    def f(x):
        return list_stack(list_append(list_new(np.int64), x))

    with pytest.raises(errors.GraphError, match=re.escape(
            "the staged list holds int64 items, the value is float64; give every item one "
            "dtype (cast this one with .astype(np.int64), or the others)")):
        staged(f)(np.ones(2))


def test_loop_inside_cond_inside_loop_compiles_and_runs():
    def f(x, n):
        def body(i, acc):
            def odd():
                return while_loop(lambda j, a: j < i, lambda j, a: (j + 1, a + x), (0, acc))[1:]
            (acc,) = cond(i % 2 == 1, odd, lambda: (acc,))
            return i + 1, acc
        return while_loop(lambda i, acc: i < n, body, (0, np.zeros_like(x)))[1]

    def reference(x, n):
        acc = np.zeros_like(x)
        for i in range(n):
            if i % 2 == 1:
                acc = acc + i * x
        return acc

    g = staged(f)
    for n in (0, 1, 4, 7):
        np.testing.assert_array_equal(g(np.ones(2), np.int64(n)), reference(np.ones(2), n))
    assert g.experimental_get_tracing_count() == 1
    assert "while " in g.get_concrete_function(np.ones(2), np.int64(1)).source  # a Python loop


def test_tensor_list_captured_inside_a_branch():
    def f(x):
        lst = list_from([x, x * 2])
        (total,) = cond(x.sum() > 0, lambda: (list_stack(lst).sum(),), lambda: (x.sum() * 0,))
        return total

    assert staged(f)(np.ones(2)) == 6.0
    assert staged(f)(-np.ones(2)) == 0.0


def test_graph_listing_shows_sub_graphs():
    f = staged(lambda x: cond(x[0] > 0, lambda: (x + 1,), lambda: (x - 1,)))
    listing = str(f.get_concrete_function(np.ones(2)).graph)
    assert "graph cond_true(captures x)" in listing and "graph cond_false" in listing
    assert "getitem: float64[] = x[0]" in listing
    assert "np.add(" in listing and "np.subtract(" in listing
