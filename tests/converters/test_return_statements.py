import test_return_harness as harness
from autograph.converters import return_statements
from test_return_harness import check, dedent, to_source

RETURN_ONLY = (return_statements,)


def early_return(x):
    if x > 0:
        return x
    elif x < -5:
        return 0
    return -x


def test_golden_branches_that_always_return_take_the_rest():
    assert to_source(early_return, RETURN_ONLY) == dedent('''
        def early_return(x):
            retval_ = ag__.UndefinedReturnValue()
            if x > 0:
                retval_ = x
            elif x < -5:
                retval_ = 0
            else:
                retval_ = -x
            return retval_
    ''')
    for x in (3, -7, -2):
        check(early_return, x, passes=RETURN_ONLY)


def return_in_loop(xs):
    for i in xs:
        if i > 2:
            return i
        print(i)


def test_golden_return_in_loop_falls_off_the_end_explicitly():
    assert to_source(return_in_loop, RETURN_ONLY) == dedent('''
        def return_in_loop(xs):
            do_return = False
            retval_ = ag__.UndefinedReturnValue()
            for i in xs:
                if i > 2:
                    retval_ = i
                    do_return = True
                else:
                    print(i)
            if not do_return:
                retval_ = None
                do_return = True
            return retval_
    ''')
    for xs in ([1, 2, 3, 4], [], [0]):
        check(return_in_loop, xs, passes=RETURN_ONLY)


def fixed_point(x):
    while True:
        nx = x / 2
        if nx < 1:
            return nx
        x = nx


def test_golden_while_true_without_break_does_not_fall_off_the_end():
    # no `retval_ = None` after it: a staged loop's `not do_return` test made that
    # branch a None against a tensor, refusing `while True: ... return` code
    assert to_source(fixed_point, RETURN_ONLY) == dedent('''
        def fixed_point(x):
            do_return = False
            retval_ = ag__.UndefinedReturnValue()
            while not do_return and True:
                nx = x / 2
                if nx < 1:
                    retval_ = nx
                    do_return = True
                else:
                    x = nx
            return retval_
    ''')
    for x in (10.0, 0.5, 1.0):
        check(fixed_point, x, passes=RETURN_ONLY)


def test_staged_while_true_returning_from_its_body():
    import numpy as np

    import autograph as ag

    def newton_sqrt(a):
        x = a
        while True:
            nx = 0.5 * (x + a / x)
            if abs(nx - x) < 1e-12:
                return nx
            x = nx

    def with_break(x):
        while True:
            x = x / 2
            if x < 1:
                break
        return x

    for function, arguments in ((newton_sqrt, np.float64(2.0)), (newton_sqrt, np.float32(9.0)),
                                (fixed_point, np.float64(10.0)), (with_break, np.float64(10.0))):
        staged = ag.function(function)
        for _ in range(2):  # (the first call runs interpreted, the second compiled)
            got, want = staged(arguments), function(arguments)
            assert type(got) is type(want) and got == want


def test_staged_search_ending_in_raise_returns_what_it_found():
    # the function ends in `raise`: no `retval_ = None` after it, which a
    # staged test of the flag had made a None against the found value
    import numpy as np
    import pytest

    import autograph as ag

    def find(x, t):
        i = 0
        while i < len(x):
            if x[i] == t:
                return x[i] * 2
            i += 1
        raise ValueError("not found")

    x = np.array([1.0, 2.0, 3.0])
    staged = ag.function(find)
    for _ in range(2):
        assert staged(x, np.float64(3.0)) == find(x, np.float64(3.0)) == 6.0
    with pytest.raises(ValueError, match="not found"):
        staged(x, np.float64(7.0))


def test_for_loop_gets_the_flag_as_extra_test():
    node, _ = harness.transform(return_in_loop, RETURN_ONLY)
    loop = node.body[2]
    from autograph import anno
    assert harness.ast.unparse(harness.gast.gast_to_ast(
        anno.getanno(loop, anno.Basic.EXTRA_TEST))) == "not do_return"


def tail_return_only(x):
    y = x + 1
    with open(__file__) as fh:
        return y, fh.readline()[:3]


def no_return(x):
    print(x)


def test_a_tail_return_needs_no_lowering():
    assert "retval_" not in to_source(tail_return_only, RETURN_ONLY)
    assert "retval_" not in to_source(no_return, RETURN_ONLY)
    check(tail_return_only, 1, passes=RETURN_ONLY)


def return_in_while(n):
    i = 0
    while i < n:
        i += 1
        if i == 3:
            return 'three'
    return i


def test_golden_while_test_carries_the_flag():
    assert to_source(return_in_while, RETURN_ONLY) == dedent('''
        def return_in_while(n):
            do_return = False
            retval_ = ag__.UndefinedReturnValue()
            i = 0
            while not do_return and ag__.while_test(i < n):
                i += 1
                if i == 3:
                    retval_ = 'three'
                    do_return = True
            if not do_return:
                retval_ = i
                do_return = True
            return retval_
    ''')
    for n in (0, 2, 3, 5):
        check(return_in_while, n)


def bare_return(x):
    """Docstring stays first."""
    if x:
        print('yes')
        return
    print('no')


def test_bare_return_gives_none_and_docstring_stays_first():
    source = to_source(bare_return, RETURN_ONLY)
    assert source.splitlines()[1].strip() == '"""Docstring stays first."""'
    assert "retval_ = None" in source
    check(bare_return, 0)
    check(bare_return, 1)


def side_effects():
    print('a')


def value_first(x):
    try:
        return 10 // x
    except ZeroDivisionError:
        print('caught')
    print('after')
    return -1


def test_the_value_is_computed_before_the_flag_is_set():
    check(value_first, 0)
    check(value_first, 5)


def finally_order(x):
    try:
        if x:
            return out('value')
        print('body')
    finally:
        print('finally')
    print('after')
    return 'end'


def out(x):
    print('computing', x)
    return x


def test_return_in_try_finally_keeps_the_order():
    assert check(finally_order, 1)[2] == 'computing value\nfinally\n'
    check(finally_order, 0)


def try_else(x):
    try:
        if x == 1:
            return 'body'
    except ValueError:
        return 'handler'
    else:
        print('else runs only without a return')
    return 'end'


def test_try_else_is_skipped_after_a_return():
    check(try_else, 1)
    check(try_else, 0)


def loop_else(xs):
    for x in xs:
        if x < 0:
            return x
    else:
        print('no negative')
    while xs:
        y = xs.pop()
        if y == 0:
            return 'zero'
        if y == 7:
            break
    else:
        print('while done')
    return 'end'


def test_loop_else_with_returns_and_breaks():
    for xs in ([1, -2, 3], [1, 2], [1, 0, 7], [0, 7, 1], []):
        check(loop_else, list(xs))


def nested_loops(grid):
    for row in grid:
        j = 0
        while j < len(row):
            if row[j] == 'x':
                return (row, j)
            j += 1
        print('row done', row)
    return None


def test_return_inside_while_inside_for():
    check(nested_loops, ['ab', 'cx', 'xx'])
    check(nested_loops, ['ab', 'cd'])


def with_block(x):
    with harness.contextlib.suppress(ZeroDivisionError):
        if x >= 0:
            return 1 / x
    print('suppressed')
    return 'after'


def test_return_inside_a_suppressing_with():
    check(with_block, 0)
    check(with_block, 2)
    check(with_block, -1)


def nested_functions(x):
    def inner(y):
        if y:
            return 'inner'
        return 'other'
    lam = lambda z: z + 1
    if x:
        return inner(x), lam(x)
    return inner(x)


def test_nested_functions_get_their_own_flags():
    source = to_source(nested_functions, RETURN_ONLY)
    assert source.count("ag__.UndefinedReturnValue()") == 2
    assert "retval__1" in source
    check(nested_functions, 0)
    check(nested_functions, 3)


def generator(n):
    for i in range(n):
        if i == 2:
            return
        yield i


def test_generators_keep_native_returns():
    assert "retval_" not in to_source(generator, RETURN_ONLY)
    assert list(harness.convert(generator)(5)) == [0, 1]


def dead_code(x):
    if x:
        return 1
        y = 2  # noqa: F841 - dead, but it makes `y` local
    return y


def test_dead_code_stays_so_names_stay_local():
    check(dead_code, 1)
    assert check(dead_code, 0)[1][0] is UnboundLocalError


def method_in_class(x):
    class A:
        def m(self, y):
            if y:
                return 'm'
            return 'n'
    return A().m(x)


def test_methods_of_local_classes_are_lowered():
    check(method_in_class, 0)
    check(method_in_class, 1)


def return_in_finally(x):
    try:
        print(x)
    finally:
        if x:
            return 1
    return 2


def return_in_finally_over_a_raise(x):
    try:
        if x > 1:
            raise ValueError(x)
        return 'try'
    finally:
        if x > 2:
            return 'finally'


def test_return_in_finally_wins_and_discards_the_exception():
    for x in (0, 1):
        check(return_in_finally, x)
    for x in (0, 2, 3):
        check(return_in_finally_over_a_raise, x)


def match_statement(command):
    match command:
        case ('go', where):
            if where == 'home':
                return 'going home'
            print('go', where)
        case _:
            return 'unknown'
    return 'done'


def test_return_in_match_cases():
    for command in (('go', 'home'), ('go', 'out'), 'x'):
        check(match_statement, command)


def generator_with_loop_jumps(n):
    for i in range(n):
        if i == 1:
            continue
        if i == 4:
            break
        yield i
    else:
        yield 'else'
    return


def test_generators_get_break_and_continue_lowered():
    source = to_source(generator_with_loop_jumps)
    assert "break_ = True" in source and "retval_" not in source
    for n in (3, 6):
        assert list(harness.convert(generator_with_loop_jumps)(n)) == list(
            generator_with_loop_jumps(n))
