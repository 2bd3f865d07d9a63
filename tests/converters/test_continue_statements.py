from autograph.converters import continue_statements
from test_return_harness import check, dedent, to_source

CONTINUE_ONLY = (continue_statements,)


def skip_odd(n):
    i = total = 0
    while i < n:
        i += 1
        if i % 2:
            continue
        total += i
    return total


def test_golden_continue_moves_the_rest_into_else_and_needs_no_flag():
    assert to_source(skip_odd, CONTINUE_ONLY) == dedent('''
        def skip_odd(n):
            i = total = 0
            while i < n:
                i += 1
                if i % 2:
                    pass
                else:
                    total += i
            return total
    ''')
    check(skip_odd, 7)


def continue_deep(xs):
    out = []
    for x in xs:
        if x > 0:
            if x == 3:
                continue
            out.append('positive')
        out.append(x)
    return out


def test_golden_continue_guards_what_follows():
    assert to_source(continue_deep, CONTINUE_ONLY) == dedent('''
        def continue_deep(xs):
            out = []
            for x in xs:
                continue_ = False
                if x > 0:
                    if x == 3:
                        continue_ = True
                    else:
                        out.append('positive')
                if not continue_:
                    out.append(x)
            return out
    ''')
    check(continue_deep, [1, 3, -1, 3, 4])


def continue_in_try(xs):
    out = []
    for x in xs:
        try:
            if x is None:
                continue
            out.append(10 // x)
        except ZeroDivisionError:
            out.append('zero')
            continue
        else:
            out.append('else')
        finally:
            out.append('finally')
        out.append('end')
    return out


def test_continue_in_try():
    check(continue_in_try, [1, None, 0, 5])


def continue_nested(grid):
    out = []
    for row in grid:
        for cell in row:
            if not cell:
                continue
            out.append(cell)
        if len(row) > 2:
            continue
        out.append('|')
    return out


def test_continue_in_nested_loops():
    check(continue_nested, [[1, 0, 2], [0, 3], []])


def unconditional(xs):
    out = []
    for x in xs:
        out.append(x)
        continue
        out.append('never')  # noqa - dead code stays, guarded
    return out


def test_unconditional_continue():
    check(unconditional, [1, 2])


def continue_in_finally(xs):
    for x in xs:
        try:
            print(x)
        finally:
            continue


def continue_in_finally_cancels(xs):
    """A `continue` in `finally` discards the exception, cancels a `break`
    and a `return`."""
    out = []
    for x in xs:
        try:
            if x == 1:
                raise ValueError(x)
            if x == 2:
                break
            if x == 3:
                return 'returned'
            out.append(x)
        finally:
            if x > 0:
                continue
        out.append(-x)
    return out


def test_continue_in_finally_wins():
    check(continue_in_finally, [1, 2])
    for xs in ([0, 1, 5], [0, 2, 5], [0, 3, 4], [0, 0], []):
        check(continue_in_finally_cancels, xs)
