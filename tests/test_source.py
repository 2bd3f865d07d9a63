"""Source lookup and conversion for every kind of function a user has."""

import functools
import linecache
import re

import pytest

import autograph as ag
from autograph import errors


def module_function(x):
    if x > 0:
        return x
    return -x


def make_closure():
    k = 1

    def inner(x):
        return x + k

    k = 10  # late binding: inner sees the final value, also when converted
    return inner


class Thing:
    factor = 3

    def method(self, x):
        return x * self.factor

    @staticmethod
    def static(x):
        return x - 1

    @classmethod
    def klass(cls, x):
        return x * cls.factor

    def __call__(self, x):
        return x + 100


class Child(Thing):
    def method(self, x):
        return super().method(x) + 1


def decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) * 2
    return wrapper


@decorator
def decorated(x):
    return x + 1


def two_args(a, b, *, c=5):
    return a * 10 + b + c


first, second = (lambda x: x + 1), (lambda x, y=2: x * y)
nested_lambda = lambda x: (lambda y: x + y)  # noqa: E731


@pytest.mark.parametrize("make, args", [
    (lambda: module_function, (-3,)),
    (make_closure, (1,)),
    (lambda: Thing().method, (2,)),
    (lambda: Thing.method, (Thing(), 2)),
    (lambda: Thing.static, (2,)),
    (lambda: Thing.klass, (2,)),
    (lambda: Thing(), (2,)),
    (lambda: Child().method, (2,)),
    (lambda: decorated, (2,)),
    (lambda: functools.partial(two_args, 1, c=7), (2,)),
    (lambda: first, (4,)),
    (lambda: second, (4,)),
    (lambda: nested_lambda(3), (4,)),
], ids=["module", "closure", "bound", "unbound", "static", "classmethod", "callable",
        "super", "wraps", "partial", "lambda1", "lambda2", "nested_lambda"])
def test_converted_matches_original(make, args):
    fn = make()
    assert ag.to_graph(fn)(*args) == fn(*args)


def test_two_lambdas_on_one_line_each_convert_to_their_own_code():
    # A lambda's converted body runs while tracing, its own body otherwise.
    assert ag.to_code(first).strip() == "lambda x: x + 1 if ag__.tracing else x + 1"
    assert ag.to_code(second).strip() == "lambda x, y=2: x * y if ag__.tracing else x * y"


def test_closure_late_binding_is_kept_after_conversion():
    k = 1

    def inner():
        return k

    converted = ag.to_graph(inner)
    k = 2
    assert converted() == 2 == inner()


def test_exec_defined_function_with_source_in_linecache():
    filename = "<autograph-test-exec>"
    text = "def from_exec(x):\n    if x > 1:\n        return 'big'\n    return 'small'\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {}
    exec(compile(text, filename, "exec"), namespace)
    fn = namespace["from_exec"]
    assert ag.to_graph(fn)(5) == "big"
    assert "def from_exec(x):" in ag.to_code(fn)


def test_function_without_source_raises_naming_it():
    namespace = {}
    exec("def nowhere(x):\n    return x\n", namespace)
    with pytest.raises(errors.SourceNotFoundError, match=re.escape("cannot convert nowhere (<string>:1): its source code is not available")):
        ag.to_graph(namespace["nowhere"])
    assert issubclass(errors.SourceNotFoundError, ag.AutoGraphError)


def test_builtins_cannot_be_converted():
    with pytest.raises(ag.AutoGraphError, match=re.escape("cannot convert len: builtin_function_or_method objects are implemented in C")):
        ag.to_graph(len)


def test_conversion_is_cached_per_code_object():
    from autograph import transpiler
    ag.to_graph(module_function)
    before = len(transpiler._cache)
    for _ in range(3):
        ag.to_graph(module_function)
    assert len(transpiler._cache) == before


def test_converted_function_keeps_identity_attributes():
    converted = ag.to_graph(two_args)
    assert converted.__name__ == "two_args"
    assert converted.__qualname__ == two_args.__qualname__
    assert converted.__module__ == __name__
    assert converted.__kwdefaults__ == {"c": 5}
    assert converted(1, 2) == 17


def test_convert_decorator_and_do_not_convert():
    @ag.convert()
    def fact(n):
        if n <= 1:
            return 1
        return n * fact(n - 1)

    assert fact(5) == 120

    @ag.do_not_convert
    def untouched(x):
        return x

    assert ag.to_graph(untouched) is untouched


def test_a_file_edited_after_import_is_named_as_such(tmp_path, monkeypatch):
    module_file = tmp_path / "edited_module.py"
    module_file.write_text("def edited(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import edited_module
    module_file.write_text("# a new first line\n\n\nX = 1\n")
    with pytest.raises(errors.SourceNotFoundError, match=re.escape(
            "the file was edited after the function was defined. Reload the module")):
        ag.to_graph(edited_module.edited)


class WithDescriptors:
    @staticmethod
    def twice(x):
        return 2 * x

    @classmethod
    def name(cls, suffix):
        return cls.__name__ + suffix


def test_staticmethod_and_classmethod_objects_convert():
    static = ag.to_graph(WithDescriptors.__dict__["twice"])
    assert isinstance(static, staticmethod) and static.__func__(3) == 6
    klass = ag.to_graph(WithDescriptors.__dict__["name"])
    assert isinstance(klass, classmethod)
    assert klass.__get__(None, WithDescriptors)("!") == "WithDescriptors!"


def test_non_functions_are_named_with_the_right_article():
    with pytest.raises(ag.AutoGraphError, match=re.escape("an int object is not a Python function")):
        ag.to_graph(3)


def test_a_function_piped_into_python_stdin_says_why_it_has_no_source():
    import subprocess
    import sys
    script = ("import autograph as ag\n"
              "def piped(n):\n"
              "    return n\n"
              "ag.to_graph(piped)\n")
    result = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True)
    assert result.returncode != 0
    assert ("SourceNotFoundError: cannot convert piped (<stdin>:2): its source code is not "
            "available (code piped into `python -` is read and discarded by Python before it "
            "runs). autograph reads the source through linecache: define the function in a "
            "file") in result.stderr


# The definition's block is found by indentation, and by the tokenizer when a
# line of it is less indented (inside brackets or strings) or the def is on
# one line: each shape below must give exactly the definition, no more.
_BLOCK_SHAPES = {
    "one_line": "def f(x): return x + 1\ndef g(x): return 0\n",
    "string_at_column_0": 'def f(x):\n    s = """\nend"""\n    return x + len(s)\n\nz = 1\n',
    "bracket_at_column_0": "def f(x):\n    y = (x +\n1)\n    return y\n\nz = 1\n",
    "backslash_at_column_0": "def f(x):\n    y = x + \\\n1\n    return y\nz = 1\n",
    "comment_at_column_0": "def f(x):\n    y = x\n# a comment\n    return y + 1\n\n# after\nz = 1\n",
    "decorated": "import functools\n@functools.lru_cache(None)\ndef f(x):\n    return x + 1\nz = 1\n",
    "method": "class C:\n    def f(self, x):\n        return x + 1\n    def g(self):\n        return 0\n",
}


@pytest.mark.parametrize("shape", sorted(_BLOCK_SHAPES))
def test_the_definition_block_is_exactly_the_definition(tmp_path, monkeypatch, shape):
    from autograph import source
    path = tmp_path / f"block_{shape}.py"
    path.write_text(_BLOCK_SHAPES[shape])
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    fn = namespace["C"].f if "C" in namespace else namespace["f"]
    fn = getattr(fn, "__wrapped__", fn)
    node, info = source.get_entity(fn)
    assert node.name == "f"
    lines = path.read_text().splitlines(keepends=True)
    start = fn.__code__.co_firstlineno
    assert info.source == "".join(lines[start - 1:node.end_lineno])
    assert ag.to_graph(fn)(*((None, 2) if "C" in namespace else (2,))) == fn(
        *((None, 2) if "C" in namespace else (2,)))
