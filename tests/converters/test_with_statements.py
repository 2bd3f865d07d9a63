"""Converted `with` statements: managers entered through `ag__.with_item`,
which for any manager but contextlib.suppress is the manager itself."""

import contextlib

from autograph.converters import with_statements
from test_return_harness import check, dedent, to_source

PASSES = (with_statements,)


@contextlib.contextmanager
def tagged(log, name):
    log.append(("enter", name))
    try:
        yield name
    finally:
        log.append(("exit", name))


def managed(x):
    log = []
    with tagged(log, "a") as first, contextlib.suppress(ZeroDivisionError):
        x = x / 0
    with tagged(log, "b"):
        x = x + 1
    return x, first, log


def test_golden_with_item_around_each_manager():
    assert to_source(managed, PASSES) == dedent('''
        def managed(x):
            log = []
            with ag__.with_item(tagged(log, 'a')) as first, ag__.with_item(contextlib.suppress(ZeroDivisionError)):
                x = x / 0
            with ag__.with_item(tagged(log, 'b')):
                x = x + 1
            return (x, first, log)
    ''')


def test_same_results_as_python():
    for x in (1, 2.5):
        check(managed, x, passes=PASSES)
