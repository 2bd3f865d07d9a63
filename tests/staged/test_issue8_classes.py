"""Pattern classes of issue 8 found by the fuzzer: staged mode gives Python's
result and printed output, or a catalog error naming the user's variable."""

import numpy as np
import pytest

import autograph as ag
from autograph.runtime import registry


def _outputs(fn, args, capsys):
    """(plain result, plain output, staged result, staged output)."""
    capsys.readouterr()
    expected = fn(*args)
    expected_out = capsys.readouterr().out
    actual = ag.function(fn)(*args)
    return expected, expected_out, actual, capsys.readouterr().out


# --- a print of Python values inside a staged branch or loop body ---------------

def print_in_empty_staged_loop(x, n):
    c = n * 0
    for v in x:
        if c > 2:
            break
        print("at", 0.0)
    return c


def print_in_untaken_staged_branch(n):
    if n > 0:
        print("positive")
    else:
        print("not positive", 1)
    return n


def test_python_print_in_a_staged_loop_runs_per_iteration(capsys):
    for x in (np.zeros(0), np.zeros(3)):
        e, e_out, a, a_out = _outputs(print_in_empty_staged_loop, (x, np.int64(4)), capsys)
        assert a == e and a_out == e_out


def test_python_print_in_a_staged_branch_runs_only_when_taken(capsys):
    staged = ag.function(print_in_untaken_staged_branch)
    for n in (3, -1, 5):
        capsys.readouterr()
        print_in_untaken_staged_branch(n)
        expected = capsys.readouterr().out
        staged(np.int64(n))
        assert capsys.readouterr().out == expected


# --- items and attributes assigned in staged statements are carried state --------

def dict_item_set_in_both_branches(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1.0
    else:
        x["b"] = -1.0
    return x["b"]


def dict_item_updated_in_while(a, n):
    d = {"k": a}
    i = 0
    while i < n:
        d["k"] = d["k"] + 1.0
        d["k"] += 0.5
        i += 1
    return d["k"]


class Box:
    pass


def attribute_updated_in_for_with_branch(a, n):
    o = Box()
    o.v = a
    for _ in range(n):
        if o.v > 2.0:
            o.v = o.v * 0.5
        else:
            o.v = o.v + 1.0
    return o.v


def list_item_in_loop_over_array(x):
    acc = [x[0] * 0.0, 0.0]
    for v in x:
        if v > 0.5:
            acc[0] = acc[0] + v
        acc[1] += 1.0
    return acc[0], acc[1]


def dict_item_set_in_one_branch(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1.0
    return x["b"]


def test_items_and_attributes_are_carried_like_variables(capsys):
    cases = [(dict_item_set_in_both_branches, (np.float64(2.0),)),
             (dict_item_set_in_both_branches, (np.float64(-2.0),)),
             (dict_item_updated_in_while, (np.float64(1.0), np.int64(3))),
             (dict_item_updated_in_while, (np.float64(1.0), np.int64(0))),
             (attribute_updated_in_for_with_branch, (np.float64(1.0), np.int64(5))),
             (list_item_in_loop_over_array, (np.array([0.25, 1.0, 2.0]),)),
             (list_item_in_loop_over_array, (np.array([0.75]),))]
    for fn, args in cases:
        expected = fn(*args)
        assert ag.to_graph(fn)(*args) == expected
        actual = ag.function(fn)(*args)
        np.testing.assert_array_equal(actual, expected)


def test_an_item_set_in_one_staged_branch_is_named():
    with pytest.raises(ag.AutoGraphError, match=r"x\['b'\].* undefined in a branch"):
        ag.function(dict_item_set_in_one_branch)(np.float64(1.0))
    assert dict_item_set_in_one_branch(1.0) == 1.0


def test_python_conditions_keep_aliasing_and_absent_keys():
    """The converted body (run as while tracing) on Python values: the part
    is stored back into the same dict, and a key no branch set stays absent."""
    def fn(flag):
        d = {}
        alias = d
        if flag:
            d["new"] = 1
        return alias, "new" in d, alias is d
    converted = ag.to_graph(fn)
    for flag in (True, False):
        with registry.staging("test: the converted body"):
            assert converted(flag) == fn(flag)


# --- closures see the current value of the variables they read --------------------

def closure_over_staged_loop_state(a, n):
    t = a

    def scaled(z):
        return z * 0.5 + t
    s = a * 0.0
    for _ in range(n):
        t = t + 1.0
        s = s + scaled(s)
    return s, t


def lambda_and_callable_object_over_while_state(a, n):
    t = a
    shift = lambda z: z + t  # noqa: E731 - the class under test is a lambda

    class Scale:
        def __call__(self, z):
            return z * t
    scale = Scale()
    s = a * 0.0
    i = 0
    while i < n:
        t = t * 0.5 + 1.0
        s = shift(s) + scale(1.0)
        i += 1
    return s


def closure_reads_a_variable_only_an_inner_loop_assigns(a, n):
    t = a

    def scaled(z):
        return z * 0.5 + t
    s = a * 0.0
    for _ in range(n):
        k = 0
        while k < n:
            k += 1
            t = scaled(s) + 1.0
        s = s + scaled(s)  # sees the t of the inner loop's last iteration
        t = a
    return s


def closure_defined_in_a_staged_loop(a, n):
    s = a * 0.0
    for i in range(n):
        add_i = lambda z: z + i  # noqa: E731
        s = add_i(s)
    return s


def test_closures_see_the_current_iteration(capsys):
    for fn in (closure_over_staged_loop_state, lambda_and_callable_object_over_while_state,
               closure_reads_a_variable_only_an_inner_loop_assigns,
               closure_defined_in_a_staged_loop):
        for n in (0, 1, 3):
            args = (np.float64(1.5), np.int64(n))
            expected = fn(*args)
            with registry.staging("test: the converted body"):
                assert ag.to_graph(fn)(1.5, n) == fn(1.5, n)
            np.testing.assert_allclose(ag.function(fn)(*args), expected)


def test_functions_appended_to_a_staged_list_are_refused():
    def fn(n):
        fns = []
        for i in range(n):
            fns.append(lambda: i)
        return [f() for f in fns]
    with pytest.raises(ag.AutoGraphError, match="callable is appended at .*to a list staged"):
        ag.function(fn)(np.int64(3))


# --- identical functions in two files are converted once each ----------------------

def test_identical_source_in_two_files_names_its_own_file(tmp_path):
    import importlib.util
    source = ("def f(a):\n"
              "    x = {'a': a}\n"
              "    if x['a'] > 0:\n"
              "        x['b'] = 1.0\n"
              "    return x['b']\n")
    for name in ("first_copy", "second_copy"):
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        with pytest.raises(ag.AutoGraphError) as caught:
            ag.function(module.f)(np.float64(1.0))
        assert f"{name}.py:3" in str(caught.value)
        assert ag.to_graph(module.f).__code__.co_filename == str(path)


# --- `while n:` (not a bool) with a `break` -----------------------------------------

def while_int_test_with_break(n, x):
    s = x * 0.0
    while n:
        n = n - 1
        s = s + 1.0
        if s > 2.0:
            break
    return s, n


def test_while_on_an_int_with_a_break_is_staged():
    for n in (0, 2, 5):
        expected = while_int_test_with_break(n, 0.0)
        with registry.staging("test: the converted body"):
            assert ag.to_graph(while_int_test_with_break)(n, 0.0) == expected
        actual = ag.function(while_int_test_with_break)(np.int64(n), np.float64(0.0))
        assert [float(v) for v in actual] == [float(v) for v in expected]


# --- variables first assigned inside a staged loop, used after it -------------------

def assigned_in_every_iteration(x):
    for v in x:
        y = v * 2.0
    return y


def loop_variable_used_after(n):
    for i in range(n):
        pass
    return i


def test_loop_locals_are_carried_and_checked_at_run_time():
    staged = ag.function(assigned_in_every_iteration)
    assert staged(np.array([1.0, 2.5])) == assigned_in_every_iteration(np.array([1.0, 2.5]))
    with pytest.raises(UnboundLocalError, match=r"variable 'y' is first assigned inside the "
                       r"staged `for` loop at .*test_issue8_classes.py:\d+, which ran zero"):
        staged(np.zeros(0))
    counted = ag.function(loop_variable_used_after)
    assert counted(np.int64(4)) == loop_variable_used_after(4) == 3
    with pytest.raises(UnboundLocalError, match="variable 'i' is first assigned"):
        counted(np.int64(0))


# --- generators and async functions are refused under ag.function -------------------

def doubles(x):
    for v in x:
        yield v * 2


async def plus_one(x):
    return x + 1


def test_generators_and_async_functions_are_refused_at_trace_time():
    with pytest.raises(ag.AutoGraphError, match=r"cannot stage doubles \(.*test_issue8_classes"
                       r".py:\d+\): it is a generator"):
        ag.function(doubles)(np.arange(3.0))
    with pytest.raises(ag.AutoGraphError, match="cannot stage plus_one .*an async function"):
        ag.function(plus_one)(np.float64(1.0))
    assert list(ag.to_graph(doubles)(np.arange(3.0))) == [0.0, 2.0, 4.0]


# --- `raise` under a staged `if`: a run-time check ----------------------------------

def raise_when_negative(x):
    if x < 0:
        raise ValueError("negative input")
    return x + 1


def raise_in_else_of_nested_branch(x, n):
    s = x
    if x > 0:
        if n > 2:
            s = s * 2
        else:
            raise RuntimeError("n too small")
    return s


def test_raise_under_a_staged_if_is_a_run_time_check():
    staged = ag.function(raise_when_negative)
    assert staged(np.float64(1.5)) == raise_when_negative(1.5) == 2.5  # traced once
    with pytest.raises(ValueError, match="^negative input"):  # the user's type and text
        staged(np.float64(-1.0))
    nested = ag.function(raise_in_else_of_nested_branch)
    assert nested(np.float64(1.0), np.int64(3)) == 2.0
    assert nested(np.float64(-1.0), np.int64(0)) == -1.0
    with pytest.raises(RuntimeError, match="^n too small"):
        nested(np.float64(1.0), np.int64(1))
    with pytest.raises(ValueError, match="negative input"):  # Python paths: the raise itself
        with registry.staging("test: the converted body"):
            ag.to_graph(raise_when_negative)(-1.0)


def raise_in_else_of_the_only_assignment(x):
    if x > 0:
        y = x * 2
    else:
        raise ValueError("x must be positive")
    return y


def raise_in_a_loop_body_branch(xs):
    out = 0.0
    for v in xs:
        if v >= 0:
            r = v * 2
        else:
            raise ValueError("negative item")
        out = out + r
    return out


def test_a_staged_raise_ends_its_branch_which_assigns_nothing():
    # after the staged raise the branch went on to `return (y,)`, reading a `y`
    # only the other path assigns: NameError, where Python returns 2.0
    for function, good, bad in (
            (raise_in_else_of_the_only_assignment, np.float64(1.0), np.float64(-1.0)),
            (raise_in_a_loop_body_branch, np.array([1.0, 2.0]), np.array([1.0, -2.0]))):
        staged = ag.function(function)
        for _ in range(2):
            assert staged(good) == function(good)
        with pytest.raises(ValueError, match="^(x must be positive|negative item)"):
            staged(bad)


def assert_false_in_else(x):
    y = x
    if x > 0:
        y = x * 2
    else:
        assert False, "x must be positive"
    return y


def assert_false_in_else_of_the_only_assignment(x):
    if x > 0:
        y = x * 2
    else:
        assert False, "x must be positive"
    return y


def test_assert_false_under_a_staged_if_is_a_run_time_check():
    # it failed while tracing the branch: staged raised where Python returns
    for function in (assert_false_in_else, assert_false_in_else_of_the_only_assignment):
        staged = ag.function(function)
        for _ in range(2):
            assert staged(np.float64(1.5)) == function(np.float64(1.5)) == 3.0
        with pytest.raises(AssertionError, match="^x must be positive"):
            staged(np.float64(-1.0))


# --- a `return` inside `with` under a staged `if`: staged (tests/staged/test_jumps_in_try.py) ---

class _Context:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def return_inside_with(x):
    with _Context():
        if x > 0:
            return x * 2
        y = x - 1
    return y


def test_return_inside_with_under_staged_if_is_staged():
    """`y` is assigned only on the path that did not return: dead on the other."""
    f = ag.function(return_inside_with)
    for x in (1.0, -1.0):
        assert f(np.float64(x)) == return_inside_with(np.float64(x))


# --- an unbound variable a closure reads: Python's own NameError --------------------

def closure_over_unbound(flag):
    if flag:
        y = 1

    def g():
        return y
    return g()


def test_closure_over_a_variable_left_unbound_raises_pythons_error():
    with pytest.raises(NameError) as python:
        closure_over_unbound(False)
    with registry.staging("test: the converted body"):
        with pytest.raises(NameError) as converted:
            ag.to_graph(closure_over_unbound)(False)
        assert ag.to_graph(closure_over_unbound)(True) == 1
    assert type(converted.value) is type(python.value)
    assert str(converted.value) == str(python.value)


# --- try/except around staged code: refused, naming the variable --------------------

def try_around_staged(x):
    try:
        y = np.log(x)
    except FloatingPointError:
        y = x * 0.0
    return y


def try_around_python_only(x, names):
    try:
        first = names[0]
    except IndexError:
        first = "none"
    return x + len(first)


def test_try_except_around_staged_code_is_refused():
    with pytest.raises(ag.AutoGraphError, match=r"the `try` statement at .*test_issue8_classes"
                       r".py:\d+ has `except` clauses, and its body reads 'x'"):
        ag.function(try_around_staged)(np.float64(2.0))
    staged = ag.function(try_around_python_only)
    assert staged(np.float64(1.0), ()) == try_around_python_only(1.0, ()) == 5.0
    assert staged(np.float64(1.0), ("ab",)) == 3.0


# --- messages name the user's expression, not a generated value --------------------

def and_of_bool_and_int(n):
    y = (n > 0) and n
    return y


def test_a_staged_and_with_two_dtypes_names_the_expression():
    with pytest.raises(ag.AutoGraphError) as caught:
        ag.function(and_of_bool_and_int)(np.int64(3))
    assert "`n > 0 and n`" in str(caught.value) and "<value of" not in str(caught.value)
