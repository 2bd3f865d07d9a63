"""The on-disk conversion cache (autograph/conversion_cache.py): an entry
loaded in a later process is the conversion that process would compile
(same code object, same to_code, same results, same tracebacks), and
anything the conversion read that changed -- the file's text, the options,
an answer from the namespace, autograph's own files -- means converting
again; a broken entry or directory means converting as if there were none."""

import json
import linecache
import os
import re
import subprocess
import sys
import textwrap
import traceback
import types
from pathlib import Path

import numpy as np
import pytest

import autograph as ag
from autograph import context, conversion_cache, errors, transpiler
from autograph.runtime import registry

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = context.ConversionOptions()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """The cache on, in an empty directory; the in-memory caches empty;
    entries written at once (not at exit: the subprocess tests write them so)."""
    folder = tmp_path / "agcache"
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(folder))
    monkeypatch.setattr(conversion_cache, "DEFERRED", False)
    transpiler.clear_caches()
    yield folder
    transpiler.clear_caches()


@pytest.fixture
def builds(monkeypatch):
    """The functions the transpiler converted (rather than loaded), in order."""
    converted = []
    real = transpiler._build

    def counting(fn, options, facts, lines=None, python_loops=True):
        converted.append(fn.__name__)
        return real(fn, options, facts, lines, python_loops)

    monkeypatch.setattr(transpiler, "_build", counting)
    return converted


def _module(path, text, name="cached_module"):
    """A module run from `text` written to `path` (compiled here: no .pyc
    of the same size and mtime can give stale bytecode)."""
    path.write_text(textwrap.dedent(text))
    module = types.ModuleType(name)
    module.__file__ = str(path)
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    return module


def _fresh(fn, monkeypatch):
    """(code, to_code) of `fn` converted with no cache at all."""
    with monkeypatch.context() as m:
        m.setenv("AUTOGRAPH_CACHE_DIR", "off")
        transpiler.clear_caches()
        code = transpiler.convert(fn, OPTIONS).__code__
        text = ag.to_code(fn)
    transpiler.clear_caches()
    return code, text


def _entries(folder):
    return sorted(folder.rglob("*.agc")) if folder.exists() else []


SOURCE = '''
    import numpy as np

    def step(x, n):
        total = x * 0
        for i in range(n):
            if i % 2 == 0:
                total = total + x
            else:
                total = total - 1.0
        return total
'''


def test_a_second_conversion_loads_the_entry_the_first_wrote(tmp_path, cache_dir, builds,
                                                             monkeypatch):
    module = _module(tmp_path / "m.py", SOURCE)
    first = transpiler.convert(module.step, OPTIONS)
    text = ag.to_code(module.step)
    assert builds == ["step"] and len(_entries(cache_dir)) == 1
    transpiler.clear_caches()
    loaded = transpiler.convert(module.step, OPTIONS)
    assert builds == ["step"]  # (loaded, not converted)
    assert loaded.__code__ == first.__code__ and loaded.__code__ is not first.__code__
    assert ag.to_code(module.step) == text  # converted again on demand, as it was
    assert builds == ["step", "step"]
    assert (loaded.__code__, text) == _fresh(module.step, monkeypatch)
    staged = ag.function(module.step)
    assert staged(np.float64(2.0), np.int64(5)) == module.step(2.0, 5) == 4.0


def test_editing_the_file_keeping_size_and_mtime_converts_again(tmp_path, cache_dir, builds,
                                                                monkeypatch):
    path = tmp_path / "m.py"
    module = _module(path, SOURCE)
    transpiler.convert(module.step, OPTIONS)
    stat = path.stat()
    transpiler.clear_caches()
    edited = SOURCE.replace("total - 1.0", "total - 7.0")
    assert len(edited) == len(SOURCE)
    module = _module(path, edited)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    # (a new process's linecache: this one's would trust size and mtime, for
    # conversion and the key alike -- the key hashes what conversion reads)
    linecache.clearcache()
    converted = transpiler.convert(module.step, OPTIONS)
    assert builds == ["step", "step"]
    assert len(_entries(cache_dir)) == 1  # (the edit's entry replaced the old one)
    assert "7.0" in ag.to_code(module.step)
    assert converted.__code__ == _fresh(module.step, monkeypatch)[0]
    with registry.staging("tests: the converted body"):
        assert converted(2.0, 2) == -5.0


def test_other_options_are_another_entry(tmp_path, cache_dir, builds):
    module = _module(tmp_path / "m.py", SOURCE)
    transpiler.convert(module.step, OPTIONS)
    transpiler.clear_caches()
    transpiler.convert(module.step, context.ConversionOptions(recursive=False))
    assert builds == ["step", "step"] and len(_entries(cache_dir)) == 2


def test_another_autograph_converts_again_and_replaces_the_entry(tmp_path, cache_dir, builds,
                                                                monkeypatch):
    module = _module(tmp_path / "m.py", SOURCE)
    transpiler.convert(module.step, OPTIONS)
    transpiler.clear_caches()
    monkeypatch.setattr(conversion_cache, "_fingerprint", ["an edited converter"])
    transpiler.convert(module.step, OPTIONS)
    assert builds == ["step", "step"] and len(_entries(cache_dir)) == 1
    transpiler.clear_caches()
    transpiler.convert(module.step, OPTIONS)
    assert builds == ["step", "step"]  # (the new autograph's entry, loaded)


def test_lambdas_of_one_file_keep_an_entry_each(tmp_path, cache_dir, builds):
    module = _module(tmp_path / "m.py", """
    double = lambda x: x * 2
    triple = lambda x: x * 3
""")
    transpiler.convert(module.double, OPTIONS)
    transpiler.convert(module.triple, OPTIONS)
    transpiler.clear_caches()
    assert transpiler.convert(module.double, OPTIONS)(2) == 4
    assert transpiler.convert(module.triple, OPTIONS)(2) == 6
    assert builds == ["<lambda>", "<lambda>"] and len(_entries(cache_dir)) == 2


def test_the_package_fingerprint_covers_autograph_files(tmp_path, monkeypatch):
    fingerprint = conversion_cache.package_fingerprint()
    assert isinstance(fingerprint, str) and len(fingerprint) == 64
    assert conversion_cache.package_fingerprint() is fingerprint  # (once per process)
    # a stand-in package: a file touched, added, or in a subpackage changes it;
    # the graph engine's files and bytecode do not
    package = tmp_path / "autograph"
    (package / "converters").mkdir(parents=True)
    (package / "graph").mkdir()
    (package / "__pycache__").mkdir()
    (package / "transpiler.py").write_text("x = 1\n")
    (package / "converters" / "lists.py").write_text("y = 1\n")
    monkeypatch.setattr(conversion_cache, "_PACKAGE", str(package))
    monkeypatch.setattr(conversion_cache, "_NOT_READ", frozenset({str(package / "graph")}))

    def digest():
        monkeypatch.setattr(conversion_cache, "_fingerprint", [])
        return conversion_cache.package_fingerprint()

    seen = [digest()]
    (package / "graph" / "core.py").write_text("z = 1\n")
    (package / "__pycache__" / "transpiler.cpython-311.pyc").write_bytes(b"pyc")
    assert digest() == seen[0]
    os.utime(package / "converters" / "lists.py", ns=(1, 10**18))
    seen.append(digest())
    (package / "call_only.py").write_text("")
    seen.append(digest())
    (package / "transpiler.py").write_text("x = 22\n")
    seen.append(digest())
    assert len(set(seen)) == 4


LOCALS = '''
    def f(x):
        y = x + 1
        return locals()
'''


def test_a_rebound_builtin_converts_again(tmp_path, cache_dir, builds, monkeypatch):
    module = _module(tmp_path / "m.py", LOCALS)
    transpiler.convert(module.f, OPTIONS)
    builtin_text = ag.to_code(module.f)
    transpiler.clear_caches()
    module.locals = lambda: {"mine": True}  # the name no longer means the builtin
    converted = transpiler.convert(module.f, OPTIONS)
    assert builds == ["f", "f"]
    code, text = _fresh(module.f, monkeypatch)
    assert converted.__code__ == code and text != builtin_text
    with registry.staging("tests: the converted body"):
        assert converted(1) == {"mine": True}
    # and back: the entry now holds the rebound answer, the builtin converts again
    del module.locals
    transpiler.clear_caches()
    with registry.staging("tests: the converted body"):
        assert transpiler.convert(module.f, OPTIONS)(1) == {"x": 1, "y": 2}
    # (two of them by _fresh; the rebound `locals`, a lambda, was converted when called)
    assert [name for name in builds if name == "f"] == ["f", "f", "f", "f"]


DIRECTIVE = '''
    import autograph as ag

    def f(n):
        i = 0
        while i < n:
            ag.set_loop_options(maximum_iterations=3)
            i += 1
        return i
'''


def test_a_rebound_directive_name_converts_again(tmp_path, cache_dir, builds, monkeypatch):
    module = _module(tmp_path / "m.py", DIRECTIVE)
    transpiler.convert(module.f, OPTIONS)
    # a directive: out of the converted body (the plain body keeps it)
    assert ag.to_code(module.f).count("set_loop_options") == 1
    transpiler.clear_caches()
    calls = []
    fake = types.ModuleType("fake_ag")
    fake.set_loop_options = lambda **kwargs: calls.append(kwargs)
    module.ag = fake  # the same spelling, now not autograph's function
    converted = transpiler.convert(module.f, OPTIONS)
    assert builds == ["f", "f"]
    assert ag.to_code(module.f).count("set_loop_options") == 2  # (a call of the fake)
    assert converted.__code__ == _fresh(module.f, monkeypatch)[0]


def test_a_closure_holding_another_value_under_a_cell_name_converts_again(
        tmp_path, cache_dir, builds):
    module = _module(tmp_path / "m.py", '''
        def helper(y):
            return y * 10

        def outer(x):
            def inner(y):
                return helper(y) + 1
            return inner
    ''')
    with registry.staging("tests: the converted body"):
        inner = transpiler.convert(module.outer, OPTIONS)(0)
    # a function nested in converted code closes over its cells, `ag__`
    # holding the runtime: taken for the cells, not renamed as a user's variable
    assert {"ag__", "fscope"} <= set(inner.__code__.co_freevars)
    transpiler.clear_caches()
    builds.clear()
    transpiler.convert(inner, OPTIONS)
    transpiler.clear_caches()
    transpiler.convert(inner, OPTIONS)
    assert builds == ["inner"]  # (the same answers: loaded)
    cells = dict(zip(inner.__code__.co_freevars, inner.__closure__))
    cells["ag__"] = types.CellType(5)  # the same code, closing over a user's value
    twin = types.FunctionType(inner.__code__, inner.__globals__, "inner", None,
                              tuple(cells[name] for name in inner.__code__.co_freevars))
    transpiler.clear_caches()
    transpiler.convert(twin, OPTIONS)
    assert builds == ["inner", "inner"]


def test_a_corrupt_or_truncated_entry_converts_again(tmp_path, cache_dir, builds):
    module = _module(tmp_path / "m.py", SOURCE)
    transpiler.convert(module.step, OPTIONS)
    (entry,) = _entries(cache_dir)
    whole = entry.read_bytes()
    for broken in (whole[:len(whole) // 2], b"not marshal at all", b""):
        entry.write_bytes(broken)
        transpiler.clear_caches()
        with registry.staging("tests: the converted body"):
            assert transpiler.convert(module.step, OPTIONS)(2.0, 5) == 4.0
    assert builds == ["step"] * 4
    assert entry.read_bytes() != b""  # written again, whole
    transpiler.clear_caches()
    transpiler.convert(module.step, OPTIONS)
    assert builds == ["step"] * 4


def test_a_hash_collision_loads_nothing(tmp_path, cache_dir, builds, monkeypatch):
    module = _module(tmp_path / "m.py", SOURCE + LOCALS)
    monkeypatch.setattr(conversion_cache, "_path", lambda folder, key: str(tmp_path / "one.agc"))
    transpiler.convert(module.step, OPTIONS)
    transpiler.clear_caches()
    with registry.staging("tests: the converted body"):
        assert transpiler.convert(module.f, OPTIONS)(1) == {"x": 1, "y": 2}
    assert builds == ["step", "f"]


def test_an_unwritable_directory_only_converts(tmp_path, monkeypatch, builds):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(conversion_cache, "DEFERRED", False)
    transpiler.clear_caches()
    module = _module(tmp_path / "m.py", SOURCE)
    for _ in range(2):
        transpiler.clear_caches()
        with registry.staging("tests: the converted body"):
            assert transpiler.convert(module.step, OPTIONS)(2.0, 5) == 4.0
    assert builds == ["step", "step"]
    transpiler.clear_caches()


def test_functions_without_a_file_are_not_cached(cache_dir, builds):
    namespace = {}
    exec(compile("def g(x):\n    return x * 2\n", "<made up>", "exec"), namespace)
    linecache.cache["<made up>"] = (27, None, ["def g(x):\n", "    return x * 2\n"], "<made up>")
    try:
        for _ in range(2):
            transpiler.clear_caches()
            assert transpiler.convert(namespace["g"], OPTIONS)(3) == 6
    finally:
        linecache.cache.pop("<made up>", None)
    assert builds == ["g", "g"] and not _entries(cache_dir)


def test_entries_are_written_at_exit_unless_told_otherwise(tmp_path, monkeypatch, builds):
    folder = tmp_path / "agcache"
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(folder))
    monkeypatch.setattr(conversion_cache, "DEFERRED", True)
    monkeypatch.setattr(conversion_cache, "_pending", [])
    module = _module(tmp_path / "m.py", SOURCE)
    transpiler.clear_caches()
    transpiler.convert(module.step, OPTIONS)
    assert not _entries(folder) and len(conversion_cache._pending) == 1
    conversion_cache.flush()  # (what atexit runs)
    assert len(_entries(folder)) == 1 and not conversion_cache._pending
    transpiler.clear_caches()
    transpiler.convert(module.step, OPTIONS)
    assert builds == ["step"]
    transpiler.clear_caches()


@pytest.mark.parametrize("setting", ["", "0", "off", "OFF"])
def test_the_cache_turns_off(setting, monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", setting)
    assert conversion_cache.directory() is None


def test_the_default_directory_is_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("AUTOGRAPH_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert conversion_cache.directory() == str(tmp_path / "autograph")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert conversion_cache.directory() == os.path.join(os.path.expanduser("~"), ".cache",
                                                        "autograph")


def test_to_code_of_a_loaded_entry_shows_what_was_converted_after_the_file_changes(
        tmp_path, cache_dir, builds):
    path = tmp_path / "m.py"
    module = _module(path, SOURCE)
    transpiler.convert(module.step, OPTIONS)
    text = ag.to_code(module.step)
    transpiler.clear_caches()
    transpiler.convert(module.step, OPTIONS)  # loaded
    path.write_text("def other():\n    return 1\n")
    assert ag.to_code(module.step) == text


RAISES = '''
    def _fail(v):
        raise ValueError(v)

    def loop_raises(xs):
        total = 0
        for x in xs:
            if x > 2:
                total += _fail(x)
            total += x
        return total
'''


def _user_frames(exc):
    return [(frame.f_code.co_filename, lineno, frame.f_code.co_name)
            for frame, lineno in traceback.walk_tb(exc.__traceback__)
            if not errors.is_internal_file(frame.f_code.co_filename)]


def test_tracebacks_of_a_loaded_function_are_the_users(tmp_path, cache_dir, builds):
    path = tmp_path / "raising.py"
    module = _module(path, RAISES)
    transpiler.convert(module.loop_raises, OPTIONS)
    transpiler.clear_caches()
    converted = transpiler.convert(module.loop_raises, OPTIONS)
    assert builds == ["loop_raises"]  # (loaded)
    with pytest.raises(ValueError) as expected:
        module.loop_raises([1, 2, 3])
    with registry.staging("tests: the converted body"):
        with pytest.raises(ValueError) as actual:
            converted([1, 2, 3])
    assert _user_frames(actual.value)[1:] == _user_frames(expected.value)[1:]
    assert _user_frames(actual.value)[-2] == (str(path), 9, "loop_raises")
    assert "for_stmt" not in "".join(traceback.format_tb(actual.value.__traceback__))


# --- every function of the corpus and the examples, through a new process --------------

_CHILD = r"""
import importlib, json, marshal, sys, types
sys.path[:0] = [{root!r}, {tests!r}]
from autograph import transpiler
from autograph.context import ConversionOptions
import autograph as ag
import test_call_only
from corpus import programs

built = []
real = transpiler._build
def counting(fn, options, facts, lines=None, python_loops=True):
    built.append(fn.__qualname__)
    return real(fn, options, facts, lines, python_loops)
transpiler._build = counting

def same_value(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, types.CodeType):
        return same_code(a, b)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(map(same_value, a, b))
    return a == b or (a != a and b != b)  # (NaN)

def same_code(a, b):
    # == of code objects, without CPython's cost, exponential in the nesting
    # of code in code (the long elif chains of the corpus)
    if a is None or b is None:
        return a is b
    return (a.replace(co_consts=()) == b.replace(co_consts=())
            and same_value(a.co_consts, b.co_consts))

functions = test_call_only._repository_functions()
functions += [c.entity for c in programs.CASES if isinstance(c.entity, types.FunctionType)]
found, converted = {{}}, []
for i, fn in enumerate(functions):
    name = f"{{i}}:{{fn.__qualname__}}"
    before = len(built)
    try:
        code = transpiler.convert(fn, ConversionOptions()).__code__
        if len(built) > before:
            converted.append(name)
        text = ag.to_code(fn)
    except Exception as e:
        code, text = None, type(e).__name__
    found[name] = (code, text)
mode, store = sys.argv[1], sys.argv[2]
if mode == "check":
    with open(store, "rb") as f:
        first = marshal.load(f)
    differ = [k for k in found if found[k][1] != first[k][1]
              or not same_code(found[k][0], first[k][0])]
else:
    with open(store, "wb") as f:
        marshal.dump(found, f)
    differ = []
print(json.dumps({{"converted": converted, "functions": len(found), "differ": differ,
                  "failed": sum(code is None for code, _ in found.values())}}))
"""


def test_every_function_of_the_corpus_and_examples_loads_as_it_compiled(tmp_path):
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(tmp_path / "agcache"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    child = _CHILD.format(root=str(ROOT), tests=str(ROOT / "tests"))
    runs = []
    for mode in ("fill", "check"):
        done = subprocess.run([sys.executable, "-c", child, mode, str(tmp_path / "first")],
                              capture_output=True, text=True, env=env, cwd=str(ROOT))
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    fill, check = runs
    assert fill["functions"] == check["functions"] > 300
    assert len(fill["converted"]) > 300  # (the cold cache: converted)
    assert check["converted"] == []  # (every one loaded)
    assert check["differ"] == []  # the same code objects, the same to_code (or error)
    assert check["failed"] == fill["failed"] < 40


@pytest.mark.parametrize("example", ["classic", "demo", "train_mlp"])
def test_an_example_run_again_loads_every_conversion_and_prints_the_same(example, tmp_path):
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(tmp_path / "agcache"), AUTOGRAPH_VERBOSITY="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, str(ROOT / "examples" / f"{example}.py")],
                              capture_output=True, text=True, env=env, cwd=str(tmp_path))
        assert done.returncode == 0, done.stderr
        # (train_mlp prints how long it took)
        runs.append((re.sub(r"in [0-9.]+ s", "in ? s", done.stdout), done.stderr))
    (cold, cold_log), (warm, warm_log) = runs
    assert warm == cold
    assert cold_log.count("autograph: converted ") > 0 and "autograph: loaded " not in cold_log
    assert warm_log.count("autograph: loaded ") == cold_log.count("autograph: converted ")
    assert "autograph: converted " not in warm_log


def test_the_functions_of_one_file_hash_its_text_once(tmp_path, cache_dir, builds, monkeypatch):
    # (a file's text is hashed whole into each key: once per function made
    # a load of a large file's functions cost its size times their number)
    path = tmp_path / "m.py"
    module = _module(path, SOURCE + "\n    def twice(x):\n        return x * 2\n"
                     "\n    def thrice(x):\n        return x * 3\n")
    hashed = []
    real = conversion_cache.hashlib.blake2b

    def counting(data=b"", **kwargs):
        hashed.append(data)
        return real(data, **kwargs)

    monkeypatch.setattr(conversion_cache.hashlib, "blake2b", counting)
    for fn in (module.step, module.twice, module.thrice):
        transpiler.convert(fn, OPTIONS)
    assert hashed.count(path.read_bytes()) == 1
    path.write_text(path.read_text() + "\n# edited\n")
    linecache.checkcache(str(path))
    transpiler.clear_caches()
    transpiler.convert(module.twice, OPTIONS)  # (the file changed: hashed again)
    assert hashed.count(path.read_bytes()) == 1


_LAMBDAS = '''
import autograph as ag
from autograph import errors
inc, add2 = (lambda x: x + 1 if x else 0), (lambda x: x + 2 if x else 0)
same, twin = (lambda x: x * 3 if x else 0), (lambda x: x * 3 if x else 0)
plus, minus = (lambda x: x + 1 if x else 0), (lambda x: x - 1 if x else 0)
try:
    ag.to_graph(minus)(1)
    refused = False
except errors.SourceNotFoundError as e:
    refused = "several lambdas" in str(e)
print(ag.to_graph(inc)(1), ag.to_graph(add2)(1), ag.to_graph(same)(1), ag.to_graph(twin)(1),
      refused)
'''


@pytest.mark.parametrize("cached", [False, True], ids=["no cache", "cache"])
def test_lambdas_of_one_line_without_column_positions_are_told_apart(tmp_path, cached):
    # (with -X no_debug_ranges, code has no columns: the second lambda of a
    # line was converted as the first, and, its key the same, loaded as it)
    script = tmp_path / "lambdas.py"
    script.write_text(_LAMBDAS)
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(tmp_path / "agcache") if cached else "off",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    for _ in range(2):
        done = subprocess.run([sys.executable, "-X", "no_debug_ranges", str(script)],
                              capture_output=True, text=True, env=env, cwd=str(tmp_path))
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["2", "3", "3", "3", "True"]
