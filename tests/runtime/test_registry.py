"""The backend registry: table dispatch on type, cached `owns` scans, lazy backends."""

import sys
import types

import pytest

from autograph import errors
from autograph.runtime import registry
from autograph.runtime.backend import Backend

from cf_fake_backend import BACKEND, Sym


class _Owned:
    pass


class _CountingBackend(Backend):
    name = "counting"

    def __init__(self):
        self.asked = 0

    def owns(self, value):
        self.asked += 1
        return type(value) is _Owned


def test_python_values_are_not_staged_and_owned_values_are():
    for v in (1, 2.5, "s", None, [1], (1,), {}, True, object()):
        assert registry.is_staged(v) is False
        assert registry.backend_of(v) is None
    assert registry.is_staged(Sym(1)) is True
    assert registry.backend_of(Sym(1)) is BACKEND


def test_owns_is_asked_once_per_type():
    backend = registry.register_backend(_CountingBackend())
    assert registry.backend_of(_Owned()) is backend
    asked = backend.asked
    for _ in range(5):
        assert registry.is_staged(_Owned())
        assert registry.backend_of(_Owned()) is backend
    assert backend.asked == asked
    assert registry.register_backend(backend) is backend  # idempotent
    assert registry.registered_backends().count(backend) == 1


def test_known_backend_is_imported_lazily_when_its_library_is_loaded(monkeypatch):
    class Tracer:
        pass

    class LazyBackend(Backend):
        name = "lazy"

        def owns(self, value):
            return type(value) is Tracer

    lazy = LazyBackend()
    backend_module = types.ModuleType("fake_ag_backend_mod")
    backend_module.BACKEND = lazy
    monkeypatch.setitem(sys.modules, "fake_ag_backend_mod", backend_module)
    monkeypatch.setattr(registry, "_KNOWN_BACKENDS", {
        "fake_ag_lib": "fake_ag_backend_mod",
        "fake_ag_missing_lib": "autograph.backends.does_not_exist",
    })
    assert registry.backend_of(Tracer()) is None  # library not imported: no backend
    monkeypatch.setitem(sys.modules, "fake_ag_lib", types.ModuleType("fake_ag_lib"))
    monkeypatch.setitem(sys.modules, "fake_ag_missing_lib", types.ModuleType("x"))

    class Fresh:  # a type never seen, so the lookup misses
        pass

    assert registry.backend_of(Fresh()) is None
    assert registry.backend_of(Tracer()) is lazy
    registry._backends.remove(lazy)
    registry._backend_by_type.clear()
    registry._staged_by_type.clear()


def test_backends_subclass_the_protocol_base():
    assert isinstance(BACKEND, registry.Backend)

    class NotABackend:
        name = "duck"

        def owns(self, value):
            return False

    with pytest.raises(errors.BackendProtocolError, match="subclasses autograph.runtime"):
        registry.register_backend(NotABackend())


def test_protocol_defaults_raise_catalog_errors_naming_the_operation():
    class CondOnly(Backend):
        name = "cond-only"

    backend = CondOnly()
    for call, operation in [(lambda: backend.print_(1), "print()"),
                            (lambda: backend.len_(1), "len()"),
                            (lambda: backend.list_append([], 1), "list.append()"),
                            (lambda: backend.while_loop(None, None, (), (), {}), "while")]:
        with pytest.raises(errors.StagingError, match="backend 'cond-only'") as info:
            call()
        assert str(info.value).startswith(operation + " at ")
    assert backend.set_element_type([1], "f") == [1]  # no typed lists: a no-op


def test_the_runtime_asks_backends_only_for_protocol_methods():
    """Every attribute the runtime reads from a backend (`backend.x`, or
    `_owner_of_bounds(...).x`) is defined by the Backend base class, and no
    runtime module probes a backend with getattr/hasattr."""
    import ast
    import pathlib

    import autograph.runtime

    asked = set()
    for path in pathlib.Path(autograph.runtime.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and (
                    isinstance(node.value, ast.Name) and node.value.id == "backend"
                    or isinstance(node.value, ast.Call) and getattr(
                        node.value.func, "id", None) == "_owner_of_bounds"):
                asked.add(node.attr)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
                    "getattr", "hasattr") and node.args and isinstance(
                        node.args[0], ast.Name) and node.args[0].id == "backend":
                raise AssertionError(f"{path.name}:{node.lineno} probes a backend with "
                                     f"{node.func.id}")
    assert {"cond", "while_loop", "for_range", "print_", "folds_extra_test"} <= asked
    missing = {name for name in asked if not hasattr(Backend, name)}
    assert not missing, f"the runtime asks backends for {missing}, not in the protocol"
