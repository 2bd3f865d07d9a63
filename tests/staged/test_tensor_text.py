"""Formatting a graph tensor as text while tracing (issue 8): Python gives the
number's text, the trace only has a description of the tensor, so str(),
f-strings, format(), `%` and str.format in user code are refused at trace
time, naming the tensor, the line and the fix (print() is staged).  So is
repr() in user code (runtime/builtins.py's repr_); autograph's own messages
still describe the tensor."""

import re

import numpy as np
import pytest

import autograph as ag

LINE = r"\S*test_tensor_text\.py:\d+"


def f_string(x):
    return f"{x}"


def str_call(x):
    return str(x)


def percent(x):
    return "%s" % x


def str_format(x):
    return "{}".format(x)


def format_spec(x):
    return format(x, ".2f")


def f_string_spec(x):
    return f"{x:.3f}"


@pytest.mark.parametrize("fn,what", [
    (f_string, r"f-string or format\(\)"), (percent, r"%-formatting"),
    (str_format, r"f-string or format\(\)"), (format_spec, r"format\(\)"),
    (f_string_spec, r"format\(\)")])
def test_text_of_a_tensor_is_refused(fn, what):
    with pytest.raises(ag.errors.TensorTextError, match=(
            rf"{what} of graph tensor 'x' at {LINE}: .*Print it where it is made \(print\(x\)")):
        ag.function(fn)(np.float64(3.0))


def test_str_of_a_tensor_is_refused_by_the_runtimes_str_for_every_backend():
    line = str_call.__code__.co_firstlineno + 1
    with pytest.raises(ag.errors.TensorTextError, match=re.escape(
            ag.errors.traced_repr_message("x", f"{__file__}:{line}", "str"))):
        ag.function(str_call)(np.float64(3.0))


def f_string_of_a_result(x):
    doubled = x * 2
    return f"{doubled}"


def test_the_refusal_names_the_users_variable():
    with pytest.raises(ag.errors.TensorTextError, match=(
            rf"f-string or format\(\) of graph tensor 'doubled' at {LINE}")):
        ag.function(f_string_of_a_result)(np.float64(3.0))


def test_plain_python_formats_the_number():
    assert f_string(np.float64(3.0)) == "3.0"
    assert format_spec(np.float64(3.0)) == "3.00"


def printed(x):
    print(x * 2)
    return x


def test_print_is_staged(capsys):
    ag.function(printed)(np.float64(3.0))
    assert capsys.readouterr().out.strip() == "6.0"


def python_text_of_a_constant(x):
    label = f"{2.0:.1f}"
    return x, label


def test_text_of_python_values_still_works():
    x, label = ag.function(python_text_of_a_constant)(np.float64(1.0))
    assert label == "2.0"


def describe(x):
    return repr(x)


def test_repr_in_user_code_is_refused_like_str():
    # (tests/staged/test_traced_builtins.py covers repr() further)
    with pytest.raises(ag.errors.TensorTextError, match=r"repr\(\) of staged value 'x' at "):
        ag.function(describe)(np.ones(2))


def test_autograph_messages_still_name_tensors():
    def branch_on(x):
        return bool(x)
    with pytest.raises(ag.errors.TensorUsageError, match=r"bool\(\) of graph tensor 'x'"):
        ag.function(branch_on, autograph=False)(np.ones(2))
