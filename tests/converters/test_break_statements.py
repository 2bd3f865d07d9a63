import re

import pytest

import test_return_harness as harness
from autograph import anno, errors
from autograph.converters import break_statements
from test_return_harness import check, dedent, to_source

BREAK_ONLY = (break_statements,)


def while_break(x, key):
    i = 0
    while i < len(x):
        if x[i] == key:
            break
        i += 1
    else:
        i = -1
    return i


def test_golden_break_is_folded_into_the_while_test():
    assert to_source(while_break, BREAK_ONLY) == dedent('''
        def while_break(x, key):
            i = 0
            break_ = False
            while not break_ and ag__.while_test(i < len(x)):
                if x[i] == key:
                    break_ = True
                else:
                    i += 1
            if not break_:
                i = -1
            return i
    ''')
    for key in (1, 3, 9):
        check(while_break, [1, 2, 3], key)


def fetch(n, log):
    for i in range(n):
        log.append(('fetch', i))
        yield i


def for_break(n):
    log = []
    for i in fetch(n, log):
        log.append(('body', i))
        if i == 2:
            break
        log.append(('after', i))
    else:
        log.append('else')
    return i, log


def test_for_break_stops_before_fetching_the_next_item():
    node, _ = harness.transform(for_break, BREAK_ONLY)
    loop = next(s for s in node.body if isinstance(s, harness.gast.For))
    extra = anno.getanno(loop, anno.Basic.EXTRA_TEST)
    assert harness.ast.unparse(harness.gast.gast_to_ast(extra)) == "not break_"
    assert not loop.orelse
    for n in (0, 2, 3, 5):
        check(for_break, n)


def nested_breaks(grid):
    found = []
    for row in grid:
        for cell in row:
            if cell == 'stop':
                break
            if cell == 'end':
                return found
            found.append(cell)
        else:
            found.append('row complete')
            continue
        found.append('row broken')
    return found


def test_nested_loops_keep_their_own_flags():
    source = to_source(nested_breaks)
    assert "break_ = False" in source
    for grid in ([['a', 'b'], ['c']], [['a', 'stop', 'b'], ['c']], [['a'], ['end', 'x']], []):
        check(nested_breaks, grid)


def break_in_else_of_inner(xs):
    out = []
    for x in xs:
        for y in range(x):
            if y == 5:
                break
        else:
            out.append(x)
            break
        out.append(-x)
    return out


def test_break_in_an_inner_loop_else_leaves_the_outer_loop():
    for xs in ([7, 2, 9], [9, 8], [3]):
        check(break_in_else_of_inner, xs)


def break_in_try(xs):
    out = []
    for x in xs:
        try:
            if x == 0:
                break
            out.append(1 / x)
        except TypeError:
            out.append('type')
            break
        else:
            out.append('else')
        finally:
            out.append('finally')
    return out


def test_break_in_try_keeps_finally_and_skips_else():
    for xs in ([1, 2, 0, 3], [1, 'a', 2], [4]):
        check(break_in_try, xs)


def break_in_with(xs):
    out = []
    for x in xs:
        with harness.contextlib.suppress(KeyError):
            if x == 'k':
                raise KeyError(x)
            if x == 'b':
                break
            out.append(x)
    return out


def test_break_in_with():
    check(break_in_with, ['a', 'k', 'c', 'b', 'd'])


def break_in_nested_function(xs):
    def first(ys):
        for y in ys:
            if y:
                break
        return y
    return [first(x) for x in xs]


def test_break_in_nested_function():
    check(break_in_nested_function, [[0, 2, 3], [0, 0]])


def while_true(n):
    i = 0
    while True:
        i += 1
        if i >= n:
            break
    return i


def test_while_true_with_break():
    check(while_true, 4)


def loop_else_without_break(xs):
    for x in xs:
        print(x)
    else:
        print('done')


def test_loop_else_without_break_just_follows_the_loop():
    assert to_source(loop_else_without_break, BREAK_ONLY) == dedent('''
        def loop_else_without_break(xs):
            for x in xs:
                print(x)
            print('done')
    ''')
    check(loop_else_without_break, [1, 2])


def break_in_finally(xs):
    for x in xs:
        try:
            print(x)
        finally:
            break


def break_in_finally_cancels(xs):
    """A `break` in `finally` discards the exception and cancels a `return`."""
    out = []
    for x in xs:
        try:
            if x == 1:
                raise ValueError(x)
            if x == 2:
                return 'returned'
            out.append(x)
        finally:
            if x > 0:
                break
    return out


def return_and_break_in_one_finally(xs):
    for x in xs:
        try:
            print(x)
        finally:
            if x:
                return x
            break


def test_break_in_finally_wins():
    check(break_in_finally, [1, 2])
    for xs in ([0, 1, 5], [0, 2, 5], [0, 0], []):
        check(break_in_finally_cancels, xs)  # all passes: the return pass runs first


def test_break_in_finally_over_a_native_return_is_a_clear_error():
    """Without the return pass (as in a generator) the `return` stays native."""
    with pytest.raises(errors.ConversionError, match=r"'break' inside a 'finally' block at "
                       r".*'return' at .*stays a native return"):
        to_source(break_in_finally_cancels, BREAK_ONLY)


def test_two_kinds_of_jump_in_one_finally_is_a_clear_error():
    with pytest.raises(errors.ConversionError, match=re.escape(
            "'return' and 'break' inside one 'finally' block (the second at ")):
        to_source(return_and_break_in_one_finally)
