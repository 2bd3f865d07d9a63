"""Graph listings read like the user's code; scalar outputs are numpy scalars;
equal constants are one constant."""

import textwrap

import numpy as np
import pytest

import autograph as ag
from autograph.graph import Variable, cond, function, while_loop
from autograph.graph.core import CONST, Graph, identifier


def staged(fn):
    return function(fn, autograph=False)


def collatz(n):
    count = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        count += 1
    return count


def sum_even(items):
    s = 0
    for c in items:
        if c % 2 > 0:
            continue
        s += c
    return s


def _listing(fn, *args):
    text = str(ag.function(fn).get_concrete_function(*args).graph)
    return text.replace("# test_listing.py:", "# :")


def test_staged_loop_listing_uses_the_users_names():
    assert _listing(collatz, np.int64(27)) == textwrap.dedent("""\
        graph collatz(n: int64[]) -> (count)
          n_1: int64[], count: int64[] = while_loop(n, count=0)  # :20
            graph while_cond(n: int64[], count: int64[]) -> (not_equal)
              not_equal: bool[] = np.not_equal(n, 1)  # :20
              return (not_equal)
            graph while_body(n: int64[], count: int64[]) -> (n_1, count_1)
              remainder: int64[] = np.remainder(n, 2)  # :21
              equal: bool[] = np.equal(remainder, 0)  # :21
              n_1: int64[] = cond(equal)  # :21
                graph cond_true(captures n) -> (n_1)
                  n_1: int64[] = np.floor_divide(n, 2)  # :22
                  return (n_1)
                graph cond_false(captures n) -> (n_1)
                  multiply: int64[] = np.multiply(3, n)  # :24
                  n_1: int64[] = np.add(multiply, 1)  # :24
                  return (n_1)
              count_1: int64[] = np.add(count, 1)  # :25
              return (n_1, count_1)
          return (count)""")


def test_for_loop_listing_names_counter_and_item():
    assert _listing(sum_even, np.arange(4)) == textwrap.dedent("""\
        graph sum_even(items: int64[4]) -> (s)
          index: int64[], s: int64[] = while_loop(index=0, s=0)  # :31
            graph while_cond(index: int64[], s: int64[]) -> (less)
              less: bool[] = np.less(index, 4)  # :31
              return (less)
            graph while_body(index: int64[], s: int64[]; captures items) -> (index_1, s_1)
              c: int64[] = items[index]  # :31
              remainder: int64[] = np.remainder(c, 2)  # :32
              greater: bool[] = np.greater(remainder, 0)  # :32
              s_1: int64[] = cond(greater)  # :32
                graph cond_true(captures s) -> (s)
                  return (s)
                graph cond_false(captures s, c) -> (s_1)
                  s_1: int64[] = np.add(s, c)  # :34
                  return (s_1)
              index_1: int64[] = np.add(index, 1)  # :31
              return (index_1, s_1)
          return (s)""")


def test_range_loop_counter_is_the_target_and_print_has_no_targets():
    def count_to(n):
        for i in range(n):
            print(i)
        return n

    listing = str(ag.function(count_to).get_concrete_function(np.int64(3)).graph)
    assert "i: int64[] = while_loop(i=0) [stateful]" in listing
    assert "\n      print(i) [stateful]" in listing and "()" not in listing


def test_engine_names_are_optional_and_made_unique():
    def f(x):
        return while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (0, x),
                          maximum_iterations=5)[1]

    listing = str(staged(f).get_concrete_function(np.ones(2)).graph)
    assert "v0: int64[], x_1: float64[2] = while_loop(v0=0, x=x, maximum_iterations=5)" \
        in listing
    assert "graph while_body(v0: int64[], x: float64[2]) -> (v0_1, x_1)" in listing
    assert "None" not in listing

    def g(x):
        return cond(x.sum() > 0, lambda: (x + 1, x), lambda: (x - 1, x),
                    names=["state[0]['y']", "x"])

    listing = str(staged(g).get_concrete_function(np.ones(2)).graph)
    assert "state_0_y: float64[2], x_1: float64[2] = cond(greater)" in listing
    assert staged(g)(np.ones(2))[0].tolist() == [2.0, 2.0]


def test_unique_names_and_identifiers():
    graph = Graph()
    names = [graph.unique_name(n) for n in ("a", "a", "a_1", "a", "break_", "break_")]
    assert names == ["a", "a_1", "a_1_1", "a_2", "break_", "break_1"]
    assert [identifier(t) for t in ("retval_[0]", "self.count", "<loop counter>", "0x", "")] \
        == ["retval_0", "self_count", "loop_counter", "v_0x", "v"]


# --- scalar outputs ------------------------------------------------------------


def test_scalar_outputs_are_numpy_scalars_whatever_made_them():
    f = ag.function(collatz)
    for n, expected in ((1, 0), (27, 111)):  # 0 iterations: the initial constant
        out = f(np.int64(n))
        assert type(out) is int and out == expected  # a Python int counter, as in Python
    v = Variable(np.float32(1.5))
    g = staged(lambda x, a: (x, a, np.float32(2.0), v.read_value(), v, x.reshape(()),
                             np.asarray(3)))
    outs = g(np.array(7.0), np.ones(2))  # a 0-d array input comes back as a scalar
    assert [type(o) for o in outs] == [np.float64, np.ndarray, np.float32, np.float32,
                                       np.float32, np.float64, np.int64]
    assert outs[0] == 7.0 and outs[3] == outs[4] == 1.5 and outs[6] == 3


def test_staged_list_items_are_scalars_and_copies():
    zeros = np.zeros(2)

    def f(n):
        rows, counts = [], []
        for i in range(n):
            rows.append(zeros)
            counts.append(i)
        return rows, counts

    rows, counts = ag.function(f)(np.int64(2))
    # the counter is a Python int in Python: so are the items (ops/lists.py)
    assert [type(c) for c in counts] == [int, int] and counts == [0, 1]
    rows[0][0] = 5.0  # the graph's constant is not the caller's to change
    assert ag.function(f)(np.int64(1))[0][0].tolist() == [0.0, 0.0] and zeros[0] == 0.0


# --- equal constants -----------------------------------------------------------


def _consts(cf):
    return [n.attrs["value"] for n in cf.graph.nodes if n.op is CONST]


def test_cse_merges_equal_constants_of_one_dtype_and_shape():
    def f(x):
        return (x + np.int64(5), x * np.asarray(5), x - np.asarray([1, 2]), x / np.asarray([1, 2]),
                x + np.float64(5), x + np.int32(5))

    cf = staged(f).get_concrete_function(np.ones(2, np.int64))
    consts = _consts(cf)
    kinds = sorted((np.asarray(c).dtype.name, np.shape(c)) for c in consts)
    # int64 5 once (scalar and 0-d array), [1, 2] once, float64 5 and int32 5 kept apart
    assert kinds == [("float64", ()), ("int32", ()), ("int64", ()), ("int64", (2,))]
    out = cf(np.ones(2, np.int64))
    assert out[0].tolist() == [6, 6] and out[1].tolist() == [5, 5]
    assert out[3].tolist() == [1.0, 0.5] and out[5].dtype == np.int64


@pytest.mark.parametrize("a, b, merged", [
    (np.float64("nan"), np.asarray(np.nan), True),
    (np.float64(0.0), np.float64(-0.0), False),
    (np.asarray([1.0, np.nan]), np.asarray([1.0, np.nan]), True),
    (np.asarray([1, 2]), np.asarray([[1, 2]]), False),
    (np.asarray([1, 2], np.int64), np.asarray([1, 2], np.uint64), False),
])
def test_constant_merging_is_by_dtype_shape_and_bits(a, b, merged):
    cf = staged(lambda x: (x + a, x + b, a, b)).get_concrete_function(np.ones(2))
    assert len(_consts(cf)) == (1 if merged else 2)
    outs = cf(np.ones(2))
    np.testing.assert_array_equal(outs[0], np.ones(2) + a)
    np.testing.assert_array_equal(outs[1], np.ones(2) + b)
    for out, want in zip(outs[2:], (a, b)):  # bit for bit: -0.0 stays -0.0
        assert np.asarray(out).dtype == want.dtype and np.shape(out) == np.shape(want)
        assert np.asarray(out).tobytes() == np.asarray(want).tobytes()
