"""tracebacks pass + runtime: a traceback through generated functions shows
the user's function once, at the line that raised, as Python does."""

import textwrap
import traceback

import pytest

import autograph as ag
from autograph import errors
from autograph.converters import if_statements, tracebacks

from cf_support import run_passes


def test_golden_with_only_around_bodies_that_define_generated_functions():
    got = run_passes('''
        def f(x):
            """Doc."""
            if x > 0:
                x = -x
            return x
    ''', if_statements, tracebacks)
    assert got == textwrap.dedent('''\
        def f(x):
            """Doc."""
            with ag__.user_tracebacks:

                def if_true(x):
                    x = -x
                    return (x,)
                x, = ag__.if_stmt(x > 0, if_true, None, (x,), ('x',))
                return x''')
    straight = run_passes("""
        def g(x):
            y = x + 1
            return y
    """, if_statements, tracebacks)
    assert "user_tracebacks" not in straight


def _fail(v):
    raise ValueError(v)


def loop_raises(xs):
    total = 0
    for x in xs:
        if x > 2:
            total += _fail(x)
        total += x
    return total


def recursion_raises(n):
    if n == 0:
        _fail(n)
    return recursion_raises(n - 1) + 1


def nested_user_function(xs):
    def inner(v):
        if v > 1:
            return _fail(v)
        return v
    out = []
    for x in xs:
        out.append(inner(x))
    return out


def _user_frames(exc):
    return [(frame.f_code.co_filename, lineno, frame.f_code.co_name)
            for frame, lineno in traceback.walk_tb(exc.__traceback__)
            if not errors.is_internal_file(frame.f_code.co_filename)]


@pytest.mark.parametrize("fn, arg", [(loop_raises, [1, 2, 3]), (recursion_raises, 3),
                                     (nested_user_function, [0, 1, 2])])
def test_user_frames_are_pythons(fn, arg):
    with pytest.raises(ValueError) as expected:
        fn(arg)
    with pytest.raises(ValueError) as actual:
        ag.to_graph(fn)(arg)  # tests/converters run the converted body (conftest)
    assert _user_frames(actual.value)[1:] == _user_frames(expected.value)[1:]
    assert "if_stmt" not in "".join(traceback.format_tb(actual.value.__traceback__))
