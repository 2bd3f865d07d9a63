"""Variables the user named `ag__` or `fscope`: converted code closes over
cells of those names (the runtime module and the function's scope). Where
the user's function has variables so named, the cells take other names and
the user's variables keep theirs -- in plain calls, staged, and in what
`locals()`, `to_code` and error messages show."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def helper(x):
    return x + 1.0


def parameter_fscope(x, fscope):
    y = helper(x)
    if x.sum() > 0:
        y = y * fscope
    else:
        y = y - fscope
    return y


def local_ag(x):
    ag__ = 2.0
    n = x.sum()
    while n < 10.0:
        n = n + ag__
        ag__ = ag__ + 1.0
    return helper(n) * ag__


def loop_variable_ag(x):
    total = x * 0.0
    for ag__ in range(3):
        if x.sum() > ag__:
            total = total + helper(x) * ag__
    return total


fscope = 3.0  # a global of the name, read by the function below


def global_fscope(x):
    if x.sum() > 0:
        return helper(x) * fscope
    return x


def make_closure():
    fscope = 5.0

    def closes_over_fscope(x):
        if x.sum() > 0:
            x = helper(x) * fscope
        return x
    return closes_over_fscope


closes_over_fscope = make_closure()


def make_straight_line_closure():
    fscope, ag__ = 5.0, 2.0

    def straight_line(x):  # (call_only's kind of function: no pass pipeline)
        y = helper(x) * fscope
        return y + ag__
    return straight_line


straight_line = make_straight_line_closure()


def nested_def_named_fscope(x):
    def fscope(v):
        return helper(v) * 2.0
    ag__ = fscope(x)
    if ag__.sum() > 0:
        ag__ = fscope(ag__)
    return ag__


def imported_as_ag(x):
    import numpy as ag__
    if x.sum() > 0:
        x = ag__.sin(helper(x))
    return x


scaled = lambda x, fscope: helper(x) * fscope  # noqa: E731


class Model:
    def __init__(self):
        self.__w = 2.0

    def forward(self, x):
        ag__ = self.__w
        if x.sum() > 0:
            x = helper(x) * ag__
        return x


def match_capture(x):
    match x.shape:
        case (fscope,):
            return helper(x) * fscope
    return x


def shows_locals(x):
    fscope = helper(x)
    ag__ = 1
    return sorted(locals())


CASES = [(parameter_fscope, (np.ones(2), 2.0)), (parameter_fscope, (-np.ones(2), 2.0)),
         (local_ag, (np.ones(2),)), (loop_variable_ag, (np.ones(2),)),
         (global_fscope, (np.ones(2),)), (closes_over_fscope, (np.ones(2),)),
         (straight_line, (np.ones(2),)),
         (nested_def_named_fscope, (np.ones(2),)), (imported_as_ag, (np.ones(2),)),
         (scaled, (np.ones(2), 3.0)), (Model().forward, (np.ones(2),)),
         (match_capture, (np.ones(2),))]


@pytest.mark.parametrize("fn, args", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_plain_and_staged_agree_with_python(fn, args):
    expected = fn(*args)
    np.testing.assert_array_equal(ag.to_graph(fn)(*args), expected)
    np.testing.assert_array_equal(ag.function(fn)(*args), expected)


def test_locals_shows_the_users_variables_of_those_names():
    assert ag.to_graph(shows_locals)(np.ones(2)) == ["ag__", "fscope", "x"]


def test_generated_code_names_the_cells_apart():
    code = ag.to_code(parameter_fscope)
    assert "ag__.converted(helper, fscope_1)" in code  # the scope cell, renamed
    assert "y * fscope" in code  # the user's parameter, as written
    code = ag.to_code(local_ag)
    assert "ag___1.while_stmt" in code and "ag__ = 2.0" in code


def defined_in_one_branch(x):
    if x.sum() > 0:
        fscope = x + 1
    return fscope


def test_errors_name_the_users_variable():
    with pytest.raises(errors.StagingError, match="variable 'fscope' is undefined in a branch"):
        ag.function(defined_in_one_branch)(np.ones(2))


def spells_the_placeholder(x, fscope):
    if x.sum() > 0:
        x = x * fscope
    return x, "fscope_user", "ag__"


def test_strings_that_spell_names_stay():
    out, *strings = ag.function(spells_the_placeholder)(np.ones(2), 2.0)
    assert strings == ["fscope_user", "ag__"]
    np.testing.assert_array_equal(out, [2.0, 2.0])
