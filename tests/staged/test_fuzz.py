"""The staged differential fuzzer, CI slice: random programs with nested
`if`/`while`/`for`/`break`/`continue`/`return`/loop `else`, `and`/`or`/`not`,
prints, calls, closures, dicts and lists (their entries updated by Python
loops, a dict of lists as a log), run as plain Python, converted and
under `ag.function` (fuzz_harness.py), must match -- or be refused with a catalog error that
points at the user's file and names no generated variable.

The slice is derandomized (the same programs on every run); hypothesis
shrinks a failing program.  The long run is
`python -m tests.staged.fuzz_staged --programs 2000` (README).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import autograph as ag

from . import fuzz_harness, fuzz_programs

# (uint8 and int32 counts wrap in the programs, as numpy's scalars do, and numpy
# warns: an outcome both runs share, not one the fuzzer compares)
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")

# Every feature: each had zero mismatches over 2000+ random programs
# (`python -m tests.staged.fuzz_staged --programs 2000 --features all`).  Lists
# appended to in one staged branch only are refused (a catalog error naming
# the list), which the slice counts as a refusal, not a failure.
# "entries" and "log" (Python loops updating a dict's and a list's entries, a
# dict of lists as a log): zero mismatches over 1700 graph and 350 JAX
# programs (950 and all of those with every feature); in the slice, as they
# keep it as fast.
CI_FEATURES = ("if", "while", "for_range", "for_array", "python_for", "break", "continue",
               "return", "loop_else", "logic", "print", "call", "closure", "dict", "list",
               "entries", "log")


# (the slices' hypothesis settings but for their size: a program per draw,
# reproducible, no deadline, the directory fixture shared by all draws)
def slice_settings(max_examples):
    return settings(max_examples=max_examples, derandomize=True, deadline=None,
                    database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzz"))


@slice_settings(150)
@given(st.data())
def test_random_programs_match_or_are_refused(directory, data):
    chooser = fuzz_programs.DataChooser(data)
    source, used = fuzz_programs.write_program(chooser, CI_FEATURES)
    verdict = fuzz_harness.run(source, used, fuzz_programs.argument_sets(chooser), directory)
    assert verdict.kind != "mismatch", repr(verdict)


def test_harness_catches_a_wrong_value(directory):
    """The comparison can fail: a staged result one ulp off is a mismatch."""
    source = fuzz_programs.PRELUDE + (
        "def f(x, n, a):\n"
        "    s = a * 0.0\n"
        "    for v in x:\n"
        "        s = s + v\n"
        "    return (s, a, n)\n")
    args = [(np.array([1.0, 2.0]), np.int64(1), np.float64(0.5))]
    assert fuzz_harness.run(source, frozenset(), args, directory).kind == "match"

    def off_by_an_ulp(fn):
        staged = ag.function(fn)
        return lambda *a: (np.nextafter(staged(*a)[0], np.inf),) + staged(*a)[1:]

    verdict = fuzz_harness.run(source, frozenset(), args, directory, stage=off_by_an_ulp)
    assert verdict.kind == "mismatch" and "graph: returned" in verdict.detail
