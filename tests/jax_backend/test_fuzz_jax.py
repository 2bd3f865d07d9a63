"""The staged differential fuzzer's CI slice under JAX: random programs
(tests/staged/fuzz_programs.py) run as plain Python, converted, and under
`jax.jit(ag.to_graph(f))` must match -- or be refused with a catalog error
that points at the user's file.  It found the print-order bug of unordered
callbacks (test_jax_backend.py).  The long run:
`python -m tests.staged.fuzz_staged --backend jax --programs 300`."""

import pytest
from hypothesis import given, strategies as st

pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                    exc_type=ImportError)

from tests.staged import fuzz_harness, fuzz_programs  # noqa: E402
from tests.staged.test_fuzz import CI_FEATURES, slice_settings  # noqa: E402

# (uint8 and int32 counts wrap in the programs, as numpy's scalars do, and numpy
# warns: an outcome both runs share, not one the fuzzer compares)
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzz_jax"))


@slice_settings(40)
@given(st.data())
def test_random_programs_under_jax_match_or_are_refused(directory, data):
    chooser = fuzz_programs.DataChooser(data)
    source, used = fuzz_programs.write_program(chooser, CI_FEATURES)
    source, stage = fuzz_harness.for_jax(source)
    verdict = fuzz_harness.run(source, used, fuzz_programs.argument_sets(chooser), directory,
                               stage=stage)
    assert verdict.kind != "mismatch", repr(verdict)
