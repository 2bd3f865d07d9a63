"""Converted functions run their converted body only while something is
traced (otherwise the original body runs as written). These tests check the
converted body, so every test here runs as if tracing."""

import pytest

from autograph.runtime import registry


@pytest.fixture(autouse=True)
def converted_body():
    with registry.staging("tests: run the converted body"):
        yield
