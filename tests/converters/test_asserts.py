"""Converted asserts vs Python's own (PYTEST_DONT_REWRITE: the originals must stay plain)."""

import os
import subprocess
import sys
import traceback

import autograph as ag
from autograph.converters import asserts
from test_return_harness import check, convert, dedent, to_source

ASSERTS = (asserts,)


def out(tag, value):
    print('eval', tag)
    return value


def checked(x):
    assert out('test', x > 0), out('msg', f'x must be positive, got {x}')
    assert x != 5
    return x


def test_golden_native_assert_around_assert_stmt():
    assert to_source(checked, ASSERTS) == dedent('''
        def checked(x):
            assert ag__.assert_stmt(out('test', x > 0), lambda: out('msg', f'x must be positive, got {x}')), out('msg', f'x must be positive, got {x}')
            assert ag__.assert_stmt(x != 5, None)
            return x
    ''')


def test_same_error_and_evaluation_order():
    for x in (1, -1, 5):
        check(checked, x, passes=ASSERTS)


def test_traceback_ends_at_the_users_assert_line():
    converted = convert(checked, ASSERTS)
    try:
        converted(-1)
    except AssertionError as e:
        last = traceback.extract_tb(e.__traceback__)[-1]
    assert last.filename == __file__
    assert last.lineno == checked.__code__.co_firstlineno + 1


SCRIPT = '''
import autograph as ag
import {module}
print(ag.to_graph({module}.checked)(-1))
'''


def test_python_dash_O_skips_the_assert_and_its_test():
    here = os.path.dirname(__file__)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([here, os.path.dirname(os.path.dirname(here))]))
    result = subprocess.run([sys.executable, "-O", "-c", SCRIPT.format(module="test_asserts")],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "-1\n"  # neither the test nor the message was evaluated


def walrus_in_test(xs):
    assert (n := len(xs)) > 0, 'empty'
    return n


def test_walrus_in_test_binds_in_the_function():
    check(walrus_in_test, [1, 2], passes=ASSERTS)
    check(walrus_in_test, [], passes=ASSERTS)


def test_end_to_end():
    assert ag.to_graph(checked)(3) == 3
