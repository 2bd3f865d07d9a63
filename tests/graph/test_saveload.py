"""Saving graphs as data and loading them (autograph/graph/saving.py,
loading.py): round trips in a fresh process without the user's source, and
every kind of malformed or unsafe file refused before anything runs."""

import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph import errors

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

USER_MODULE = textwrap.dedent("""
    import sys
    import numpy as np
    import autograph as ag

    @ag.function
    def collatz(n):
        count = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            count += 1
        print("steps:", count)
        return count

    @ag.function
    def checked_sqrt(x):
        assert np.all(x >= 0), "negative input"
        return np.sqrt(x)

    @ag.function
    def running_squares(n):
        squares = []
        for i in range(n):
            squares.append(i * i)
        return ag.stack(squares)

    counter = ag.Variable(np.zeros(3, np.float32), name="counter")

    @ag.function
    def accumulate(x):
        counter.assign_add(x)
        print("counter", counter.read_value())
        return {"total": counter.read_value(), "mean": np.mean(x)}

    @ag.function(input_signature=[ag.TensorSpec([None, 4], np.float32),
                                  ag.TensorSpec([4, 2], np.float32)])
    def layer(x, w):
        h = np.tanh(x @ w)
        return h[:, ::-1], h.sum(axis=0), np.argmax(h, axis=1)

    @ag.function(input_signature=[ag.TensorSpec([None], np.float64)])
    def dynamic_sum(x):
        total = 0.0
        for i in range(len(x)):  # a staged range over a dim known at run time
            total += x[i]
        return total

    @ag.function
    def scaled(x, factor, mode="up"):
        if mode == "up":
            return x * factor
        return x / factor
""")


def _calls(m):
    """(function, [argument tuples]) of the user module, saved and replayed."""
    rng = np.random.default_rng(0)
    x8 = rng.standard_normal((8, 4)).astype(np.float32)
    w = rng.standard_normal((4, 2)).astype(np.float32)
    return {
        "collatz": (m.collatz, [(np.int64(27),), (np.int64(1),)]),
        "checked_sqrt": (m.checked_sqrt, [(np.array([4.0, 9.0]),), (np.array([-1.0, 4.0]),)]),
        "running_squares": (m.running_squares, [(np.int64(5),), (np.int64(0),)]),
        "accumulate": (m.accumulate, [(np.ones(3, np.float32),), (np.arange(3, dtype=np.float32),)]),
        "layer": (m.layer, [(x8, w), (x8[:3], w)]),
        "dynamic_sum": (m.dynamic_sum, [(np.arange(4.0),), (np.arange(7.0),)]),
        "scaled": (m.scaled, [(np.float64(3.0), 2), (np.float64(3.0), 2, "down")]),
    }


def _outcome(function, args):
    try:
        return ("value", function(*args))
    except Exception as e:  # noqa: BLE001 - the outcome to compare
        return ("error", (type(e).__name__, str(e), list(getattr(e, "__notes__", ()))))


_RUNNER = textwrap.dedent("""
    import contextlib, io, pickle, sys
    import autograph as ag
    jobs = pickle.load(open(sys.argv[1], "rb"))
    results = {}
    for name, (path, calls) in jobs.items():
        loaded = ag.load(path)
        outcomes = []
        for args in calls:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    outcome = ("value", loaded(*args))
                except Exception as e:
                    outcome = ("error", (type(e).__name__, str(e),
                                         list(getattr(e, "__notes__", ()))))
            outcomes.append((outcome, out.getvalue(), err.getvalue()))
        try:
            loaded("not", "saved")
            unsaved = None
        except ag.AutoGraphError as e:
            unsaved = (type(e).__name__, str(e))
        listing = "\\n".join(str(f.graph) for f in loaded.concrete_functions)
        results[name] = (outcomes, unsaved, listing,
                         [v.numpy() for v in loaded.variables])
    assert "user_module" not in sys.modules
    pickle.dump(results, open(sys.argv[2], "wb"))
""")


def _import_user_module(tmp_path, source=USER_MODULE):
    path = tmp_path / "user_module.py"
    path.write_text(source)
    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop("user_module", None)
        import user_module
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("user_module", None)
    return user_module, path


def test_round_trip_in_a_fresh_process_without_the_source(tmp_path, capsys):
    module, source = _import_user_module(tmp_path)
    calls = _calls(module)
    initial = {}
    for name, (function, argument_sets) in calls.items():
        for args in argument_sets:  # trace every signature once
            _outcome(function, args)
    module.counter.assign(np.zeros(3, np.float32))
    jobs, expected = {}, {}
    for name, (function, argument_sets) in calls.items():
        path = str(tmp_path / "saved" / name)
        function.save(path)
        initial[name] = module.counter.numpy()
        capsys.readouterr()
        outcomes = []
        for args in argument_sets:
            outcome = _outcome(function, args)
            captured = capsys.readouterr()
            outcomes.append((outcome, captured.out, captured.err))
        expected[name] = outcomes
        jobs[name] = (path, argument_sets)
    source.unlink()  # the loaded graphs never need it
    (tmp_path / "jobs.pickle").write_bytes(pickle.dumps(jobs))
    subprocess.run([sys.executable, "-c", _RUNNER, "jobs.pickle", "results.pickle"],
                   cwd=tmp_path, env=dict(os.environ, PYTHONPATH=ROOT), check=True, timeout=120)
    results = pickle.loads((tmp_path / "results.pickle").read_bytes())
    for name, want in expected.items():
        outcomes, unsaved, listing, _ = results[name]
        assert len(outcomes) == len(want)
        for (got, out, err), (exp, exp_out, exp_err) in zip(outcomes, want):
            assert got[0] == exp[0], (name, got, exp)
            if got[0] == "error":
                assert got[1] == exp[1], name
            else:
                _assert_equal(got[1], exp[1])
            assert (out, err) == (exp_out, exp_err), name
        assert unsaved[0] == "SavedSignatureError"
        assert "matches none of its saved signatures" in unsaved[1]
        assert f"{name}(" in unsaved[1]
        assert "user_module.py:" in listing
    # both traces of collatz (int64 27 and 1 share one) and of scaled are saved
    assert results["scaled"][1][1].count("scaled(") == 2
    # the variable starts from its value when saved, and runs on in the loaded copy
    np.testing.assert_array_equal(results["accumulate"][3][0], np.array([1, 2, 3], np.float32))
    # a failing assert names the user's line as text
    error = results["checked_sqrt"][0][1][0][1]
    assert error[0] == "AssertionError" and error[1] == "negative input"
    assert any(f"{source}:" in note for note in error[2]), error


def _assert_equal(got, expected):
    assert type(got) is type(expected), (got, expected)
    if isinstance(expected, dict):
        assert list(got) == list(expected)
        for k in expected:
            _assert_equal(got[k], expected[k])
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _assert_equal(g, e)
    elif isinstance(expected, (np.ndarray, np.generic)):
        assert got.dtype == expected.dtype and np.shape(got) == np.shape(expected)
        np.testing.assert_array_equal(got, expected)
    else:
        assert got == expected


def test_function_save_for_an_input_signature(tmp_path):
    @ag.function
    def double(x):
        return x * 2

    double(np.ones(3))
    path = tmp_path / "double"
    double.save(str(path), input_signature=[ag.TensorSpec([None], np.float32)])
    loaded = ag.load(str(path))
    assert len(loaded.concrete_functions) == 1
    result = loaded(np.ones(5, np.float32))
    assert result.dtype == np.float32 and result.tolist() == [2.0] * 5
    with pytest.raises(errors.SavedSignatureError, match=r"double\(x: float32\[\?\]\)"):
        loaded(np.ones(3))


def test_function_with_input_signature_saves_before_any_call(tmp_path):
    @ag.function(input_signature=[ag.TensorSpec([None, 2], np.int32)])
    def total(x):
        return np.sum(x, axis=1)

    total.save(str(tmp_path / "total"))
    loaded = ag.load(str(tmp_path / "total"))
    assert loaded(np.array([[1, 2], [3, 4]], np.int32)).tolist() == [3, 7]


def test_saving_what_is_not_data_is_refused(tmp_path):
    class Box:
        pass

    @ag.function
    def keeps(x, box):
        return x + 1

    keeps(np.ones(2), Box())
    with pytest.raises(errors.GraphSaveError, match="keyed by identity"):
        keeps.save(str(tmp_path / "keeps"))
    with pytest.raises(errors.GraphSaveError, match="no traced graph"):
        ag.function(lambda x: x).save(str(tmp_path / "nothing"))


class _Returned:
    def __init__(self, value):
        self.value = value


@pytest.mark.parametrize("make", [lambda x: _Returned("tag"), lambda x: _Returned(x * 2)])
def test_a_returned_user_object_is_refused_by_its_class(tmp_path, make):
    # (the message named autograph's own template object, `<...slots.Copied object>`)
    staged = ag.function(make)
    staged(np.ones(2))
    message = errors.graph_save_message(
        "<lambda>", "the Python object of type _Returned it returns",
        "Return and pass only arrays, numbers, strings and lists, tuples or dicts of them (a "
        "namedtuple or a user object cannot be rebuilt without its class).",
        errors.where(__file__, sys._getframe().f_lineno + 2))
    with pytest.raises(errors.GraphSaveError, match=re.escape(message)):
        staged.save(str(tmp_path / "returned"))


def test_a_refused_save_names_the_line_that_called_save(tmp_path):
    with pytest.raises(errors.GraphSaveError, match=r"save called at .*test_saveload\.py:\d+"):
        ag.function(lambda x: x).save(str(tmp_path / "nothing"))


# --- malformed files: one test per kind -------------------------------------------------

@ag.function
def _printing(x):
    print("ran", x)
    return np.sin(x) * np.float32(2) + np.arange(3, dtype=np.float32)


@pytest.fixture
def saved(tmp_path):
    _printing(np.ones(3, np.float32))
    path = tmp_path / "printing"
    _printing.save(str(path))
    return path


def _edit_json(path, edit):
    document = json.loads((path / "graph.json").read_text())
    edit(document)
    (path / "graph.json").write_text(json.dumps(document))


def _nodes(document):
    return document["functions"][0]["graph"]["nodes"]


def _refused(path, capsys, *fragments):
    with pytest.raises(errors.SavedGraphError) as info:
        ag.load(str(path.parent))  # `path`: the file that is wrong
    message = str(info.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message, message
    assert capsys.readouterr().out == ""  # nothing ran
    return message


def test_the_saved_file_loads_as_it_is(saved, capsys):
    loaded = ag.load(str(saved))
    result = loaded(np.ones(3, np.float32))
    assert capsys.readouterr().out == "ran [1. 1. 1.]\n"
    np.testing.assert_allclose(result, np.sin(np.ones(3)) * 2 + np.arange(3), rtol=1e-6)


def test_unknown_op_is_refused(saved, capsys):
    def edit(document):
        next(n for n in _nodes(document) if n["op"] == "np.sin")["op"] = "os.system"
    _edit_json(saved, edit)
    _refused(saved / "graph.json", capsys, "op 'os.system' is not an op of the graph engine")


def test_code_like_attribute_is_refused(saved, capsys):
    def edit(document):
        node = next(n for n in _nodes(document) if n["op"] == "print")
        node["attrs"]["sep"] = {"callable": "os.system", "args": ["echo pwned"]}
    _edit_json(saved, edit)
    _refused(saved / "graph.json", capsys, "is not data a saved graph may hold")


def test_attribute_outside_the_schema_is_refused(saved, capsys):
    # an attribute name lands in generated code (`print(..., sep=...)`): only
    # the schema's names pass
    def edit(document):
        node = next(n for n in _nodes(document) if n["op"] == "print")
        node["attrs"]["sep=1); __import__('os').system('echo pwned'); print((1"] = " "
    _edit_json(saved, edit)
    _refused(saved / "graph.json", capsys, "op 'print' has no attribute")


def test_attribute_of_the_wrong_kind_is_refused(saved, capsys):
    def edit(document):
        node = next(n for n in _nodes(document) if n["op"] == "np.sin")
        node["attrs"]["dtype"] = {"dtype": "|O"}
    _edit_json(saved, edit)
    # a dtype value may be object (a tape carrying a staged list); np.sin's schema says no
    _refused(saved / "graph.json", capsys, "attribute 'dtype' of op 'np.sin' is dtype('O')")


def test_declared_dtype_differing_from_the_array_is_refused(saved, capsys):
    def edit(document):
        const = next(n for n in _nodes(document) if n["op"] == "const"
                     and n["attrs"]["value"].get("shape") == [3])
        const["attrs"]["value"]["dtype"] = "<f8"
    _edit_json(saved, edit)
    _refused(saved / "graph.json", capsys, "has dtype float32 in arrays.npz, the graph says float64")


def test_output_type_differing_from_the_op_rule_is_refused(saved, capsys):
    def edit(document):
        node = next(n for n in _nodes(document) if n["op"] == "np.sin")
        node["outputs"][0]["dtype"] = "<i8"
    _edit_json(saved, edit)
    _refused(saved / "graph.json", capsys, "its rule gives float32")


def test_constant_expression_too_big_to_compute_while_loading_is_refused(tmp_path, capsys):
    @ag.function
    def big(x):
        return x * np.float64(2.0) + np.zeros_like(x, shape=(3, 3))

    big(np.ones(3))
    big.save(str(tmp_path / "big"))

    def edit(document):  # zeros_like of the constant 2.0, in a shape of 10**10 elements
        const = next(n for n in _nodes(document) if n["op"] == "const")
        node = next(n for n in _nodes(document) if n["op"] == "np.zeros_like")
        node["args"] = [{"tensor": const["outputs"][0]["id"]}]
        node["attrs"]["shape"] = {"tuple": [100000, 100000]}
        node["outputs"][0]["shape"] = [100000, 100000]
    _edit_json(tmp_path / "big", edit)
    _refused(tmp_path / "big" / "graph.json", capsys, "on constants makes 10000000000 elements")


def _rewrite_npz(path, members):
    """Replaces arrays.npz by a stored zip of {member name: raw .npy bytes}."""
    with zipfile.ZipFile(path / "arrays.npz", "w", zipfile.ZIP_STORED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _npy_bytes(array, allow_pickle=False):
    import io
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def _members(path):
    with zipfile.ZipFile(path / "arrays.npz") as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_truncated_npz_is_refused(saved, capsys):
    data = (saved / "arrays.npz").read_bytes()
    (saved / "arrays.npz").write_bytes(data[:len(data) // 2])
    _refused(saved / "arrays.npz", capsys)


def test_truncated_array_is_refused(saved, capsys):
    members = _members(saved)
    name = next(iter(members))
    members[name] = members[name][:-4]
    _rewrite_npz(saved, members)
    _refused(saved / "arrays.npz", capsys, "(truncated or oversized)")


def test_oversized_array_is_refused(saved, capsys):
    members = _members(saved)
    name = next(iter(members))
    members[name] = members[name] + b"\0" * 64
    _rewrite_npz(saved, members)
    _refused(saved / "arrays.npz", capsys, "(truncated or oversized)")


def test_array_larger_than_the_file_is_refused(saved, capsys):
    members = _members(saved)
    _rewrite_npz(saved, members)
    data = bytearray((saved / "arrays.npz").read_bytes())
    # the central directory's uncompressed and compressed sizes of the first member
    central = data.index(b"PK\x01\x02")
    data[central + 20:central + 28] = (10 ** 9).to_bytes(4, "little") * 2
    (saved / "arrays.npz").write_bytes(bytes(data))
    _refused(saved / "arrays.npz", capsys)


def test_pickled_object_is_refused_and_not_unpickled(saved, tmp_path, capsys):
    marker = tmp_path / "unpickled"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    members = _members(saved)
    name = next(iter(members))
    members[name] = _npy_bytes(np.array([Payload()], dtype=object), allow_pickle=True)
    _rewrite_npz(saved, members)
    _refused(saved / "arrays.npz", capsys, "pickled Python objects are never loaded")
    assert not marker.exists()


def test_compressed_arrays_are_refused(saved, capsys):
    members = _members(saved)
    with zipfile.ZipFile(saved / "arrays.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    _refused(saved / "arrays.npz", capsys, "is compressed")


def test_newer_format_version_is_refused_with_its_number(saved, capsys):
    _edit_json(saved, lambda d: d.update(version=7))
    _refused(saved / "graph.json", capsys, "format version 7, newer than")


def test_older_format_version_is_refused_with_its_number(saved, capsys):
    _edit_json(saved, lambda d: d.update(version=0))
    _refused(saved / "graph.json", capsys, "format version 0, older than")


def test_not_json_is_refused(saved, capsys):
    (saved / "graph.json").write_text("{'functions': __import__('os')}")
    _refused(saved / "graph.json", capsys, "not valid JSON")


def test_missing_directory_is_refused(tmp_path, capsys):
    _refused(tmp_path / "nowhere" / "graph.json", capsys, "cannot be read")


# --- random damage ----------------------------------------------------------------------

_PRISTINE = {}
_STEPS = ag.Variable(np.int64(0), name="steps")


@ag.function
def _everything(n, x):
    """A graph with a while_loop, a cond, a staged list, print, assert, a
    Variable and array constants: the file the property tests damage."""
    seen = []
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        seen.append(n)
        _STEPS.assign_add(1)
    print("steps", _STEPS.read_value())
    assert np.all(x > -10), "x too small"
    return ag.stack(seen), np.tanh(x @ np.eye(3, dtype=np.float32)) + np.arange(3)


def _learned(w, x, n):
    total = 0.0
    i = 0
    while i < n:
        total = total + np.sum(np.tanh(x * w))
        if total > 3.0:
            break
        w = w * 1.1
        i += 1
    return total


@ag.function
def _learning(w, x, n):
    """A gradient through a staged loop: tapes, the second file the property
    tests damage."""
    return ag.value_and_grad(_learned)(w, x, n)


_SAVED_FOR_DAMAGE = {"everything": (_everything, (np.int64(6), np.ones(3, np.float32))),
                     "learning": (_learning, (np.float64(0.3), np.ones(3), np.int64(4)))}


def _pristine(tmp_path_factory, which="everything"):
    if which not in _PRISTINE:
        function, args = _SAVED_FOR_DAMAGE[which]
        function(*args)
        path = tmp_path_factory.mktemp("pristine") / which
        function.save(str(path))
        _PRISTINE[which] = {name: (path / name).read_bytes()
                            for name in ("graph.json", "arrays.npz")}
    return _PRISTINE[which]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(["graph.json", "arrays.npz"]),
       flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
                      min_size=1, max_size=4),
       saved=st.sampled_from(sorted(_SAVED_FOR_DAMAGE)))
def test_random_byte_flips_never_run_code_nor_crash(which, flips, saved, tmp_path_factory,
                                                     capsys):
    files = _pristine(tmp_path_factory, saved)
    capsys.readouterr()
    path = tmp_path_factory.mktemp("flipped")
    for name, data in files.items():
        data = bytearray(data)
        if name == which:
            for position, mask in flips:
                data[int(position * len(data))] ^= mask
        (path / name).write_bytes(bytes(data))
    try:
        ag.load(str(path))
    except ag.AutoGraphError:
        pass
    assert capsys.readouterr().out == ""  # loading never runs the graph's print
    shutil.rmtree(path)


_MUTANTS = [None, True, 0, -1, 1, 2 ** 70, 1.5, "x", "np.add", "<f8", "|O", [], [1], {},
            {"tensor": 0}, {"tensor": 10 ** 6}, {"float": "zz"}, {"dtype": "<f8"},
            {"array": "a0", "dtype": "<f8", "shape": [3]}, {"tuple": [1, {"tensor": 1}]},
            {"variable": 0}, {"stream": "stdout"}, {"slot": 99}, ["a", 1], {"range": [0, 5, 0]},
            {"set": [[1]]}, {"dict": [[{"list": []}, 1]]}, {"__reduce__": "os.system"}]


def _json_paths(value, path=()):
    yield path
    items = value.items() if isinstance(value, dict) else (
        enumerate(value) if isinstance(value, list) else ())
    for key, item in items:
        yield from _json_paths(item, path + (key,))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.floats(0, 1, exclude_max=True),
                                st.sampled_from(range(len(_MUTANTS) + 2))),
                      min_size=1, max_size=3),
       saved=st.sampled_from(sorted(_SAVED_FOR_DAMAGE)))
def test_valid_json_with_wrong_content_only_raises_autograph_errors(edits, saved,
                                                                    tmp_path_factory, capsys):
    """Edits that keep the JSON valid reach the checks behind the parser."""
    files = _pristine(tmp_path_factory, saved)
    capsys.readouterr()
    document = json.loads(files["graph.json"])
    for position, choice in edits:
        paths = list(_json_paths(document))[1:]
        path = paths[int(position * len(paths))]
        parent = document
        for key in path[:-1]:
            parent = parent[key]
        if choice == len(_MUTANTS) and isinstance(parent, dict):
            del parent[path[-1]]
        elif choice == len(_MUTANTS) + 1 and type(parent[path[-1]]) is int:
            parent[path[-1]] += 1
        else:
            parent[path[-1]] = json.loads(json.dumps(_MUTANTS[choice % len(_MUTANTS)]))
    path = tmp_path_factory.mktemp("edited")
    (path / "graph.json").write_text(json.dumps(document))
    (path / "arrays.npz").write_bytes(files["arrays.npz"])
    try:
        ag.load(str(path))
    except ag.AutoGraphError:
        pass
    assert capsys.readouterr().out == ""
    shutil.rmtree(path)


def _many_ops(x, idx):
    a = x.reshape(4, 3).T
    b = np.squeeze(np.expand_dims(a, 0), axis=0)
    c = np.concatenate([b, b], axis=1) + np.stack([b[0], b[1]], axis=0).sum()
    d = np.broadcast_to(np.flip(x[:3], axis=[0]), (2, 3))
    e = np.zeros_like(x, dtype=np.float32) + np.full_like(x, 2.0) + np.ones_like(x)
    f = np.linspace(x[0], x[1], 5, dtype=np.float64)
    g = np.sort(x, kind="stable") + np.argsort(x) + np.round(x, 1)
    h = np.triu(a @ a.T, k=1) + np.tril(a @ a.T) + np.tile(x[:2], [3]).sum()
    i = np.repeat(x, 2, axis=0) * np.isclose(x, 1.0, rtol=1e-3).sum() + np.allclose(x, x)
    j = np.where(x > 5, x, -x) + np.clip(x, 1, 4) + np.nonzero(a > 3)[1].sum()
    k = np.dot(a, x[:4]) + np.tensordot(a, a, axes=([1], [1])).sum() + np.einsum("ij->i", a)
    m = np.outer(x[:2], x[:3]) + np.cumsum(x).sum() + np.cumprod(x[:3], axis=0).sum()
    n = np.linalg.norm(a, axis=1) + np.std(a, axis=1) + np.var(a) + np.argmax(a, axis=1)
    o = np.take(x, idx, axis=0) + x[idx] + x[1:-1:2].sum() + x[None, ..., 0]
    p = np.add.reduce(a, axis=0) + np.multiply.accumulate(x)[:4] \
        + np.subtract.outer(x[:2], x[:2]).sum()
    q, r = np.divmod(x, 3)
    s = x.astype(np.int32).mean(keepdims=True) + np.max(a, axis=0) + np.amin(a)
    return a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s


def test_every_kind_of_op_round_trips_in_process(tmp_path):
    function = ag.function(_many_ops)
    x = np.arange(12, dtype=np.float64) / 2
    idx = np.array([0, 3, 5])
    expected = function(x, idx)
    function.save(str(tmp_path / "ops"))
    for got, want in zip(ag.load(str(tmp_path / "ops"))(x, idx), expected):
        _assert_equal(got, want)


def test_every_registered_op_has_an_attribute_schema():
    """A saved graph may only hold ops the loader can check: an op added to
    the engine needs its entry in autograph/graph/schemas.py."""
    from autograph.graph import core, schemas
    _many_ops_graph = ag.function(_many_ops).get_concrete_function(
        np.arange(12.0), np.array([0, 3, 5]))  # registers ops made on first use
    assert _many_ops_graph is not None
    missing = sorted(name for name in core.REGISTRY if schemas.schema_for(name) is None)
    assert not missing, f"ops without an attribute schema in schemas.py: {missing}"


GRADIENT_MODULE = textwrap.dedent("""
    import numpy as np
    import autograph as ag

    def loss_fn(params, x, y):
        h = np.tanh(x @ params["w0"] + params["b0"])
        z = (h @ params["w1"] + params["b1"])[:, 0]
        return np.mean(np.logaddexp(0.0, z) - y * z)

    @ag.function
    def mlp_step(params, x, y, rate):
        loss, grads = ag.value_and_grad(loss_fn)(params, x, y)
        return loss, {k: params[k] - rate * grads[k] for k in params}

    def looped(w, x, n):
        total = 0.0
        seen = []
        i = 0
        while i < n:  # staged: its tape holds each iteration's values
            total = total + np.sum(np.tanh(x * w))
            seen.append(total)
            if total > 3.0:
                break
            w = w * 1.1
            i += 1
        return total + 0.1 * np.sum(ag.stack(seen))

    @ag.function
    def loop_step(w, x, n):
        value, grad = ag.value_and_grad(looped)(w, x, n)
        return value, w - 0.01 * grad
""")


def _tape_ops(document):
    names = set()

    def walk(graph):
        for node in graph["nodes"]:
            names.add(node["op"])
            for sub in node["subgraphs"]:
                walk(sub)
    for function in document["functions"]:
        walk(function["graph"])
    return {n for n in names if n.startswith("grad.")}


def test_training_steps_round_trip_in_a_fresh_process(tmp_path):
    """A gradient step (reverse mode, and through a staged loop with a break:
    tapes in the graph) saved, then loaded and run by another process."""
    module, source = _import_user_module(tmp_path, GRADIENT_MODULE)
    rng = np.random.default_rng(3)
    params = {"w0": rng.standard_normal((2, 8)), "b0": np.zeros(8),
              "w1": rng.standard_normal((8, 1)), "b1": np.zeros(1)}
    x, y = rng.standard_normal((16, 2)), (rng.uniform(size=16) > 0.5).astype(np.float64)
    xs = np.linspace(0.0, 1.0, 5)
    calls = {"mlp_step": (module.mlp_step, [(params, x, y, np.float64(0.1)),
                                            (params, x[:5], y[:5], np.float64(0.5))]),
             "loop_step": (module.loop_step, [(np.float64(0.3), xs, np.int64(10)),
                                              (np.float64(0.3), xs, np.int64(2)),
                                              (np.float64(0.01), xs, np.int64(0))])}
    jobs, expected = {}, {}
    for name, (function, argument_sets) in calls.items():
        expected[name] = [function(*args) for args in argument_sets]
        path = tmp_path / "saved" / name
        function.save(str(path))
        jobs[name] = (str(path), argument_sets)
    loop_ops = _tape_ops(json.loads((tmp_path / "saved" / "loop_step" / "graph.json").read_text()))
    assert {"grad.tape_new", "grad.tape_push", "grad.tape_pop", "grad.tape_get",
            "grad.pack", "grad.tape_nonempty"} <= loop_ops, loop_ops
    source.unlink()
    (tmp_path / "jobs.pickle").write_bytes(pickle.dumps(jobs))
    subprocess.run([sys.executable, "-c", _RUNNER, "jobs.pickle", "results.pickle"],
                   cwd=tmp_path, env=dict(os.environ, PYTHONPATH=ROOT), check=True, timeout=120)
    results = pickle.loads((tmp_path / "results.pickle").read_bytes())
    for name, want in expected.items():
        outcomes = results[name][0]
        assert len(outcomes) == len(want)
        for (got, out, err), exp in zip(outcomes, want):
            assert got[0] == "value", (name, got)
            _assert_equal(got[1], exp)
            assert (out, err) == ("", "")
    # the break ends the loop early for the first call only: different paths ran
    assert not np.isclose(expected["loop_step"][0][1], expected["loop_step"][1][1])


def test_a_tape_where_its_loop_has_a_number_is_refused(tmp_path, capsys):
    @ag.function
    def step(w, n):
        def f(w):
            i = 0
            while i < n:
                w = np.sin(w)
                i += 1
            return w
        return ag.grad(f)(w)

    step(np.float64(0.5), np.int64(3))
    path = tmp_path / "step"
    step.save(str(path))

    def edit(document):
        loop = next(n for n in _nodes(document) if n["op"] == "while_loop"
                    and any(o["dtype"] == "|O" for o in n["outputs"]))
        tape = next(o for o in loop["outputs"] if o["dtype"] == "|O")
        tape["dtype"] = "<f8"
    _edit_json(path, edit)
    _refused(path / "graph.json", capsys, "disagree with its outputs' dtypes")


def _graphs(graph):
    yield graph
    for node in graph["nodes"]:
        for sub in node["subgraphs"]:
            yield from _graphs(sub)


def test_a_tape_op_reading_an_array_is_refused(tmp_path, capsys):
    path = tmp_path / "learning"
    _learning(np.float64(0.3), np.ones(3), np.int64(4))
    _learning.save(str(path))

    def edit(document):
        for graph in _graphs(document["functions"][0]["graph"]):
            floats = []
            for node in graph["nodes"]:
                if node["op"] == "grad.tape_get" and floats:
                    node["args"][0] = {"tensor": floats[0]}
                    return
                floats += [o["id"] for o in node["outputs"] if o["dtype"] == "<f8"]
        raise AssertionError("no tape_get after a float tensor")
    _edit_json(path, edit)
    _refused(path / "graph.json", capsys, "op 'grad.tape_get' does not accept its arguments",
             "not a tape")


def _scalar_or_array(x):
    if np.isscalar(x):
        return x * 2
    return x * 3


def test_a_loaded_graph_keeps_numpy_scalar_and_0d_array_traces_apart(tmp_path):
    staged = ag.function(_scalar_or_array)
    scalar, array = np.float64(1.0), np.array(1.0)
    staged(scalar), staged(array)
    staged.save(str(tmp_path / "kinds"))
    loaded = ag.load(str(tmp_path / "kinds"))
    for x in (array, scalar):
        assert loaded(x) == _scalar_or_array(x)


def test_a_version_1_file_takes_a_numpy_scalar_or_a_0d_array_for_a_0d_leaf(tmp_path):
    staged = ag.function(_scalar_or_array)
    staged(np.float64(1.0))
    staged.save(str(tmp_path / "old"))

    def as_version_1(document):
        document["version"] = 1
        for function in document["functions"]:
            for spec in function["leaf_specs"]:
                del spec["kind"]
    _edit_json(tmp_path / "old", as_version_1)
    loaded = ag.load(str(tmp_path / "old"))
    assert loaded(np.float64(2.0)) == loaded(np.array(2.0)) == 4.0


def test_an_unknown_leaf_kind_is_refused(saved, capsys):
    _edit_json(saved, lambda d: d["functions"][0]["leaf_specs"][0].update(kind="tensor"))
    _refused(saved / "graph.json", capsys, "a leaf kind 'tensor'")
