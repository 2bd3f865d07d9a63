"""Messages for staged values used where Python needs a concrete value say
what is wrong and the fix for the user's situation, and errors raised while
tracing show the user's frames (issue 8, item 9)."""

import os
import statistics
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import autograph as ag
from autograph import errors

CONVERT_HINT = "Let autograph convert the function"


def _message(fn, *args, autograph=True):
    with pytest.raises(errors.TensorUsageError) as info:
        ag.function(fn, autograph=autograph)(*args)
    return str(info.value)


def int_of(x):
    return int(x) + 1


def float_of(x):
    return float(x * 2)


def item_of(x):
    return x.item()


# (float() of a 0-d value and int() of a 0-d integer are staged Python numbers:
# tests/staged/test_float_int_builtins.py, and so is .item() of a one-element
# array; of a bigger array, refused)
@pytest.mark.parametrize("fn, what, fix", [(int_of, "int()", "x.astype(np.int64)"),
                                           (float_of, "float()", "x.astype(np.float64)"),
                                           (item_of, ".item()", "x (a 0-d tensor)")])
def test_number_of_a_staged_value_in_converted_code(fn, what, fix):
    message = _message(fn, np.ones(1) if fn is float_of else np.ones(2) if fn is item_of
                       else np.float64(1.0))
    assert message.startswith(f"{what} of graph tensor")
    assert "The function is converted" in message and fix in message
    assert CONVERT_HINT not in message  # it was converted


def test_unconverted_function_is_told_to_convert():
    message = _message(int_of, np.float64(1.0), autograph=False)
    assert CONVERT_HINT in message


def comprehension(x):
    return np.stack([v * 2 for v in x])


def comprehension_test(x):
    return [1 for _ in range(3) if x > 0]


@pytest.mark.parametrize("fn", [comprehension, comprehension_test])
def test_comprehension_over_or_testing_a_staged_array(fn):
    message = _message(fn, np.arange(3.0) if fn is comprehension else np.float64(1.0))
    assert "Comprehensions are not converted" in message and "`for` loop" in message
    assert CONVERT_HINT not in message


def test_match_on_a_staged_value(tmp_path):
    # (a file of its own: `match` is a syntax error before Python 3.10's parser)
    module = tmp_path / "matching.py"
    module.write_text(textwrap.dedent("""
        def classify(x):
            match x:
                case 0:
                    return 10
                case _:
                    return 20
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        import matching
        message = _message(matching.classify, np.int64(0))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("matching", None)
    assert "`match` statement on a staged value cannot be staged" in message
    assert "`if`/`elif`" in message


def library_call(x):
    return statistics.mean(x)


def test_call_into_library_code_names_config_include():
    message = _message(library_call, np.arange(3.0))
    assert "It happened in statistics." in message and "library code" in message
    assert "autograph.config.include('statistics')" in message


def unpacking(x):
    a, b = x
    return a + b


def test_unpacking_a_staged_array_in_converted_code():
    message = _message(unpacking, np.arange(2.0))
    assert message.startswith("iter() of graph tensor")
    assert "Index it (x[0], x[1])" in message and CONVERT_HINT not in message


# -- tracebacks ----------------------------------------------------------------

def _inner_user_function(x):
    return int(x)


def _outer_user_function(x):
    y = x + 1
    for _ in range(2):
        y = y * 2
    return _inner_user_function(y)


def _frames(exc):
    return [(os.path.basename(f.filename), f.name) for f in traceback.extract_tb(exc.__traceback__)]


def test_errors_raised_while_tracing_show_the_users_frames():
    f = ag.function(_outer_user_function)
    with pytest.raises(errors.TensorUsageError) as info:
        f(np.float64(1.0))
    frames = _frames(info.value)
    here = os.path.basename(__file__)
    users = [name for file, name in frames if file == here]
    assert users[-2:] == ["_outer_user_function", "_inner_user_function"], frames
    internal = [(file, name) for file, name in frames if file != here]
    assert internal == [("function.py", "__call__")], frames  # the one re-raising frame
    assert any("AUTOGRAPH_TRACEBACK_FILTERING=off" in n for n in info.value.__notes__)


class _Model:
    def __init__(self):
        self.w = np.zeros(3)

    def step(self, x):
        self.w = self.w + x  # a tensor left in self.w: refused when the trace ends
        return self.w


def test_error_raised_when_the_trace_ends_shows_no_internal_frames():
    """A catalog error raised after the user's code ran (no user frame below
    the call) keeps only the re-raising frame; the message names the line."""
    with pytest.raises(errors.TraceLeakError) as info:
        ag.function(_Model().step)(np.ones(3))
    here = os.path.basename(__file__)
    assert [f for f in _frames(info.value) if f[0] != here] == [("function.py", "__call__")]
    assert f"{here}:" in str(info.value)
    assert any("AUTOGRAPH_TRACEBACK_FILTERING=off" in n for n in info.value.__notes__)


def test_internal_bug_outside_user_code_keeps_its_frames():
    """An exception that is not a catalog error raised with no user frame in
    its traceback is an internal bug: its frames are left for the report."""
    def internal():
        raise RuntimeError("bug")
    try:
        internal()
    except RuntimeError as e:
        before = _frames(e)
        assert _frames(errors.without_internal_frames(e)) == before


def test_get_concrete_function_filters_too():
    with pytest.raises(errors.TensorUsageError) as info:
        ag.function(_outer_user_function).get_concrete_function(np.float64(1.0))
    assert [n for f, n in _frames(info.value) if f != os.path.basename(__file__)] == [
        "get_concrete_function"]


def test_filtering_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_TRACEBACK_FILTERING", "off")
    with pytest.raises(errors.TensorUsageError) as info:
        ag.function(_outer_user_function)(np.float64(1.0))
    files = {file for file, _ in _frames(info.value)}
    assert {"concrete.py", "tensor.py"} <= files
    assert not getattr(info.value, "__notes__", None)


def test_filtered_traceback_printed_by_python(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import autograph as ag

        @ag.function
        def step(x):
            if x[0] > 0:
                x = x * 2
            return float(x)

        step(np.ones(1))
    """))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    err = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env).stderr
    lines = [line for line in err.splitlines() if line.startswith('  File "')]
    assert len(lines) == 3, err  # <module>, the re-raise in ag.function, step
    assert "user_script.py" in lines[0] and "user_script.py" in lines[2]
    assert "float() of graph tensor" in err and "TRACEBACK_FILTERING=off" in err
