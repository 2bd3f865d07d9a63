"""The Graph itself: scope, placeholders, captures, listing, public names."""

import threading

import numpy as np
import pytest

from autograph import errors
from autograph import graph as engine
from autograph.graph import Graph, Tensor, TensorSpec, cond, current_graph


def test_public_names():
    assert set(engine.__all__) == {"Tensor", "Graph", "TensorSpec", "function", "Function",
                                   "ConcreteFunction", "Variable", "run_functions_eagerly"}
    for name in engine.__all__ + engine.ENGINE_API:
        assert hasattr(engine, name)


def test_ops_record_into_the_scoped_graph_in_program_order():
    from autograph.graph.core import scope
    g = Graph("manual")
    with scope(g):
        x = g.placeholder((None, 3), np.float32, name="x")
        y = np.exp(x) + 1
        z = y.sum(axis=1)
        assert x.T.static_shape == (3, None) and x.ndim == 2 and x.static_size is None
    assert current_graph() is None
    assert [n.op.name for n in g.nodes] == ["placeholder", "np.exp", "np.add", "np.sum", ".T"]
    assert isinstance(z, Tensor) and z.shape == (None,) and z.dtype == np.float32
    assert repr(z) == "<Tensor 'sum' shape=(None,) dtype=float32>"


def test_the_tracing_scope_is_thread_local():
    from autograph.graph.core import scope
    seen = []
    with scope(Graph("main")):
        thread = threading.Thread(target=lambda: seen.append(current_graph()))
        thread.start()
        thread.join()
        assert current_graph().name == "main"
    assert seen == [None]


def test_ops_outside_tracing_are_rejected():
    from autograph.graph.core import scope
    g = Graph("gone")
    with scope(g):
        x = g.placeholder((2,), np.float64)
    with pytest.raises(errors.GraphError, match=r"\(made at .*test_graph\.py:\d+\) is used at "
                       r".*test_graph\.py:\d+, outside the graph that made it"):
        x + 1


def test_cond_passes_through_equal_python_values():
    f = engine.function(lambda x: cond(x[0] > 0, lambda: (x, None, "tag"),
                                       lambda: (x * 2, None, "tag")), autograph=False)
    y, none, tag = f(np.ones(1))
    assert none is None and tag == "tag" and y[0] == 1.0


def test_tensor_spec():
    spec = TensorSpec([None, 3], "float32")
    assert spec.shape == (None, 3) and spec.dtype == np.float32
    assert repr(spec) == "TensorSpec(shape=(None, 3), dtype=float32)"
    assert spec.is_compatible_with((7, 3), np.float32)
    assert not spec.is_compatible_with((7, 4), np.float32)
    assert spec == TensorSpec((None, 3), np.float32)
    assert len({spec, TensorSpec((None, 3), "f4")}) == 1


def test_bound_method_concrete_function():
    class Layer:
        def __init__(self):
            self.w = np.full((2, 2), 2.0)

        @engine.function(autograph=False)
        def __call__(self, x):
            return x @ self.w

    layer = Layer()
    np.testing.assert_array_equal(layer(np.ones((1, 2))), [[4.0, 4.0]])
    cf = layer.__call__.get_concrete_function(TensorSpec((None, 2), np.float64))
    np.testing.assert_array_equal(cf(np.ones((3, 2))), np.full((3, 2), 4.0))
