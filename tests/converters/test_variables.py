"""variables: reads of maybe-Undefined names go through ag__.ld."""

import re

import pytest

import autograph as ag
from autograph.converters import if_statements, variables

from cf_support import Sym, assert_same, run_passes, value

UNBOUND = "cannot access local variable 'y' where it is not associated with a value"


def python_if_inside_staged_if(x, flag):
    z = 0
    if x > 0:
        if flag:
            y = 1
        z = y
    return z


def test_golden_reads_of_maybe_undefined_names_are_wrapped():
    got = run_passes("""
        def f(x, flag):
            z = 0
            if x > 0:
                if flag:
                    y = 1
                z = y
            return z
    """, if_statements, variables)
    assert "z = ag__.ld(y)" in got
    assert "(ag__.Undefined('y'),), ('y',))" in got  # state tuples are left alone
    assert "return (y,)" in got
    assert "ag__.ld(z)" not in got and "ag__.ld(x)" not in got  # only names that may be Undefined


def test_undefined_read_in_staged_code_raises_pythons_error():
    with pytest.raises(UnboundLocalError, match=f"^{re.escape(UNBOUND)}$"):
        ag.to_graph(python_if_inside_staged_if)(Sym(1), False)
    with pytest.raises(UnboundLocalError, match=f"^{re.escape(UNBOUND)}$"):
        python_if_inside_staged_if(1, False)
    assert value(ag.to_graph(python_if_inside_staged_if)(Sym(1), True)) == 1


@pytest.mark.parametrize("args", [(1, False), (1, True), (-1, False)])
def test_python_path_unchanged(args):
    assert_same(python_if_inside_staged_if, *args)


def test_variable_first_defined_in_loop_python_path():
    def f(n):
        for i in range(n):
            if i % 2:
                odd = i
        return odd
    assert_same(f, 4)
    assert_same(f, 1)
