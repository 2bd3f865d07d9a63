"""Constant folding, CSE and DCE: what they remove, and what they must keep."""

import numpy as np

from autograph.graph import Variable, function, print_op
from autograph.graph.core import CONST


def concrete(fn, *args):
    return function(fn, autograph=False).get_concrete_function(*args)


def op_names(cf):
    return [n.op.name for n in cf.graph.nodes if n.op.name not in ("placeholder", "const")]


def test_cse_merges_repeated_subexpressions():
    def f(x):
        a = np.tanh(x @ x.T) + 1
        b = np.tanh(x @ x.T) + 1
        return a * b, np.sum(a), np.sum(b)

    cf = concrete(f, np.ones((2, 2)))
    assert op_names(cf).count("np.matmul") == 1 and op_names(cf).count("np.sum") == 1
    assert cf.report.merged >= 5
    out = cf(np.ones((2, 2)))
    np.testing.assert_allclose(out[0], (np.tanh(np.full((2, 2), 2.0)) + 1) ** 2)


def test_cse_tells_literals_of_different_types_apart():
    cf = concrete(lambda x: (x + 1, x + 1.0, x + True), np.ones(2, np.int32))
    assert op_names(cf).count("np.add") == 3
    assert [o.dtype for o in cf(np.ones(2, np.int32))] == [np.int32, np.float64, np.int32]


def test_constant_folding():
    table = np.arange(6.0).reshape(2, 3)

    def f(x):
        scale = np.exp(np.zeros(3)) * 2  # no tensor: plain numpy at trace time
        folded = np.sum(table.T @ table) + x * 0  # x keeps it a graph op
        w = np.ones(3)
        return x * scale + w.sum(), folded

    cf = concrete(f, np.ones(3))
    x = np.ones(3)
    np.testing.assert_allclose(cf(x)[0], x * 2 + 3)
    tensor_ops = concrete(lambda x: x + np.tanh(np.ones(3)) * 2, x)
    assert tensor_ops.report.folded == 0  # constants are numpy already


def test_folding_of_ops_on_constants_inside_the_graph():
    v = np.arange(4.0)

    def f(x):
        c = x[:0].sum() * 0  # depends on x: stays
        k = np.add(np.float64(2), v)  # plain numpy
        return x + k, c

    cf = concrete(f, np.ones(4))
    np.testing.assert_array_equal(cf(np.ones(4))[0], np.ones(4) + 2 + v)


def test_dce_removes_unused_ops_but_keeps_stateful_ones(capsys):
    v = Variable(0.0)

    def f(x):
        unused = np.exp(x) @ np.ones(3)  # noqa: F841 - dead on purpose
        print_op("kept", x)  # stateful: kept
        v.assign(x.sum())  # stateful: kept
        v.read_value() * 2  # a read is stateful: kept even if unused
        return x + 1

    cf = concrete(f, np.ones(3))
    names = op_names(cf)
    assert "np.exp" not in names and "np.matmul" not in names
    assert names.count("print") == 1 and "variable.assign" in names and "variable.read" in names
    assert cf.report.removed >= 2
    cf(np.ones(3))
    assert capsys.readouterr().out == "kept [1. 1. 1.]\n" and v.numpy() == 3


def test_stateful_ops_are_never_merged():
    v = Variable(1.0)

    def f():
        a = v.read_value()
        v.assign(5.0)
        b = v.read_value()
        return a + 0, b + 0

    cf = concrete(f)
    assert op_names(cf).count("variable.read") == 2
    v.assign(1.0)
    assert cf() == (1.0, 5.0)


def test_identical_prints_are_not_merged(capsys):
    def f(x):
        print_op(x)
        print_op(x)
        return x

    concrete(f, np.ones(1))(np.ones(1))
    assert capsys.readouterr().out == "[1.]\n[1.]\n"


def test_small_equal_constants_are_shared():
    cf = concrete(lambda x: (x + np.ones(2), x * np.ones(2)), np.ones(2))
    assert sum(1 for n in cf.graph.nodes if n.op is CONST) == 1


def test_large_graph_builds_in_linear_passes():
    def chain(x):
        for i in range(3000):
            x = x * 1.0001 + i % 7
        return x

    cf = concrete(chain, np.ones(2))
    want = chain(np.ones(2))
    np.testing.assert_allclose(cf(np.ones(2)), want)


def test_cse_keys_float_literals_by_their_bits():
    # (optimize freezes ints, bools, strings and floats as it meets them, other
    # literals after folding: both spell a literal as freeze does)
    nan = float("nan")
    other_nan = np.frombuffer(np.array([0x7FF8000000000001], np.uint64).tobytes())[0].item()
    cf = concrete(lambda x: (x + 0.0, x + -0.0, x + 0.0, x * nan, x * float("nan"),
                             x * other_nan, x + 1, x + 1), np.ones(2))
    adds = [n for n in cf.graph.nodes if n.op.name == "np.add"]
    assert [n.args[1] for n in adds] == [0.0, -0.0, 1]
    assert [str(n.args[1]) for n in adds] == ["0.0", "-0.0", "1"]
    assert op_names(cf).count("np.multiply") == 2  # (the two NaNs of equal bits merge)
    out = cf(np.ones(2))
    assert np.signbit(out[1]).tolist() == [False, False]  # (1 + -0.0 is 1.0)
    assert np.isnan(out[3]).all() and np.isnan(out[5]).all()

