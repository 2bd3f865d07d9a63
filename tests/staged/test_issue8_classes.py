"""Pattern classes of issue 8 found by the fuzzer: staged mode gives Python's
result and printed output, or a catalog error naming the user's variable."""

import numpy as np

import autograph as ag


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
