import inspect
import io
import sys

import autograph as ag
from autograph.converters import call_trees, function_scope
from test_return_harness import check, convert, dedent, to_source

CALLS = (call_trees,)


def helper(*args, **kwargs):
    return args, kwargs


def calls(x, b, kw):
    r = helper(x, *b, k=1, **kw)
    s = helper()
    t = helper(x)
    return r, s, t, isinstance(x, int), sorted(b, key=lambda v: -v), abs(x)


def test_golden_converted_call_forms():
    assert to_source(calls, CALLS) == dedent('''
        def calls(x, b, kw):
            r = ag__.converted(helper, fscope)(x, *b, k=1, **kw)
            s = ag__.converted(helper, fscope)()
            t = ag__.converted(helper, fscope)(x)
            return (r, s, t, ag__.isinstance_(x, int), ag__.converted(sorted, fscope)(b, key=lambda v: -v), abs(x))
    ''')
    check(calls, 1, [2, 3], {'z': 4}, passes=CALLS)


def printing(x, xs):
    print('x', x, sep='-', end='!\n')
    print(*xs, sep=', ')
    print('to', file=sys.stdout, flush=True)
    n = len(xs)
    for i, (a, b) in enumerate(zip(range(n), xs), 1):
        print(i, a, b)
    return n


def test_golden_builtin_operators():
    assert to_source(printing, CALLS) == dedent('''
        def printing(x, xs):
            ag__.print_('x', x, sep='-', end='!\\n')
            ag__.print_(*xs, sep=', ')
            ag__.print_('to', file=sys.stdout, flush=True)
            n = ag__.len_(xs)
            for i, (a, b) in ag__.enumerate_(ag__.zip_(ag__.range_(n), xs), 1):
                ag__.print_(i, a, b)
            return n
    ''')
    check(printing, 5, ['p', 'q'], passes=CALLS)


def print_to_file(x):
    buffer = io.StringIO()
    print(x, 'y', sep='|', end='.', file=buffer)
    return buffer.getvalue()


def test_print_with_file_sep_end():
    assert check(print_to_file, 3, passes=CALLS)[0] == '3|y.'


def make_shadowed():
    range = lambda n: ['my', 'range', n]  # noqa: E731 - a closure value shadowing the builtin

    def shadowed(xs):
        len = lambda v: 42  # noqa: E731 - a local shadowing the builtin
        return len(xs), range(3)
    return shadowed


def test_shadowed_builtins_are_ordinary_calls():
    shadowed = make_shadowed()
    source = to_source(shadowed, CALLS)
    assert "ag__.len_" not in source and "ag__.range_" not in source
    assert "ag__.converted(len, fscope)(xs)" in source
    assert "ag__.converted(range, fscope)(3)" in source
    check(shadowed, [1], passes=CALLS)


class Base:
    def m(self, x):
        return ('base', x)


class Child(Base):
    def m(self, x):
        return ('child',) + super().m(x)


def test_zero_argument_super_keeps_working():
    source = to_source(Child.m, CALLS)
    assert "ag__.converted(super().m, fscope)(x)" in source
    assert ag.to_graph(Child().m)(1) == Child().m(1)


def frames():
    here = sys._getframe().f_code.co_name
    return here, inspect.currentframe().f_code.co_name, locals().keys() == {'here'}


def test_frame_dependent_calls_see_the_users_frame():
    # The callee is resolved first and then called from the user's own frame,
    # so frame introspection needs no special case.
    source = to_source(frames, CALLS)
    assert "ag__.converted(sys._getframe, fscope)()" in source
    check(frames, passes=CALLS)


def decorated(x):
    def deco(f):
        print('decorating')
        return f

    @deco
    def inner(y=helper(1)):
        return helper(y)

    class Local:
        value = helper(2)
    return inner(), Local.value


def test_decorators_defaults_and_class_bodies_stay():
    source = to_source(decorated, CALLS)
    assert "@deco" in source and "y=helper(1)" in source and "value = helper(2)" in source
    assert "return ag__.converted(helper, fscope)(y)" in source
    check(decorated, 0, passes=CALLS)


def generated_calls(xs):
    return locals()


def test_generated_ag_calls_are_not_wrapped():
    source = to_source(generated_calls, (function_scope, call_trees))
    assert "ag__.user_locals(locals(), fscope)" in source
    assert convert(generated_calls, (function_scope, call_trees))([1]) == {'xs': [1]}


def raises_type_error(x):
    return helper(x, **{1: 2})


def test_call_errors_are_python_errors():
    check(raises_type_error, 0, passes=CALLS)


def recursive(n):
    if n <= 1:
        return 1
    return n * recursive(n - 1)


def test_end_to_end_recursion_and_printing(capsys):
    assert ag.to_graph(recursive)(5) == 120
    assert ag.to_graph(printing)(1, ['a']) == printing(1, ['a'])
    out = capsys.readouterr().out
    assert out.count("x-1!") == 2


def global_print(x):
    global print
    print = lambda *a: None  # noqa: E731 - rebinds the module's `print` at run time
    del print
    print(x)  # noqa: F821 - the builtin again, after `del`


def test_a_name_declared_global_is_not_assumed_builtin():
    assert "ag__.print_" not in to_source(global_print, CALLS)


def make_reporter(print):
    def report(x):
        print(x)
        return len([x])
    return report


def test_a_free_variable_named_like_a_builtin_is_never_the_builtin(capsys):
    # Both closures share one code object, hence one conversion: whether
    # `print` means the builtin must not depend on which closure came first.
    builtin_first = make_reporter(print)
    custom = make_reporter(lambda v: sys.stdout.write(f"custom {v}\n"))
    source = to_source(builtin_first, CALLS)
    assert "ag__.converted(print, fscope)(x)" in source
    assert "ag__.len_([x])" in source  # a global/builtin name keeps the static rewrite
    assert ag.to_graph(builtin_first)(1) == 1
    assert ag.to_graph(custom)(2) == 1
    assert capsys.readouterr().out == "1\ncustom 2\n"
