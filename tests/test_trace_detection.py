"""Backends whose library traces functions itself (`Backend.detects_tracing`):
while such a backend says it traces, `ag__.tracing` is true, so converted
functions run their converted body (what `jax.jit(ag.to_graph(f))` needs);
otherwise they run the original body."""

import pytest

import autograph as ag
from autograph.runtime import registry
from autograph.runtime.backend import Backend


class _SelfTracing(Backend):
    name = "self-tracing"
    detects_tracing = True

    def __init__(self):
        self.active = False

    def is_tracing(self):
        return self.active


@pytest.fixture
def self_tracing(monkeypatch):
    backend = _SelfTracing()
    monkeypatch.setattr(registry, "_backends", list(registry._backends))
    registry.register_backend(backend)
    yield backend
    registry._install_detectors(tuple(b.is_tracing for b in registry._backends
                                      if b is not backend and b.detects_tracing))


def _which_body():
    return "converted" if registry.tracing else "original"


def test_tracing_is_true_while_a_detecting_backend_traces(self_tracing):
    assert not registry.tracing
    self_tracing.active = True
    assert registry.tracing
    self_tracing.active = False
    assert not registry.tracing
    with registry.staging("own trace"):  # autograph's own tracing still counts
        assert registry.tracing
    assert len(registry.tracing) == 0  # still a list of what autograph traces


def test_converted_function_runs_its_converted_body_only_while_traced(self_tracing):
    def f(x):
        return _which_body()

    # the original body calls _which_body() as is; the converted one too, but
    # runs only while `ag__.tracing` is true
    g = ag.to_graph(f)
    assert g(1) == "original"
    self_tracing.active = True
    assert g(1) == "converted"


def test_base_backend_does_not_detect_tracing():
    assert Backend.detects_tracing is False and Backend().is_tracing() is False
