from autograph.converters import conditional_expressions, logical_expressions
from test_logical_expressions import out
from test_return_harness import check, to_source

CONDITIONAL = (conditional_expressions,)


def if_expressions(x):
    y = out('big', 'big') if out('test', x > 10) else out('small', 'small')
    return y, (1 if x else 2 if x is None else 3)


def test_golden_conditional_expression():
    assert to_source(if_expressions, CONDITIONAL).splitlines()[1] == (
        "    y = ag__.if_exp(out('test', x > 10), lambda: out('big', 'big'), "
        "lambda: out('small', 'small'), \"out('test', x > 10)\")")
    for x in (20, 0, None):
        check(if_expressions, x, passes=CONDITIONAL)


def comprehension(xs):
    return [x if x > 1 else -x for x in xs if x and x != 3]


def test_expressions_inside_comprehensions():
    check(comprehension, [0, 1, 2, 3, 4], passes=(conditional_expressions, logical_expressions))


def walrus_branch(x):
    y = (n := x + 1) if x else 0
    return y, x and n


def test_walrus_in_a_branch_keeps_the_python_expression():
    assert "if_exp" not in to_source(walrus_branch, CONDITIONAL)
    check(walrus_branch, 2, passes=CONDITIONAL)


def raising_branch(x):
    return 1 / x if x else 'zero'


def test_only_the_chosen_branch_runs():
    check(raising_branch, 0, passes=CONDITIONAL)
    check(raising_branch, 4, passes=CONDITIONAL)
