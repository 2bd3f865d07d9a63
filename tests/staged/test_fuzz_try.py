"""The staged differential fuzzer's slice for jumps inside `try`/`finally` and
`with` blocks (issue 8, item 5): random programs whose `return`/`break`/
`continue` cross `finally` bodies (which may `return` themselves) and `with`
blocks, run plain, converted and under `ag.function`; they must match or be
refused with a catalog error (fuzz_harness.py).

The writer puts no `print` in a `finally` body: it runs on every path, so it
is not under a staged guard, and a print of a Python value there runs once
while tracing, as any print of a Python value outside staged code does
(docs/ARCHITECTURE.md §6), where the harness compares printed text per call.
Lists are left out: their refusals would dominate (test_fuzz.py covers them).
The long run: `python -m tests.staged.fuzz_staged --features all`.
"""

import pytest
from hypothesis import given, strategies as st

from . import fuzz_harness, fuzz_programs
from .test_fuzz import slice_settings

# (uint8 and int32 counts wrap in the programs, as numpy's scalars do, and numpy
# warns: an outcome both runs share, not one the fuzzer compares)
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")

TRY_FEATURES = ("if", "while", "for_range", "for_array", "python_for", "break", "continue",
                "return", "loop_else", "logic", "print", "call", "dict", "try", "with")


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzz_try"))


@slice_settings(60)
@given(st.data())
def test_random_programs_with_try_and_with_match_or_are_refused(directory, data):
    chooser = fuzz_programs.DataChooser(data)
    source, used = fuzz_programs.write_program(chooser, TRY_FEATURES)
    verdict = fuzz_harness.run(source, used, fuzz_programs.argument_sets(chooser), directory)
    assert verdict.kind != "mismatch", repr(verdict)
