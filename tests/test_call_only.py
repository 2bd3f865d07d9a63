"""call_only.py builds the module of a function whose conversion only wraps
its calls without the pass pipeline: it must be the pipeline's module, node
for node and position for position (so the same code object), for every
such function -- the corpus's, the examples', this file's -- and it must
decline everything else."""

import ast
import dis
import importlib
import inspect
import sys
import types

import numpy as np
import pytest

import autograph as ag
from autograph import call_only, transpiler, trees
from autograph.context import ConversionOptions

OPTIONS = ConversionOptions()


def _pipeline_module(fn):
    node, ctx, plain = transpiler.transform(fn, OPTIONS)
    module = trees.gast_to_located_ast_in_place(transpiler._factory(node, fn))
    if plain is not None:
        transpiler._attach_plain_body(module.body[0].body[0], plain)
    return module, ctx


def _fast_module(fn):
    return call_only.module_for(fn, transpiler._factory_params(fn), transpiler.ENTITY)


# --- functions that are call-only -------------------------------------------------------

SCALE = 2.0


def layer(x, w, b):
    return np.tanh(x @ w + b)


def with_docstring(x):
    """Doc."""
    y = np.exp(-x)
    return y / np.sum(y, axis=0, keepdims=True)


def multi_line_call(x, w):
    y = np.maximum(
        x @ w,
        0.0,
    )
    return y.reshape(-1)[1:3], ~np.isnan(y)


def calls_in_slices_and_keywords(x):
    a, b = np.split(x, 2)
    return a[np.argmax(b):], np.clip(a, a_min=np.min(b), a_max=SCALE * np.max(b))


def calls_a_user_function(x, w, b):
    h = layer(x, w, b)
    return layer(h, w.T, b)


def call_of_a_call(x):
    return make_closure(2.0)(x) + np.vectorize(
        np.sin)(x)


def _identity(fn):
    return fn


@_identity
def decorated(x: np.ndarray, *rest, scale=np.float64(2.0), **options) -> np.ndarray:
    return np.multiply(x, scale)


def doc_only(x):
    """Only a docstring."""


def no_return(x):
    y = np.sin(x)  # noqa: F841 (a function without a return)


class Model:
    def forward(self, x):
        h = self.hidden(x)
        return np.tanh(h) * self.scale

    def hidden(self, x):
        return x * 2.0


def make_closure(k):
    def scaled(x):
        return np.exp(x) * k
    return scaled


def list_literal(x):
    return np.stack([x, x])


def displays(x, k):
    return {"a": np.exp(x), k: [x, {np.sin(x)}]}


def tuple_of_calls_and_names(x):
    return x, np.sin(x), (1.0, np.cos(x)), -np.exp(x)


def calls_in_slice_parts(x):
    return x[1:np.argmax(x):2], x[::np.int64(1)], x[np.newaxis, :]


CALL_ONLY = [tuple_of_calls_and_names, calls_in_slice_parts, layer, with_docstring, multi_line_call, calls_in_slices_and_keywords,
             calls_a_user_function, call_of_a_call, decorated, doc_only, no_return, Model.forward, Model.hidden,
             make_closure(3.0), list_literal, displays]


# --- functions that are not ---------------------------------------------------------------

def branches(x):
    if x > 0:
        x = -x
    return x


def loops(x):
    for _ in range(3):
        x = x + 1
    return x


def prints(x):
    y = x + 1
    print(y)
    return y


def measures(x):
    return np.zeros(len(x))


def appends(x):
    out = np.zeros(3)
    out = list(out)
    out.append(x)
    return out


def logical(x, y):
    return np.sum(x) and np.sum(y)


def negates(x):
    return not np.any(x)


def compares(x):
    return np.sum(x) > 0


def conditional(x):
    return np.sum(x) if x.size else 0.0


def comprehension(xs):
    return np.stack(tuple(np.sin(x) for x in xs))


def lambdas(x):
    f = lambda v: v + 1  # noqa: E731
    return f(x)


def asserts(x):
    assert np.all(x > 0)
    return x


def augmented(x):
    x += np.ones_like(x)
    return x


def stores_an_item(x):
    x[0] = np.sum(x)
    return x


def stores_an_attribute(box, x):
    box.w = np.tanh(x)
    return box.w


def starred(xs):
    return np.maximum(*xs)


def double_star(x, kw):
    return np.sum(x, **kw)


def declares_global(x):
    global SCALE
    SCALE = np.sum(x)
    return SCALE


def directive(x):
    ag.set_loop_options(maximum_iterations=3)
    return x


def call_statement(x):
    np.sin(x)
    return x


def early_return(x):
    return np.sin(x)
    y = x  # noqa: F841 (unreachable)


def generator(x):
    yield np.sin(x)


def uses_generated_names(x):
    return ag__.converted(np.sin, None)(x)  # noqa: F821 (never called)


def parameter_named_fscope(fscope, x):
    return np.sin(x) + fscope


def refused_in_a_tuple(x):
    return np.sin(x), x > 0


def refused_in_a_keyword(x):
    return np.sum(x, axis=len(x.shape) - 1)


def refused_callee(x):
    return (x > 0).sum(np.cos(x))


def refused_in_a_slice(x):
    return np.sin(x)[:(x > 0)]


def refused_in_a_display(x):
    return [np.sin(x), {"k": x > 0}]


def unpacked_in_a_dict(x, d):
    return {**d, "x": np.sin(x)}


NOT_CALL_ONLY = [refused_in_a_tuple, refused_in_a_keyword, refused_callee, refused_in_a_slice,
                 refused_in_a_display, unpacked_in_a_dict,
                 branches, loops, prints, measures, appends, logical, negates,
                 compares, conditional, comprehension, lambdas, asserts, augmented,
                 stores_an_item, stores_an_attribute, starred, double_star, declares_global,
                 directive, call_statement, early_return, generator, uses_generated_names,
                 parameter_named_fscope, lambda x: np.sin(x)]


def _module_functions(module):
    """The plain functions and methods defined in `module` itself."""
    found = []
    for value in vars(module).values():
        candidates = [value]
        if isinstance(value, type) and value.__module__ == module.__name__:
            candidates = list(vars(value).values())
        for candidate in candidates:
            if isinstance(candidate, (staticmethod, classmethod)):
                candidate = candidate.__func__
            if isinstance(candidate, types.FunctionType) and \
                    candidate.__module__ == module.__name__:
                found.append(candidate)
    return found


def _repository_functions():
    names = ["tests.corpus.programs", "examples.classic", "examples.train_mlp",
             "examples.demo", "tests.staged.programs"]
    found = []
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError as e:  # (a module the checkout lacks would say so here)
            pytest.fail(f"cannot import {name}: {e}")
        found += _module_functions(module)
    return found + _module_functions(sys.modules[__name__])


@pytest.mark.parametrize("fn", CALL_ONLY, ids=lambda f: f.__qualname__)
def test_call_only_functions_get_the_pipelines_module(fn):
    fast = _fast_module(fn)
    assert fast is not None, "expected call-only"
    pipeline, ctx = _pipeline_module(fn)
    assert not ctx.namer.generated
    assert ast.dump(fast, include_attributes=True) == ast.dump(pipeline, include_attributes=True)


@pytest.mark.parametrize("fn", NOT_CALL_ONLY, ids=lambda f: f.__qualname__)
def test_other_functions_take_the_pipeline(fn):
    assert _fast_module(fn) is None


def test_every_call_only_function_of_the_repository_gets_the_pipelines_module():
    checked = 0
    for fn in _repository_functions():
        if inspect.isgeneratorfunction(fn) or fn.__code__.co_name == "<lambda>":
            continue
        try:
            fast = _fast_module(fn)
        except Exception as e:  # noqa: BLE001 - say which function
            pytest.fail(f"{fn.__qualname__}: {e!r}")
        if fast is None:
            continue
        pipeline, ctx = _pipeline_module(fn)
        assert not ctx.namer.generated, fn.__qualname__
        assert ast.dump(fast, include_attributes=True) == \
            ast.dump(pipeline, include_attributes=True), fn.__qualname__
        checked += 1
    assert checked >= 12  # (the search must find some, or it proves nothing)


def test_to_code_of_a_call_only_function_is_the_pipelines():
    transpiler.clear_caches()
    converted = ag.to_graph(calls_a_user_function)  # built without the pipeline
    assert converted(np.ones(2), np.eye(2), np.zeros(2)).shape == (2,)
    node, _, plain = transpiler.transform(calls_a_user_function, OPTIONS)
    tree = trees.gast_to_ast(node)
    if plain is not None:
        transpiler._attach_plain_body(tree, plain)
    assert ag.to_code(calls_a_user_function).rstrip("\n") == ast.unparse(tree)
    assert "ag__.converted(layer, fscope)(x, w, b)" in ag.to_code(calls_a_user_function)


def test_a_call_only_model_traces_and_matches_numpy():
    w = np.arange(4.0).reshape(2, 2) / 4
    b = np.array([0.5, -0.5])
    x = np.array([[1.0, 2.0]])
    staged = ag.function(calls_a_user_function)
    np.testing.assert_array_equal(staged(x, w, b), calls_a_user_function(x, w, b))
    model = Model()
    model.scale = 3.0
    np.testing.assert_array_equal(ag.function(model.forward)(x), model.forward(x))


def test_a_name_made_a_builtin_after_import_is_read_when_converting(monkeypatch):
    # call_trees leaves a builtin's call alone, so call_only must decline it,
    # reading builtins now (gettext.install() adds `_` at run time)
    import builtins

    assert _fast_module(calls_late_builtin) is not None
    monkeypatch.setattr(builtins, "late_builtin", np.sin, raising=False)
    assert _fast_module(calls_late_builtin) is None


def calls_late_builtin(x):
    return late_builtin(x)  # noqa: F821 (a builtin in the test above)


def test_to_code_shows_what_was_converted_even_after_the_file_changes(tmp_path, monkeypatch):
    path = tmp_path / "edited_module.py"
    path.write_text("import numpy as np\n\n\ndef f(x):\n    y = np.sin(x)\n    return y\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("edited_module")
    try:
        transpiler.clear_caches()
        assert ag.to_graph(module.f)(0.0) == 0.0
        path.write_text("import numpy as np\n\n\ndef g(x):\n    return np.cos(x) * 100\n")
        text = ag.to_code(module.f)
        assert "ag__.converted(np.sin, fscope)(x)" in text and "cos" not in text
    finally:
        sys.modules.pop("edited_module", None)


def _jumps_by_dis(code):
    """Whether `code` has a jump, as `dis` decodes its instructions."""
    jumps = set(dis.hasjrel) | set(dis.hasjabs)
    return any(instruction.opcode in jumps for instruction in dis.get_instructions(code))


def _all_code(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _all_code(const)


def _many_names():
    """A function without a jump whose arguments take every byte value: a
    scan that took an argument for an opcode would find a jump in it."""
    names = [f"v{k}" for k in range(300)]
    text = "def many(" + ", ".join(names) + "):\n    return (" + ", ".join(
        f"{name}.a{k}" for k, name in enumerate(names)) + ")\n"
    scope = {}
    exec(text, scope)
    return scope["many"]


def test_the_bytecode_scan_finds_every_jump_dis_finds():
    # _may_be_call_only searches the raw wordcode for a jump opcode at an
    # even offset: the same answer as decoding it, for every code object
    # of the repository's functions (loops, branches, and, or, ...)
    checked = with_jumps = 0
    for fn in _repository_functions() + CALL_ONLY + NOT_CALL_ONLY + [_many_names()]:
        for code in _all_code(fn.__code__):
            has_jump = _jumps_by_dis(code)
            assert call_only._has_jump(code) == has_jump, code.co_qualname
            checked += 1
            with_jumps += has_jump
    assert checked > 100 and 0 < with_jumps < checked
