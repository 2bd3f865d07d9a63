import re

import pytest

import autograph.runtime as agr
from autograph import anno, errors
from autograph.converters import directives
from autograph.runtime import set_loop_options as renamed_options
from test_return_harness import ast, check, dedent, gast, to_source, transform

DIRECTIVES = (directives,)


def loops(n, x):
    i = 0
    while i < n:
        agr.set_loop_options(maximum_iterations=10)
        i += 1
    for j in range(n):
        renamed_options(shape_invariants=[(x, (None,))], maximum_iterations=n)
    return i


def _options(loop):
    return {k: ast.unparse(gast.gast_to_ast(v))
            for k, v in anno.getanno(loop, anno.Basic.DIRECTIVES).items()}


def test_directives_become_loop_annotations_however_imported():
    node, _ = transform(loops, DIRECTIVES)
    while_loop, for_loop = node.body[1], node.body[2]
    assert _options(while_loop) == {'maximum_iterations': '10'}
    assert _options(for_loop) == {'shape_invariants': '[(x, (None,))]', 'maximum_iterations': 'n'}
    assert to_source(loops, DIRECTIVES) == dedent('''
        def loops(n, x):
            i = 0
            while i < n:
                i += 1
            for j in range(n):
                pass
            return i
    ''')
    check(loops, 3, 0, passes=DIRECTIVES)


def outside(n):
    agr.set_loop_options(maximum_iterations=3)
    return n


def nested_in_if(n):
    for i in range(n):
        if i:
            agr.set_loop_options(maximum_iterations=3)


def positional(n):
    while n:
        agr.set_loop_options(3)
        n -= 1


def test_misuse_is_a_conversion_error_naming_the_line():
    line = outside.__code__.co_firstlineno + 1
    with pytest.raises(errors.ConversionError, match=re.escape(
            f"set_loop_options() at {__file__}:{line} is not directly inside a loop body")):
        to_source(outside, DIRECTIVES)
    with pytest.raises(errors.ConversionError, match="not directly inside a loop body"):
        to_source(nested_in_if, DIRECTIVES)
    with pytest.raises(errors.ConversionError, match=re.escape(
            "set_loop_options() at ") + ".*takes keyword arguments only"):
        to_source(positional, DIRECTIVES)


def shadowed(n):
    set_loop_options = print
    for i in range(n):
        set_loop_options(i)


def test_a_local_of_the_same_name_is_not_the_directive():
    assert "set_loop_options(i)" in to_source(shadowed, DIRECTIVES)
    check(shadowed, 2, passes=DIRECTIVES)


def element_type(n):
    lst = []
    agr.set_element_type(lst, int)
    for i in range(n):
        lst.append(i)
    return agr.stack(lst)


def test_set_element_type_stays_a_runtime_call():
    assert "lst = ag__.set_element_type(lst, int)" in to_source(element_type, DIRECTIVES)
    check(element_type, 3, passes=DIRECTIVES)


def test_set_loop_options_is_a_no_op_at_run_time():
    assert agr.set_loop_options(maximum_iterations=3) is None
    with pytest.raises(TypeError):
        agr.set_loop_options(bogus=1)
