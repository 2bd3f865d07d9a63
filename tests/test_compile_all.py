"""Every function and method defined in autograph's own source
(autograph/**/*.py), in examples/*.py and in the test corpus converts, and its
generated code (`ag.to_code`) compiles.

Functions are collected by importing each module and walking the module's and
its classes' dicts, keeping only objects whose `__module__` is that module
(so re-exported imports are not counted twice): plain functions, lambdas,
generator and async functions, methods, static/class methods, property
accessors, nested classes.

autograph's own functions are library code, which `converted_call` never
converts; `to_code`/`to_graph` convert whatever they are given regardless
(checked below).  A function whose source cannot be found must fail with
SourceNotFoundError, never crash.
"""

import functools
import glob
import importlib
import importlib.util
import inspect
import linecache
import os
import pkgutil
import re
import sys
import textwrap
import types

import pytest

import autograph as ag
from autograph import errors
from autograph.runtime import call as ag_call

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _package_modules():
    """(module name, module or the reason it cannot be imported) for autograph.*"""
    import autograph
    found = [("autograph", autograph)]
    for info in pkgutil.walk_packages(autograph.__path__, "autograph."):
        try:
            found.append((info.name, importlib.import_module(info.name)))
        except ImportError as e:
            # Backends import their optional library (jax, tensorflow, ...).
            missing = getattr(e, "name", None) or ""
            if missing.split(".")[0] == "autograph":
                raise
            found.append((info.name, f"optional dependency {missing!r} is not installed"))
    return found


def _file_modules(pattern, prefix):
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
        name = prefix + os.path.splitext(os.path.basename(path))[0]
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except ImportError as e:  # an example of an optional extra (jax) not installed
                del sys.modules[name]
                missing = getattr(e, "name", None) or str(e)
                if missing.split(".")[0] == "autograph":
                    raise
                module = f"optional dependency {missing!r} is not installed"
        found.append((name, module))
    return found


def _corpus_programs():
    # The name pytest gives it (tests/ is on sys.path, tests/corpus is a
    # package), so test_corpus and this file share one copy of the module.
    try:
        from corpus import programs
    except ImportError:
        from tests.corpus import programs
    return programs


def _corpus_module():
    programs = _corpus_programs()
    return [(programs.__name__, programs)]


def _functions_of_class(cls, module_name, seen_classes):
    if cls in seen_classes:
        return
    seen_classes.add(cls)
    for name, value in vars(cls).items():
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property):
            for accessor in (value.fget, value.fset, value.fdel):
                if isinstance(accessor, types.FunctionType) and accessor.__module__ == module_name:
                    yield f"{cls.__qualname__}.{name}", accessor
            continue
        if isinstance(value, functools.partialmethod):
            value = value.func
        if isinstance(value, types.FunctionType):
            if value.__module__ == module_name:  # not e.g. typing.Protocol's __init__
                yield f"{cls.__qualname__}.{name}", value
        elif isinstance(value, type) and value.__module__ == module_name:
            yield from _functions_of_class(value, module_name, seen_classes)


def collect_functions(modules):
    """(id, function) for every function defined in `modules`, each code object once."""
    collected, seen_code, seen_classes = [], set(), set()
    for module_name, module in modules:
        if isinstance(module, str):
            continue
        for name, value in list(vars(module).items()):
            if getattr(value, "__module__", None) != module_name:
                continue
            if isinstance(value, types.FunctionType):
                found = [(name, value)]
            elif isinstance(value, type):
                found = list(_functions_of_class(value, module_name, seen_classes))
            else:
                continue
            for qualname, fn in found:
                if fn.__code__ in seen_code:
                    continue
                seen_code.add(fn.__code__)
                collected.append((f"{module_name}:{qualname}", fn))
    return collected


PACKAGE_MODULES = _package_modules()
EXAMPLE_MODULES = _file_modules("examples/*.py", "autograph_examples_")
CORPUS_MODULES = _corpus_module()
FUNCTIONS = collect_functions(PACKAGE_MODULES + EXAMPLE_MODULES + CORPUS_MODULES)
UNIMPORTABLE = [(name, why) for name, why in PACKAGE_MODULES if isinstance(why, str)]


def _has_source(fn):
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    return bool(lines) and code.co_firstlineno <= len(lines)


def compile_generated(text, fn):
    """Compiles to_code's text the way it can stand alone: a closure's free
    variables (targets of its `nonlocal` statements, say) get an enclosing
    function that binds them."""
    free = [name for name in fn.__code__.co_freevars if name not in ("ag__", "fscope", "__class__")]
    source = text
    if free or "__class__" in fn.__code__.co_freevars:
        binds = "".join(f"    {name} = None\n" for name in free)
        if "__class__" in fn.__code__.co_freevars:
            source = "class __ag_enclosing__:\n" + textwrap.indent(text, "    ")
        if free:
            source = "def __ag_enclosing__():\n" + binds + textwrap.indent(source, "    ")
    return compile(source, f"<to_code of {fn.__qualname__}>", "exec")


def test_every_module_imports_or_lacks_only_an_optional_dependency():
    for name, why in UNIMPORTABLE:
        assert name.startswith("autograph.backends."), f"{name}: {why}"


def test_collection_covers_every_kind_of_function():
    kinds = {"generator": inspect.isgeneratorfunction, "coroutine": inspect.iscoroutinefunction,
             "lambda": lambda fn: fn.__name__ == "<lambda>",
             "method": lambda fn: "." in fn.__qualname__}
    functions = [fn for _, fn in FUNCTIONS]
    for kind, test in kinds.items():
        assert any(test(fn) for fn in functions), f"no {kind} collected"
    package = [fid for fid, _ in FUNCTIONS if fid.startswith("autograph.")]
    examples = [fid for fid, _ in FUNCTIONS if fid.startswith("autograph_examples_")]
    assert len(package) > 50
    assert examples or not glob.glob(os.path.join(ROOT, "examples/*.py"))


def _rejected_on_purpose(fn):
    """The corpus's functions that autograph refuses by design (programs.REJECTED)."""
    programs = _corpus_programs()
    if fn.__module__ != programs.__name__ or fn.__name__ not in programs.REJECTED:
        return None
    error_name, text, _ = programs.REJECTED[fn.__name__]
    return getattr(errors, error_name), text.partition("{where}")[0]


@pytest.mark.parametrize("fn", [fn for _, fn in FUNCTIONS], ids=[fid for fid, _ in FUNCTIONS])
def test_converts_and_compiles(fn):
    rejected = _rejected_on_purpose(fn)
    if rejected:
        with pytest.raises(rejected[0], match=re.escape(rejected[1])):
            ag.to_code(fn)
        return
    if not _has_source(fn):
        with pytest.raises(errors.SourceNotFoundError, match="source code is not available"):
            ag.to_code(fn)
        return
    text = ag.to_code(fn)
    assert text.strip(), "empty generated code"
    compile_generated(text, fn)


def test_library_functions_are_converted_by_to_graph_and_to_code():
    # converted_call leaves autograph's own code alone; the explicit API does not.
    assert ag_call.is_library_code(errors.where)
    assert "def where" in ag.to_code(errors.where)
    converted = ag.to_graph(errors.where)
    assert converted is not errors.where
    assert converted("f.py", 3) == errors.where("f.py", 3) == "f.py:3"


def test_function_without_source_fails_clearly():
    namespace = {}
    exec(compile("def made_by_exec(x):\n    return x + 1\n", "<no file>", "exec"), namespace)
    fn = namespace["made_by_exec"]
    with pytest.raises(errors.SourceNotFoundError, match="made_by_exec"):
        ag.to_code(fn)
    with pytest.raises(ag.AutoGraphError):
        ag.to_graph(fn)


def test_function_with_source_registered_in_linecache_converts():
    filename = "<autograph test: registered source>"
    text = "def made_by_exec(x):\n    if x > 0:\n        return x + 1\n    return 0\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    try:
        namespace = {}
        exec(compile(text, filename, "exec"), namespace)
        fn = namespace["made_by_exec"]
        compile_generated(ag.to_code(fn), fn)
        converted = ag.to_graph(fn)
        assert (converted(2), converted(-2)) == (3, 0)
    finally:
        linecache.cache.pop(filename, None)
