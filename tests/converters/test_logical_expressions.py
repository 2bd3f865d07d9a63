import pytest

import autograph as ag
from autograph.converters import conditional_expressions, logical_expressions
from test_return_harness import check, dedent, to_source

LOGICAL = (logical_expressions,)


def out(tag, value):
    print('eval', tag)
    return value


def chains(a, b, c):
    x = out('a', a) and out('b', b) and out('c', c)
    y = out('a', a) or out('b', b) or out('c', c)
    z = not out('a', a)
    w = out('a', a) and (out('b', b) or not out('c', c))
    return x, y, z, w


def test_golden_and_or_not():
    assert to_source(chains, LOGICAL) == dedent('''
        def chains(a, b, c):
            x = ag__.and_(out('a', a), lambda: ag__.and_(out('b', b), lambda: out('c', c)), "out('a', a) and out('b', b) and out('c', c)")
            y = ag__.or_(out('a', a), lambda: ag__.or_(out('b', b), lambda: out('c', c)), "out('a', a) or out('b', b) or out('c', c)")
            z = ag__.not_(out('a', a))
            w = ag__.and_(out('a', a), lambda: ag__.or_(out('b', b), lambda: ag__.not_(out('c', c)), "out('b', b) or not out('c', c)"), "out('a', a) and (out('b', b) or not out('c', c))")
            return (x, y, z, w)
    ''')


@pytest.mark.parametrize("a,b,c", [(0, 0, 0), (1, 0, 1), (1, 2, 0), ([], [1], 0), (1, 2, 3),
                                   ('', None, 'x')])
def test_short_circuit_order_and_values(a, b, c):
    check(chains, a, b, c, passes=LOGICAL)


def compare(a, b, c, d):
    return out('a', a) < out('b', b) <= out('c', c) != out('d', d)


def test_golden_comparison_chain():
    assert to_source(compare, LOGICAL) == dedent('''
        def compare(a, b, c, d):
            return ag__.compare_chain(out('a', a), '<', lambda: out('b', b), '<=', lambda: out('c', c), '!=', lambda: out('d', d))
    ''')


@pytest.mark.parametrize("args", [(1, 2, 3, 4), (3, 2, 3, 4), (1, 2, 1, 4), (1, 2, 2, 2),
                                  (1, 'x', 3, 4)])
def test_comparison_chain_evaluates_each_operand_once_and_short_circuits(args):
    check(compare, *args, passes=LOGICAL)


def membership(x, xs, y):
    return x in xs not in y, x is not None is not xs


def test_membership_and_identity_chains():
    check(membership, 1, (1, 2), [(1, 2)], passes=LOGICAL)
    check(membership, 3, (1, 2), [(1, 2)], passes=LOGICAL)


class Truthy:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return type(other) is Truthy and other.value == self.value

    def __bool__(self):
        print('bool', self.value)
        return self.value


def bool_calls(a, b):
    return (a and b), (a or b), (not a)


def test_bool_is_called_exactly_as_often_as_in_python():
    check(bool_calls, Truthy(True), Truthy(False), passes=LOGICAL)
    check(bool_calls, Truthy(False), Truthy(True), passes=LOGICAL)


def walrus(xs):
    if xs and (n := len(xs)) > 1:
        return n
    return 0


def test_walrus_operand_keeps_python_and():
    assert "ag__.and_" not in to_source(walrus, LOGICAL)
    check(walrus, [1, 2], passes=LOGICAL)


def walrus_chain(a, b):
    return out('a', a) < (m := out('b', b)) <= out('c', m + 1)


def test_golden_walrus_chain_keeps_python_chain_refusing_staged_truth_tested_operands():
    assert to_source(walrus_chain, LOGICAL) == dedent('''
        def walrus_chain(a, b):
            return ag__.python_only(out('a', a), 'a comparison chain whose later operands hold a walrus (`:=`), `yield`, `await` or a call such as super() or locals()') < ag__.python_only((m := out('b', b)), 'a comparison chain whose later operands hold a walrus (`:=`), `yield`, `await` or a call such as super() or locals()') <= out('c', m + 1)
    ''')
    for args in [(1, 2), (3, 2), (1, 0)]:
        check(walrus_chain, *args, passes=LOGICAL)


def raising(a):
    return a and 1 / 0


def test_exceptions_in_the_lazy_operand():
    check(raising, 0, passes=LOGICAL)
    check(raising, 1, passes=LOGICAL)


def with_local_class(x):
    class A:
        y = x and 2
        z = y if x else 3
    return A.y, A.z


def test_nested_class_bodies_are_left_alone():
    assert "ag__" not in to_source(with_local_class, (conditional_expressions, logical_expressions))
    check(with_local_class, 1, passes=(conditional_expressions, logical_expressions))


def test_end_to_end_through_to_graph():
    converted = ag.to_graph(chains)
    for args in ((1, 2, 3), (0, 1, 2)):
        assert converted(*args) == chains(*args)
