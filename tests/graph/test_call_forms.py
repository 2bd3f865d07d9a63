"""Calls of an `ag.function` and the API edges around it (issue 8, item 8)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def test_keyword_and_positional_forms_share_one_trace():
    @ag.function
    def scaled(x, n=1, *, scale=2.0):
        return x * n * scale

    x = np.ones(2)
    for r in (scaled(x, n=1), scaled(x, 1), scaled(n=1, x=x)):
        np.testing.assert_array_equal(r, [2.0, 2.0])
    assert scaled.experimental_get_tracing_count() == 1
    for r in (scaled(x, 1, scale=3.0), scaled(x, n=1, scale=3.0), scaled(scale=3.0, n=1, x=x)):
        np.testing.assert_array_equal(r, [3.0, 3.0])
    assert scaled.experimental_get_tracing_count() == 2
    np.testing.assert_array_equal(scaled(x, n=3), [6.0, 6.0])
    np.testing.assert_array_equal(scaled(x), [2.0, 2.0])  # the default, not the n=3 graph
    np.testing.assert_array_equal(scaled(x, n=1), [2.0, 2.0])


def test_a_saved_graph_takes_the_same_call_forms(tmp_path):
    @ag.function
    def scaled(x, n=1, *, scale=2.0):
        return x * n * scale

    x = np.ones(2)
    scaled(x, n=3, scale=1.0)
    scaled.save(str(tmp_path / "scaled"))
    loaded = ag.load(str(tmp_path / "scaled"))
    for r in (loaded(x, 3, scale=1.0), loaded(x, n=3, scale=1.0), loaded(n=3, scale=1.0, x=x)):
        np.testing.assert_array_equal(r, [3.0, 3.0])
    with pytest.raises(errors.SavedSignatureError):
        loaded(x, n=4, scale=1.0)


def test_arrays_by_keyword_share_the_positional_trace():
    @ag.function
    def diff(x, y):
        return x - y

    x = np.ones(2)
    for result in (diff(x, y=3 * x), diff(y=3 * x, x=x), diff(x, 3 * x)):
        np.testing.assert_array_equal(result, [-2.0, -2.0])
    assert diff.experimental_get_tracing_count() == 1


def test_printed_signatures_show_keyword_arguments():
    @ag.function
    def scaled(x, pair, n=1, *, scale=2.0):
        return x * n * scale + pair[0]

    scaled(np.ones(2), (np.ones(2), np.ones(3)), n=2, scale=3.0)
    text = scaled.pretty_printed_concrete_signatures()
    assert text == "scaled(x: float64[2], pair: nested structure, n=2, scale=3.0) " \
                   "-> (float64[2])", text


def test_a_wrong_call_raises_pythons_error():
    @ag.function
    def f(x, n=1):
        return x * n

    with pytest.raises(TypeError, match="unexpected keyword argument 'm'"):
        f(np.ones(2), m=2)


def test_stack_gives_the_same_type_eagerly_as_in_the_graph():
    def stacked(x):
        return ag.stack([x, 2 * x])

    staged = ag.function(stacked)(np.ones(2))
    ag.run_functions_eagerly(True)
    try:
        eager = ag.function(stacked)(np.ones(2))
    finally:
        ag.run_functions_eagerly(False)
    assert type(staged) is type(eager) is np.ndarray
    np.testing.assert_array_equal(staged, eager)
    assert ag.stack([1, 2]) == [1, 2]  # Python numbers: the list as it is


def test_convert_without_parentheses():
    @ag.convert
    def plus_one(x):
        if x > 0:
            return x + 1
        return x

    assert plus_one(1) == 2 and plus_one(-1) == -1
    assert "ag__" in ag.to_code(plus_one)


def _doubled(x):
    if x > 0:
        x = 2 * x
    return x


def test_to_code_and_to_graph_of_an_ag_function_convert_its_python_function():
    staged = ag.function(_doubled)
    code = ag.to_code(staged)
    assert code.startswith("def _doubled(x):") and "ag__.if_stmt" in code
    converted = ag.to_graph(staged)
    assert converted(3) == 6 and converted(-1) == -1

    class Model:
        @ag.function
        def call(self, x):
            return _doubled(x)

    assert ag.to_code(Model().call).startswith("def call(self, x):")
    assert ag.to_graph(Model().call)(2) == 4


def test_show_command_on_an_ag_function(tmp_path):
    module = tmp_path / "staged_module.py"
    module.write_text(textwrap.dedent("""
        import autograph as ag

        @ag.function
        def double(x):
            if x > 0:
                x = 2 * x
            return x
    """))
    out = subprocess.run([sys.executable, "-m", "autograph", "show", f"{module}:double"],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("def double(x):") and "ag__.if_stmt" in out


def test_growing_a_non_empty_list_in_a_staged_loop_names_its_real_length():
    # (a list of numbers is staged pre-filled: tests/staged/test_prefilled_lists.py)
    @ag.function
    def grow(n):
        items = ["start"]
        i = 0
        while i < n:
            items.append(n)
            i += 1
        return items

    with pytest.raises(errors.StagingError) as info:
        grow(np.float64(3.0))
    message = str(info.value)
    assert "'items' is a Python list of length 1" in message
    assert "to length 2" in message and "items = []" in message
