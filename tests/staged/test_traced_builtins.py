"""type(), isinstance() and repr() of staged values, and in-place changes of
an ag.function's container arguments (issue 8: staged mode never returns a
wrong value).

  * `type(t)` / `isinstance(t, cls)` in converted code answer what `t` is when
    the program runs eagerly (runtime/builtins.py, Backend.eager_types): an
    ndarray for a graph tensor of rank >= 1 (a JAX array under jax.jit), the
    argument's own type for an argument; a 0-d computed value may be a numpy
    scalar, a 0-d array or a Python number, so a question those disagree on
    is refused (TracedTypeError) -- before, the answer was the tracing
    placeholder's class (a Tensor class returned as a constant, isinstance
    silently False).
  * `repr(t)` is refused like `str(t)` (TensorTextError); `bool(t)` raises
    TensorUsageError for every backend (under JAX it was JAX's own error).
  * ag.function traces on copies of list/dict arguments and later calls run
    the graph alone: changing one in place never reached the caller's
    container after the first call.  Refused (ArgumentChangeError), naming
    the argument, the line when a method call made the change, and the fix.
  * On plain values (the original code, or the converted body on Python
    values) every one of these is exactly the builtin.
"""

import builtins
import re
import threading

import numpy as np
import pytest

import autograph as ag
from autograph import errors
from autograph.runtime import builtins as ag_builtins
from autograph.runtime import registry

LINE = r"\S*test_traced_builtins\.py:\d+"


def _line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    (line,) = [first + i for i, source in enumerate(lines) if source.strip() == text]
    return f"{fn.__code__.co_filename}:{line}"


# --- type() and isinstance() in the graph engine ------------------------------------------

def types_of_arguments_and_arrays(x, s, z):
    y = x * 2
    return (type(x) is np.ndarray, type(s) is np.float32, type(z) is np.ndarray,
            type(y) is np.ndarray, isinstance(y, np.ndarray), isinstance(y, (int, float)),
            isinstance(y, np.generic), isinstance(s, np.floating), isinstance(s, float),
            isinstance(z, np.ndarray), isinstance(x, str))


def test_type_and_isinstance_of_arrays_and_arguments_are_the_eager_ones():
    args = (np.arange(3.0), np.float32(1.5), np.array(2.0))
    expected = types_of_arguments_and_arrays(*args)
    assert expected == (True, True, True, True, True, False, False, True, False, True, False)
    got = ag.function(types_of_arguments_and_arrays)(*args)
    assert tuple(bool(v) for v in got) == expected


def type_of_a_sum(x):
    total = x.sum()
    return type(total)


def isinstance_of_a_sum(x, classinfo):
    total = x.sum()
    return isinstance(total, classinfo)


def test_type_of_a_computed_0d_value_is_refused_naming_it():
    with pytest.raises(errors.TracedTypeError, match=(
            rf"type\(\) at {LINE}: 'total' is a staged value \(a tensor of dtype float64 and "
            r"shape \(\)\).*numpy\.ndarray, numpy\.float64, bool, int, float, complex.*"
            r"`total\.dtype`.*`np\.ndim\(total\)`")) as info:
        ag.function(type_of_a_sum)(np.arange(3.0))
    assert _line_of(type_of_a_sum, "return type(total)") in str(info.value)
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("classinfo", [np.ndarray, np.floating, np.generic, float, (int, float)])
def test_isinstance_the_eager_types_disagree_on_is_refused(classinfo):
    with pytest.raises(errors.TracedTypeError, match=rf"isinstance\(\) at {LINE}: 'total'"):
        ag.function(isinstance_of_a_sum)(np.arange(3.0), classinfo)


# (isinstance of the class the staged value really is answers True: `is this
# traced?` idioms -- ag.graph.Tensor here, jax.core.Tracer under jax.jit)
@pytest.mark.parametrize("classinfo, answer", [
    (str, False), (list, False), (ag.graph.Tensor, True),
    ((np.ndarray, np.generic, int, float, bool, complex), True)])
def test_isinstance_the_eager_types_agree_on_is_answered(classinfo, answer):
    assert bool(ag.function(isinstance_of_a_sum)(np.arange(3.0), classinfo)) is answer


def type_of_a_dict_item(x):
    d = {"k": x.max()}
    return type(d["k"])


def type_of_an_expression(x):
    return type(x.max() + 1)


def isinstance_in_a_header(x):
    pair = [x, x.sum()]
    total = pair[1]
    if isinstance(x.min(), float):
        return total
    return isinstance(total, float)


def test_the_message_names_an_item_or_the_expression():
    with pytest.raises(errors.TracedTypeError, match=r"'d\['k'\]' is a staged value"):
        ag.function(type_of_a_dict_item)(np.arange(3.0))
    with pytest.raises(errors.TracedTypeError, match=r"'x\.max\(\) \+ 1' is a staged value"):
        ag.function(type_of_an_expression)(np.arange(3.0))
    with pytest.raises(errors.TracedTypeError, match=r"'x\.min\(\)' is a staged value"):
        ag.function(isinstance_in_a_header)(np.arange(3.0))


def staged_list_type(x):
    items = []
    for v in x:
        items.append(v * 2)
    return type(items) is list, isinstance(items, list)


def test_a_staged_list_is_a_list():
    assert [bool(v) for v in ag.function(staged_list_type)(np.arange(3.0))] == [True, True]


def python_uses_of_type(x, n):
    made = type("Made", (), {"n": n})
    return x + made.n, type(n) is int, isinstance(n, int), repr(n), type(made).__name__


def test_python_values_inside_a_traced_function_are_untouched():
    assert ag.function(python_uses_of_type)(np.ones(2), 3)[1:] == (True, True, "3", "type")


def bad_classinfo(x):
    return isinstance(x, 3)


def test_a_bad_classinfo_raises_pythons_error():
    with pytest.raises(TypeError) as python:
        bad_classinfo(np.ones(2))
    with pytest.raises(TypeError) as staged:
        ag.function(bad_classinfo)(np.ones(2))
    assert str(staged.value) == str(python.value)
    assert type(staged.value) is TypeError


# --- repr() ---------------------------------------------------------------------------

def repr_of_a_tensor(x):
    y = x + 1
    return repr(y)


def repr_of_a_list_of_tensors(x):
    pair = [x, x + 1]
    print(repr(pair))
    return x


def test_repr_of_a_staged_value_is_refused():
    with pytest.raises(errors.TensorTextError, match=(
            rf"repr\(\) of staged value 'y' at {LINE}: .*Use print\(\.\.\.\)")) as info:
        ag.function(repr_of_a_tensor)(np.ones(2))
    assert _line_of(repr_of_a_tensor, "return repr(y)") in str(info.value)
    # (printed, repr() is the print's own `{!r}`: the container is refused there)
    with pytest.raises(errors.TensorTextError, match=r"print\(\) of pair at .*, a list, "
                       "tuple, dict or set holding a staged value"):
        ag.function(repr_of_a_list_of_tensors)(np.ones(2))


def bang_r(x):
    return f"{x!r}"


def percent_r(x):
    return "%r" % (x,)


def text_of_a_list(x):
    # (str([x]) is the runtime's str_ and `%` of a literal its percent_text, which
    # refuse it before C asks)
    return "{}".format([x])


@pytest.mark.parametrize("fn", [bang_r, percent_r, text_of_a_list])
def test_repr_reached_from_c_is_refused_too(fn):
    # (Python calls Tensor.__repr__ itself here: graph/tensor.py refuses it
    # when the user's frame asked, as it does for __str__)
    # (`'%r' % (x,)` is refused before Python formats it: percent_text)
    with pytest.raises(errors.TensorTextError,
                       match=rf"(repr\(\) .*|%-formatting) of graph tensor 'x' at {LINE}"):
        ag.function(fn)(np.ones(2))


def bool_of_a_reduction(m):
    flags = []
    for row in m:
        flags.append(bool((row > 1).any()))
    return flags


def test_bool_of_a_staged_value_is_one_catalog_error_for_every_backend():
    """(In each backend's words: Backend.value_noun, array_module.)"""
    message = r"bool\(\) of {} '\(row > 1\)\.any\(\)' at {}: .* {}\.any"
    with pytest.raises(errors.TensorUsageError, match=message.format("graph tensor", LINE, "np")):
        ag.function(bool_of_a_reduction)(np.ones((2, 2)))
    jax = pytest.importorskip("jax")
    with pytest.raises(errors.TensorUsageError,  # (was JAX's own error)
                       match=message.format("JAX traced value", LINE, "jnp")):
        jax.jit(ag.to_graph(bool_of_a_reduction))(np.ones((2, 2)))


# --- plain Python stays exact ------------------------------------------------------------

_VALUES = [3, 2.5, True, None, "s", [1], (1,), {"a": 1}, np.float32(1), np.int64(2),
           np.array(3.0), np.arange(2), range(3), int, ValueError("x")]
_CLASSINFOS = [int, float, bool, object, np.ndarray, np.generic, np.floating, (int, str),
               type, Exception, list]


def test_plain_values_get_the_builtins_answers():
    with registry.staging("test: the converted body on plain values"):
        for value in _VALUES:
            assert ag_builtins.type_(value) is builtins.type(value)
            assert ag_builtins.repr_(value) == builtins.repr(value)
            try:
                truth = builtins.bool(value)
            except ValueError as e:  # (np.arange(2): numpy's own error, the same)
                with pytest.raises(ValueError, match=re.escape(str(e))):
                    ag_builtins.bool_(value)
            else:
                assert ag_builtins.bool_(value) is truth
            for classinfo in _CLASSINFOS:
                assert ag_builtins.isinstance_(value, classinfo) is builtins.isinstance(
                    value, classinfo)
        assert ag_builtins.type_("N", (), {}).__name__ == "N"
        for operator, builtin, args, kwargs in (
                (ag_builtins.repr_, builtins.repr, (), {}),
                (ag_builtins.type_, builtins.type, (1, 2), {}),
                (ag_builtins.isinstance_, builtins.isinstance, (1,), {}),
                (ag_builtins.isinstance_, builtins.isinstance, (1,), {"classinfo": int})):
            with pytest.raises(TypeError) as python:
                builtin(*args, **kwargs)
            with pytest.raises(TypeError) as ours:
                operator(*args, **kwargs)
            assert str(ours.value) == str(python.value)


def test_plain_calls_run_the_original_code():
    f = ag.to_graph(types_of_arguments_and_arrays)
    args = (np.arange(3.0), np.float32(1.5), np.array(2.0))
    assert f(*args) == types_of_arguments_and_arrays(*args)
    assert "ag__.type_(x)" in ag.to_code(types_of_arguments_and_arrays)


# --- in-place changes of container arguments ------------------------------------------------

def appends(values, x):
    values.append(x)
    return x


def extends(values, x):
    values.extend([x])
    return x


def inserts(values, x):
    values.insert(0, x)
    return x


def pops(values, x):
    values.pop()
    return x


def clears(values, x):
    values.clear()
    return x


def sorts(values, x):
    values.sort()
    return x


def item_assigned(values, x):
    values[0] = x
    return x


def item_deleted(values, x):
    del values[0]
    return x


def adds_in_place(values, x):
    values += [x]
    return x


def updates(table, x):
    table.update(b=x)
    return x


def sets_a_key(table, x):
    table["b"] = x
    return x


def nested_list(table, x):
    table["a"].append(x)
    return x


def adds_to_a_set(values, x):
    values.add(3)
    return x


def ors_into_a_set(values, x):
    values |= {3}
    return x


_CHANGES = [
    (appends, [2, 1], "values", "`.append(...)`", "values.append(x)"),
    (extends, [2, 1], "values", "`.extend(...)`", "values.extend([x])"),
    (inserts, [2, 1], "values", "`.insert(...)`", "values.insert(0, x)"),
    (pops, [2, 1], "values", "`.pop(...)`", "values.pop()"),
    (clears, [2, 1], "values", "`.clear(...)`", "values.clear()"),
    (sorts, [2, 1], "values", "`.sort(...)`", "values.sort()"),
    (item_assigned, [2, 1], "values", "an item assignment, `del` or an in-place operator", None),
    (item_deleted, [2, 1], "values", "an item assignment, `del` or an in-place operator", None),
    (adds_in_place, [2, 1], "values", "an item assignment, `del` or an in-place operator", None),
    (updates, {"a": [1]}, "table", "`.update(...)`", "table.update(b=x)"),
    (sets_a_key, {"a": [1]}, "table", "an item assignment, `del` or an in-place operator", None),
    (nested_list, {"a": [1]}, "table['a']", "`.append(...)`", 'table["a"].append(x)'),
    # (a set is passed as it is, not copied: the refused change must not stay)
    (adds_to_a_set, {1}, "values", "`.add(...)`", "values.add(3)"),
    (ors_into_a_set, {1}, "values", "an item assignment, `del` or an in-place operator", None),
]


@pytest.mark.parametrize("fn, container, path, how, marker", _CHANGES,
                         ids=[c[0].__name__ for c in _CHANGES])
def test_changing_a_container_argument_is_refused(fn, container, path, how, marker):
    import copy
    given = copy.deepcopy(container)
    with pytest.raises(errors.ArgumentChangeError) as info:
        ag.function(fn)(given, np.float64(1.0))
    message = str(info.value)
    assert f"`{path}`, a Python container passed as an argument to the ag.function " \
           f"'{fn.__name__}'" in message
    assert f"is changed in place by {how}" in message
    assert "Change a copy and return it instead" in message
    if marker is not None:
        assert f"{how} at {_line_of(fn, marker)}" in message
    assert given == container  # the caller's container is as it was
    assert fn(copy.deepcopy(container), 1.0) == 1.0  # (plain Python runs it, of course)


def pops_an_empty_argument(values):
    return values.pop()


def changes_then_raises(values):
    values["k"] = 1
    raise ValueError("after the change")


def copies_first(values, x):
    values = list(values)
    values.append(x)
    return values


def appends_in_a_staged_loop(x, out):
    for v in x:
        out.append(v)
    return out


def test_pythons_own_error_comes_first_and_a_copy_is_fine():
    with pytest.raises(IndexError, match="pop from empty list"):
        ag.function(pops_an_empty_argument)([])
    with pytest.raises(errors.ArgumentChangeError, match="`values`") as info:
        ag.function(changes_then_raises)({})
    assert type(info.value.__cause__) is ValueError
    given = [1.0]
    f = ag.function(copies_first)
    for x in (2.0, 3.0):
        assert [float(v) for v in f(given, np.float64(x))] == [1.0, x]
    assert given == [1.0]


def test_a_staged_loop_appending_to_an_argument_list_is_refused():
    out = []
    with pytest.raises(errors.StagingError, match=(
            r"`out` and `the caller's out` \(an argument of the ag.function "
            r"'appends_in_a_staged_loop' at ")):
        ag.function(appends_in_a_staged_loop)(np.arange(3.0), out)
    assert out == []


def test_eager_mode_changes_the_callers_container():
    values = [2, 1]
    ag.run_functions_eagerly(True)
    try:
        ag.function(appends)(values, 3)
    finally:
        ag.run_functions_eagerly(False)
    assert values == [2, 1, 3]


# --- the JAX backend ----------------------------------------------------------------------

def jax_types(x):
    y = x * 2
    return (type(y) is type(jax_array()), isinstance(y, np.ndarray),
            isinstance(x, ag_jax().Array), isinstance(y, str))


def jax_array():
    import jax.numpy as jnp
    return jnp.ones(2)


def ag_jax():
    import jax
    return jax


def test_jax_type_and_isinstance_answer_for_jax_arrays():
    jax = pytest.importorskip("jax")
    got = jax.jit(ag.to_graph(jax_types))(np.arange(3.0))
    assert [bool(v) for v in got] == [True, False, True, False]
    with pytest.raises(errors.TracedTypeError, match=rf"type\(\) at {LINE}: 'total'"):
        jax.jit(ag.to_graph(type_of_a_sum))(np.arange(3.0))
    with pytest.raises(errors.TensorTextError, match=r"repr\(\) of staged value 'y'"):
        jax.jit(ag.to_graph(repr_of_a_tensor))(np.ones(2))


def test_jax_jit_changes_list_arguments_as_python_does():
    jax = pytest.importorskip("jax")
    values = [1.0]

    def traced(x):
        return ag.to_graph(appends)(values, x)

    jax.jit(traced)(np.float64(2.0))
    assert len(values) == 2  # a Python value the traced function closes over: really changed


# --- found in review: print of a container, argument methods that change nothing ---


def print_a_list_holding(x):
    y = x * 2.0
    print([y, 1])
    return y


def test_print_of_a_container_holding_a_staged_value_is_refused():
    print_a_list_holding(np.float64(1.0))  # plain: prints the list
    with pytest.raises(errors.TensorTextError, match=r"print\(\) of \[y, 1\] at .*py:\d+"):
        ag.function(print_a_list_holding)(np.float64(1.0))


def argument_methods_that_change_nothing(d, xs, x):
    d.setdefault("k", 5.0)  # present: no change
    xs.extend([])
    xs.sort()  # already sorted
    return x + d["k"] + len(xs)


def argument_method_that_changes(d, x):
    d.setdefault("new", 1.0)
    return x


def test_argument_methods_that_change_nothing_run():
    d, xs = {"k": 2.0}, [1, 2]
    expected = argument_methods_that_change_nothing(d, xs, np.float64(3.0))
    got = ag.function(argument_methods_that_change_nothing)(dict(d), list(xs), np.float64(3.0))
    assert got == expected == 7.0
    with pytest.raises(errors.ArgumentChangeError, match=r"d"):
        ag.function(argument_method_that_changes)({"k": 2.0}, np.float64(3.0))


def test_argument_watches_belong_to_their_thread():
    """A trace on another thread that ends while this one runs must not end
    this trace's watch of its container arguments."""
    started, release = threading.Event(), threading.Event()

    @ag.do_not_convert
    def block():
        started.set()
        release.wait(5)

    def slow(ys, x):
        block()
        return x + len(ys)

    other = threading.Thread(target=lambda: ag.function(slow)([0], np.float64(1.0)))

    @ag.do_not_convert
    def finish_other():
        release.set()
        other.join(5)

    def changes(xs, x):
        finish_other()
        xs.append(1.0)
        return x

    other.start()
    started.wait(5)
    # (refused at the call, naming it; a lost watch would see it only as the trace ends)
    with pytest.raises(errors.ArgumentChangeError, match=r"xs.*\.append\(\.\.\.\)"):
        ag.function(changes)([0.0], np.float64(1.0))
