"""print() of an f-string of staged values formats it with the run-time values,
every time the print runs, exactly as Python formats the eager values
(converters/formatted_strings.py, runtime builtins.format_string); any other
f-string of a staged value is refused where it is made: its text only exists
at run time."""

import contextlib
import io
import json
import logging
import sys

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def printed(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(*args)
    return out.getvalue()


def train(w, x, steps):
    for step in range(steps):
        loss = np.sum((x * w - 1.0) ** 2)
        w = w - 0.1 * x * (x * w - 1.0)
        if step % 2 == 0:
            print(f"step {step}: loss {loss:.4f}")
    return w


def test_training_loop_logs_as_python_does():
    x, w = np.ones(3), np.zeros(3)
    expected = printed(train, w, x, 4)
    assert expected == "step 0: loss 3.0000\nstep 2: loss 1.9683\n"
    staged = ag.function(train)
    assert printed(staged, w, x, np.int64(4)) == expected  # a staged loop and `if`
    assert printed(staged, w, x, np.int64(4)) == expected  # (every call, not once)
    assert printed(staged, w, x, 4) == expected  # a Python loop: unrolled
    assert printed(staged, w, x, np.int64(6)) == printed(train, w, x, 6)


def specs(x, n):
    for i in range(n):
        y = x * i
        s = y.sum()
        print(f"{i!r} {i:>4} {i:,} {s:.4f} {s:>10} {s:e} {s:.1%} {s!r} {y!r} {y} {y.dtype}",
              f"{s * 1000:,.2f}|{i:{n}}|{s:{n}.{i}f}|{y[0]!r:>{12}}|{{lit}} {{{i}}}", i, y,
              sep=" ; ", end="!\n")
        print(f"{s=} {i = } {'{0}'}", "}{", y, f"{x.shape}")


def test_format_specs_conversions_and_nested_fields_as_python():
    x = np.array([0.5, 1.25, 2.0])
    expected = printed(specs, x, 3)
    assert "0 " in expected and "np.float64(" in expected and "array([" in expected
    assert printed(ag.function(specs), x, np.int64(3)) == expected
    x32 = x.astype(np.float32)
    assert printed(ag.function(specs), x32, np.int64(3)) == printed(specs, x32, 3)


def python_numbers(n):
    total = 0
    half = 0.5
    for i in range(n):
        total = total + i
        half = half * 2
        print(f"{i!r} {total!r} {half!r} {i * 1.5!r} {i > 1!r}")
    return total


def test_values_that_are_python_numbers_in_python_format_as_them():
    expected = printed(python_numbers, 4)
    assert expected.splitlines()[2] == "2 3 4.0 3.0 True"
    assert printed(ag.function(python_numbers), np.int64(4)) == expected


def retyped(x, n):
    total = 0
    for i in range(n):
        print(f"{total!r} {i!r}")
        total = total + x[i]
    print(f"{total!r} {total:.3f}")
    return total


def test_a_loop_variable_that_becomes_a_numpy_value_formats_as_one():
    # Python's `total` is the int 0 in the first iteration only; the staged
    # loop carries one type, the numpy float it becomes (plain print shows
    # the same first line differently too: '0' and '0.0')
    x = np.array([0.5, 1.25, 2.0])
    expected = printed(retyped, x, 3).splitlines()
    got = printed(ag.function(retyped), x, np.int64(3)).splitlines()
    assert got[1:] == expected[1:] and expected[1] == "np.float64(0.5) 1"
    assert got[0] == "np.float64(0.0) 0"


def branches(x, n):
    i = 0
    while i < n:
        if x[i] > 1:
            print(f"{i}: big {x[i]:.2f}")
        else:
            print(f"{i}: small {x[i]!r}")
        for j in range(i):
            if j % 2 == 1:
                print(f"  {j} of {i}")
        i += 1
    return i


def test_prints_in_staged_branches_and_loops_run_as_often_as_python_s():
    x = np.array([0.5, 2.0, 3.0, 0.25, 7.0])
    expected = printed(branches, x, 5)
    assert expected.count("\n") == 5 + 4
    assert printed(ag.function(branches), x, np.int64(5)) == expected


def plain(a, b):
    text = f"{a:>6.2f} {b!r} {{}}"
    print(text, f"{text!r}")
    return text + "."


def test_plain_python_mode_is_unchanged():
    converted = ag.to_graph(plain)
    assert printed(converted, 3.14159, "s") == printed(plain, 3.14159, "s")
    assert converted(1, [2]) == plain(1, [2]) == "  1.00 [2] {}."
    # traced with Python values only, the texts are Python's strings
    assert printed(ag.function(plain), 2.5, "t") == printed(plain, 2.5, "t")


def test_a_saved_graph_keeps_its_formatted_prints(tmp_path):
    staged = ag.function(python_numbers)
    printed(staged, np.int64(3))
    staged.save(str(tmp_path / "saved"))
    loaded = ag.load(str(tmp_path / "saved"))
    assert printed(loaded, np.int64(3)) == printed(python_numbers, 3)


def _print_nodes(document):
    if isinstance(document, dict):
        if document.get("op") == "print":
            yield document
        document = list(document.values())
    if isinstance(document, list):
        for item in document:
            yield from _print_nodes(item)


@pytest.mark.parametrize("template", ["{0.__class__}", "{[0]}", "{:{0}}", 5, "{!x}", "{"])
def test_a_saved_template_that_the_converter_cannot_write_is_refused(tmp_path, template):
    staged = ag.function(python_numbers)
    printed(staged, np.int64(1))
    staged.save(str(tmp_path / "saved"))
    path = tmp_path / "saved" / "graph.json"
    document = json.loads(path.read_text())
    next(_print_nodes(document))["attrs"]["template"] = template  # (in the loop's body)
    path.write_text(json.dumps(document))
    with pytest.raises(errors.SavedGraphError, match="template"):
        ag.load(str(tmp_path / "saved"))


def returned(x):
    return f"x is {x}"


def assigned_then_printed(x):
    text = f"x is {x:.2f}"
    print(text)


def logged(x):
    logging.getLogger("autograph.tests").warning(f"x is {x}")


def nested(x):
    print(f"{f'{x}':>20}")


def listed(x):
    print([f"{x}"])


def asserted(x):
    assert np.all(x > 0), f"x is {x}"


@pytest.mark.parametrize("fn, made", [
    (returned, 1), (assigned_then_printed, 1), (logged, 1), (nested, 1), (listed, 1),
    (asserted, 1)])
def test_other_f_strings_of_staged_values_are_refused_where_made(fn, made):
    with pytest.raises(errors.TensorTextError) as info:
        ag.function(fn)(np.ones(2))
    line = fn.__code__.co_firstlineno + made
    message = str(info.value)
    assert f"of graph tensor 'x' at {__file__}:{line}: the text of a staged value only " \
        "exists when the graph runs" in message
    # (an assert's message has its own hint: tests/staged/test_unusual_python.py)
    assert ("The message of a staged `assert` is made once" if fn is asserted
            else "with the f-string written inside the print call") in message


def to_file(x):
    print(f"{x}", file=sys.stderr)


def test_print_of_a_staged_text_to_a_file_is_refused_as_every_staged_print():
    with pytest.raises(errors.StagingError, match="file="):
        ag.function(to_file)(np.ones(2))


def test_jax_backend_prints_at_run_time_as_python():
    jax = pytest.importorskip("jax", exc_type=ImportError)
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x, w = jnp.ones(3), jnp.zeros(3)
    expected = printed(train, w, x, 6)  # Python on jax arrays
    assert "step 4: loss" in expected
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jitted = jax.jit(ag.to_graph(train))
        jitted(w, x, np.int64(6))
        jitted(w, x, np.int64(6))  # (compiled once, printed every run)
        jax.effects_barrier()
    assert out.getvalue() == expected * 2
    xs = jnp.array([0.5, 2.0, 3.0, 0.25, 7.0])
    expected = printed(branches, xs, 5) + printed(python_numbers, 4) + printed(specs, xs, 3)
    with contextlib.redirect_stdout(out := io.StringIO()):
        jax.jit(ag.to_graph(branches))(xs, np.int64(5))
        jax.jit(ag.to_graph(python_numbers))(np.int64(4))
        jax.jit(ag.to_graph(specs))(xs, np.int64(3))
        jax.effects_barrier()
    assert out.getvalue() == expected


def pair_in_a_field(x):
    pair = (1, x[0])
    print(f"pair {pair}")


def test_a_field_holding_a_tuple_of_a_staged_value_is_refused_as_print_of_the_tuple():
    # its text is the tuple's repr, made once while tracing: it printed
    # "pair (1, <Tensor 'getitem' ...>)" once and nothing on later calls
    with pytest.raises(errors.TensorTextError) as info:
        ag.function(pair_in_a_field)(np.array([1.5, 2.0]))
    assert str(info.value).startswith(f"print() of pair at {__file__}:")
    assert printed(ag.to_graph(pair_in_a_field), [1.5]) == "pair (1, 1.5)\n"


def reprs(x, y, n):
    print(f"{x!r} {y!r} {x + y!r}")
    for i in range(n):
        print(f"{x!a}", end=";")


@pytest.mark.parametrize("x", [np.array(2.5), np.float64(2.5)], ids=repr)
def test_a_0d_array_argument_formats_as_an_array_a_numpy_scalar_as_a_scalar(x, tmp_path):
    # `{x!r}` of np.array(2.5) is 'array(2.5)'; it printed 'np.float64(2.5)'
    expected = printed(reprs, x, np.int64(3), 2)
    assert expected.startswith(repr(x) + " np.int64(3) ")
    function = ag.function(reprs)
    assert printed(function, x, np.int64(3), np.int64(2)) == expected
    assert printed(function, x, np.int64(3), np.int64(2)) == expected  # (the graph, run again)
    function.save(str(tmp_path / "saved"))
    assert printed(ag.load(str(tmp_path / "saved")), x, np.int64(3), np.int64(2)) == expected


def python_values_with_a_staged_width(x):
    width = 0
    for v in x:
        width = width + 3  # a staged Python int
    print(f"{(1, 2)!s:>{width}}|{'ab'!r:>{width}}|{1.5!r:<{width}}|")


def test_a_python_value_converted_in_a_field_with_a_staged_spec_is_its_python_text():
    # `{(1, 2)!s:>{width}}` printed '    [1 2]' (the tuple held by the graph as an array)
    expected = printed(python_values_with_a_staged_width, np.ones(3))
    assert expected == "   (1, 2)|     'ab'|1.5      |\n"
    assert printed(ag.function(python_values_with_a_staged_width), np.ones(3)) == expected


def built_in_a_loop(x, n):
    items = []
    for i in range(n):
        items.append(x[i])
        print(f"{items!r:>40}|", items)
    print(items)


def test_a_staged_list_prints_as_the_python_list_it_is(tmp_path):
    # it printed its run-time linked cells: ((None, np.float64(1.5), 1), np.float64(2.0), 2)
    x = np.array([1.5, 2.0, 3.0])
    expected = printed(built_in_a_loop, x, 2)
    assert expected.endswith("\n[np.float64(1.5), np.float64(2.0)]\n")
    function = ag.function(built_in_a_loop)
    assert printed(function, x, np.int64(2)) == expected
    assert printed(function, x, np.int64(2)) == expected
    assert printed(function, x, np.int64(0)) == printed(built_in_a_loop, x, 0) == "[]\n"
    function.save(str(tmp_path / "saved"))
    assert printed(ag.load(str(tmp_path / "saved")), x, np.int64(2)) == expected


def format_method(x, n):
    for i in range(n):
        print("step {}: {!r:>16} {{lit}} {:>{}.2f}".format(i, x[i], x[i], 8), "{}".format("s"))
    print("{} and {:.3e}".format(x[0], n, "an extra value Python ignores"))  # noqa: F523


@pytest.mark.parametrize("x", [np.array([1.5, -2.25, np.nan]), np.array([3, -7, 0])],
                         ids=["float64", "int64"])
def test_printed_str_format_of_a_literal_template_is_pythons_text(x):
    """`print('{}: {:.3f}'.format(i, loss))` was refused ("f-string or format()
    of graph tensor 'the value in `"{} and {:.3e}"`'"): it is an f-string's
    template and values (converters/formatted_strings.py)."""
    expected = printed(format_method, x, np.int64(3))
    assert printed(ag.function(format_method), x, np.int64(3)) == expected


def numbered_fields(x, n):
    t = x.sum()
    print("{0:.1f}".format(t), "{1} {0} {1!r}".format(t, n), "{0:.{1}f}".format(t, 2))
    print("loss={loss:.3f} step {0} {0:>{1}}".format(x[0], 6, loss=t), "{w:{p}} {{}}".format(w=t, p="8.2e"))


@pytest.mark.parametrize("x", [np.array([1.5, -2.25, 0.5]), np.array([3, -7, 0])],
                         ids=["float64", "int64"])
def test_printed_str_format_by_position_or_keyword_is_pythons_text(x):
    """`print('{0:.1f}'.format(t))` and `print('{loss:.3f}'.format(loss=t))`
    were refused ("f-string or format() of graph tensor 'the value in
    `"{0} {1}"`'", naming the template, not the value): their fields are
    the values at those positions and keywords."""
    n = np.int64(3)
    function = ag.function(numbered_fields)
    assert printed(function, x, n) == printed(numbered_fields, x, n)
    assert printed(function, x * 2, n) == printed(numbered_fields, x * 2, n)


def concatenated(x, n):
    for i in range(n):
        print("step " + str(i) + ": " + str(x[i]) + " r=" + repr(x[i]) + f" {x[i]:.1f}" + "{}")
    print(str(x[0]), repr(n), "x=" + str(x))


@pytest.mark.parametrize("x", [np.array([1.5, -2.25, np.nan]), np.array([3, -7, 0])],
                         ids=["float64", "int64"])
def test_printed_sum_of_texts_is_pythons_text(x):
    """`print('loss ' + str(loss))` was refused ("str() of graph tensor"): a
    `+` of literals, str(), repr() and f-strings is one format_string."""
    expected = printed(concatenated, x, np.int64(3))
    assert printed(ag.function(concatenated), x, np.int64(3)) == expected


def shadowed_str(x):
    str = "{}".format  # noqa: A001 - not the builtin: left alone
    print("v" + str(x[0]))


def test_a_str_that_is_not_the_builtin_is_left_alone():
    with pytest.raises(errors.TensorTextError):
        ag.function(shadowed_str)(np.array([1.0]))
