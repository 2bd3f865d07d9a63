import pytest

from autograph.runtime import and_, compare_chain, if_exp, not_, or_
from fake_backend import BACKEND, Sym


def trace(log, tag, value):
    log.append(tag)
    return value


@pytest.mark.parametrize("a", [0, 1, [], [0], None, 'x'])
@pytest.mark.parametrize("b", [0, 2, ''])
def test_python_values_mean_exactly_python(a, b):
    log = []
    assert and_(a, lambda: trace(log, 'b', b)) == (a and b)
    assert or_(a, lambda: trace(log, 'b', b)) == (a or b)
    assert log == ['b'] * (bool(a) + (not a))
    assert not_(a) is (not a)
    assert if_exp(a, lambda: 'yes', lambda: 'no', 'a') == ('yes' if a else 'no')


def test_result_identity_is_kept():
    a, b = [1], [2]
    assert and_(a, lambda: b) is b and or_(a, lambda: b) is a


def test_bool_errors_propagate():
    class NoBool:
        def __bool__(self):
            raise ValueError("ambiguous")
    with pytest.raises(ValueError, match="ambiguous"):
        and_(NoBool(), lambda: 1)
    with pytest.raises(ValueError, match="ambiguous"):
        not_(NoBool())


def test_staged_operands_stage_a_cond():
    BACKEND.log.clear()
    result = and_(Sym(True), lambda: 5)
    assert type(result) is Sym and result.value == 5
    assert or_(Sym(0), lambda: 7).value == 7
    assert not_(Sym(True)).value is False
    assert if_exp(Sym(False), lambda: 'a', lambda: 'b', 'c').value == 'b'
    assert [entry[0] for entry in BACKEND.log] == ['cond'] * 4


@pytest.mark.parametrize("values", [(1, 2, 3), (3, 2, 1), (1, 1, 2), (1, 5, 5)])
def test_compare_chain_evaluates_each_operand_once(values):
    log = []
    a, b, c = values
    result = compare_chain(trace(log, 'a', a), '<', lambda: trace(log, 'b', b),
                           '<=', lambda: trace(log, 'c', c))
    expected_log = []
    expected = trace(expected_log, 'a', a) < trace(expected_log, 'b', b) <= trace(
        expected_log, 'c', c)
    assert result == expected and log == expected_log


@pytest.mark.parametrize("op,a,b", [("==", 1, 1), ("!=", 1, 1), (">", 2, 1), (">=", 1, 2),
                                    ("is", None, None), ("is not", 1, None),
                                    ("in", 1, [1]), ("not in", 1, [1])])
def test_every_comparison_operator(op, a, b):
    expected = eval(f"a {op} b", {"a": a, "b": b})
    assert compare_chain(a, op, lambda: b) == expected


def test_staged_comparison_in_a_chain_stages_the_rest():
    BACKEND.log.clear()
    result = compare_chain(Sym(1), '<', lambda: 2, '<', lambda: 3)
    assert result.value is True and BACKEND.log[0][0] == 'cond'
