"""The trace's fast paths (issue 10, item 4) give what the slow ones gave:
node lines from core.line_of's tables equal `frame.f_lineno`."""

import sys
import textwrap

import numpy as np

import autograph as ag
from autograph.graph import core


def _lines_seen(code_text, name):
    """Runs `name` of `code_text`, which calls `probe()` at many places; each
    probe compares line_of with f_lineno of every frame on the stack."""
    seen = []

    def probe():
        frame = sys._getframe(1)
        while frame is not None:
            assert core.line_of(frame) == frame.f_lineno, frame
            frame = frame.f_back
        seen.append(sys._getframe(1).f_lineno)
        return 1

    namespace = {"probe": probe}
    exec(compile(textwrap.dedent(code_text), "<line_of test>", "exec"), namespace)  # noqa: S102
    result = namespace[name]()
    return seen, result


_LONG = """
def long():
    total = 0
""" + "".join(f"    total += probe() + {i}\n" if i % 3 else
              f"    total += (probe() +\n              {i})\n" for i in range(300)) + """
    for k in range(3):
        total += probe() if k else 0
    try:
        raise ValueError
    except ValueError:
        total += probe()
    gen = (probe() for _ in range(2))
    total += sum(gen)
    return total
"""


def test_line_of_is_f_lineno_at_every_call_of_a_long_function():
    seen, total = _lines_seen(_LONG, "long")
    assert total == sum(range(300)) + 300 + 2 + 1 + 2
    assert len(seen) == 305 and seen == sorted(seen[:300]) + seen[300:]


def test_line_of_answers_as_python_under_a_tracer():
    calls = []

    def tracer(frame, event, arg):
        calls.append(event)
        return tracer

    sys.settrace(tracer)
    try:
        seen, _ = _lines_seen(_LONG, "long")
    finally:
        sys.settrace(None)
    assert calls and len(seen) == 305


def test_line_of_is_f_lineno_at_every_instruction():
    """A tracer sees every instruction (f_trace_opcodes); at each, Python's
    line for it (f_lineno) against line_of's table (f_trace lifted for the
    look-up, else line_of would ask f_lineno itself)."""
    checked = []

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != "<line_of test>":
            return None
        frame.f_trace_opcodes = True
        if event == "opcode":
            frame.f_trace = None
            try:
                checked.append((core.line_of(frame), frame.f_lineno))
            finally:
                frame.f_trace = tracer
        return tracer

    code = compile(textwrap.dedent(_LONG), "<line_of test>", "exec")
    namespace = {"probe": lambda: 1}
    exec(code, namespace)  # noqa: S102
    sys.settrace(tracer)
    try:
        namespace["long"]()
    finally:
        sys.settrace(None)
    assert len(checked) > 2000
    assert [fast for fast, _ in checked] == [slow for _, slow in checked]


def _written_out(layers):
    source = "import numpy as np\n\n\ndef mlp(x, w):\n" + "".join(
        f"    x = np.tanh(x @ w[{i}]\n               + 1.0)\n" for i in range(layers))
    return source + "    return x\n"


def _locations(staged, args):
    return [n.location for n in staged.get_concrete_function(*args).graph.nodes
            if n.op is not core.PLACEHOLDER and n.op is not core.CONST]


def test_nodes_of_a_long_function_are_located_at_their_lines(tmp_path, monkeypatch):
    path = tmp_path / "written_out.py"
    path.write_text(_written_out(60))
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102
    args = (np.ones((2, 3)), [np.eye(3) * 0.5] * 60)
    for autograph in (False, True):
        core._line_tables.clear()  # (the tables made again, then read again)
        core._locations.clear()
        fast = ag.function(namespace["mlp"], autograph=autograph)
        assert np.allclose(fast(*args), namespace["mlp"](*args))
        with monkeypatch.context() as patched:  # Python's own answer, as before line_of
            patched.setattr(core, "line_of", lambda frame: frame.f_lineno)
            patched.setattr(core, "_locations", _Forgetful())  # (no instruction remembered)
            slow = ag.function(namespace["mlp"], autograph=autograph)
            slow(*args)
            want = _locations(slow, args)
        assert _locations(fast, args) == want
        assert {line for _, line in want} >= {5 + 2 * i for i in range(60)}
        assert {name for name, _ in want} == {str(path)}


class _Forgetful(dict):
    """A table of core._locations that keeps nothing: every node's line is
    looked up as the first time."""

    def __setitem__(self, key, value):
        pass


def _user_lines(fn):
    """{marker: line} of the `# L<n>` comments in `fn`'s source."""
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return {line.split("# ")[-1].strip(): first + i for i, line in enumerate(lines)
            if "# L" in line}


def _recorded_everywhere(x, w, v):
    # each entry to the recording of a node, on its own line
    a = x + v  # L1
    b = 2.0 * a  # L2
    c = -b  # L3
    d = c ** 2  # L4
    e = np.sqrt(d)  # L5
    f = e @ w  # L6
    g = f[0]  # L7
    h = np.sum(g)  # L8
    i = np.add(h, 1.0, dtype=np.float64)  # L9
    j = x.T  # L10
    k = np.multiply.reduce(j, axis=0)  # L11
    total = k.sum() + i  # L12
    for step in range(3):
        total = total * 0.5 + step  # L13
    return total


def test_nodes_are_located_at_the_users_line_whatever_the_entry():
    # apply_ufunc, record1 and the gufuncs skip the frames they know are
    # autograph's; a line is remembered per instruction: both as the walk finds it
    args = (np.ones((2, 3)), np.ones((3, 2)), np.ones(3))
    want = _user_lines(_recorded_everywhere)
    for autograph in (False, True):
        for forgetful in (False, True):
            core._locations.clear()
            if forgetful:
                core._locations = _Forgetful()
            try:
                staged = ag.function(_recorded_everywhere, autograph=autograph)
                assert np.allclose(staged(*args), _recorded_everywhere(*args))
                nodes = [n for n in staged.get_concrete_function(*args).graph.nodes
                         if n.op is not core.PLACEHOLDER and n.op is not core.CONST]
            finally:
                core._locations = {}
            lines = {n.location[1] for n in nodes}
            assert {n.location[0] for n in nodes} == {__file__}
            assert lines == set(want.values()), (autograph, forgetful)
            last = [n for n in nodes if n.location[1] == want["L13"]]
            assert len(last) == 6 and len({id(n.location) for n in last}) == 1


def test_nodes_recorded_from_a_users_call_of_record_are_at_that_line():
    from autograph.graph.ops import base, elementwise
    graph = core.Graph("direct")
    with core.scope(graph):
        x = graph.placeholder((3,), np.float32)
        node = base.record(elementwise._ufunc_op(np.add), (x, x))[0].node; line = _here()  # noqa: E702
        node1 = base.record1(elementwise._ufunc_op(np.add), (x, x)).node; line1 = _here()  # noqa: E702
    assert node.location == (__file__, line) and node1.location == (__file__, line1)


def _here():
    return sys._getframe(1).f_lineno


def test_a_line_remembered_per_instruction_is_of_that_code_object():
    # (the entry keeps its code object: none made later takes its id, its key)
    for k in range(40):
        source = "\n" * k + "def f(x):\n    return x * 3.0\n"
        namespace = {}
        exec(compile(source, f"<located {k % 2}>", "exec"), namespace)  # noqa: S102
        graph = ag.function(namespace["f"], autograph=False).get_concrete_function(
            np.ones(2)).graph
        (node,) = [n for n in graph.nodes if n.op.name == "np.multiply"]
        assert node.location == (f"<located {k % 2}>", k + 2)
        del namespace, graph, node


# --- the generalized ufuncs' rule, remembered per (shape, dtype) of its operands ---

_MATMUL_SHAPES = [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)),
                  ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((0, 4), (4, 0)),
                  ((3, 0), (0, 2)), ((3, 4), (5, 6)), ((), (4,)), ((2, 3, 4), (3, 4, 5))]
_DTYPES = [np.bool_, np.int8, np.uint8, np.int64, np.float16, np.float32, np.float64,
           np.complex64, np.complex128]


def _numpy_answer(sa, da, sb, db):
    try:
        result = np.matmul(np.ones(sa, da), np.ones(sb, db))
    except (ValueError, TypeError) as e:
        return type(e)
    return [(np.shape(result), np.asarray(result).dtype)]


def test_matmul_rule_answers_as_numpy_on_first_and_remembered_look_ups():
    from autograph.graph.ops import base, linalg
    op = linalg.gufunc_op(np.matmul)
    graph = core.Graph("memo")
    for sa, sb in _MATMUL_SHAPES:
        for da in _DTYPES:
            for db in (np.int8, np.float32, np.complex128, da):
                a, b = graph.placeholder(sa, da), graph.placeholder(sb, db)
                want = _numpy_answer(sa, da, sb, db)
                for _ in range(2):  # the rule, then the remembered answer
                    try:
                        got = op.infer(a, b)
                    except base.RuleError:
                        got = ValueError
                    except TypeError:
                        got = TypeError
                    assert got == want, (sa, da, sb, db)
                    assert got is ValueError or got is TypeError or type(got) is list


def test_matmul_with_unknown_dims_and_a_remembered_answer_per_shape():
    def fn(x, w):
        return x @ w, (x @ w) @ w.T

    staged = ag.function(fn, autograph=False)
    for rows in (3, 5, 3):
        x, w = np.ones((rows, 4), np.float32), np.full((4, 4), 0.5, np.float32)
        got = staged(x, w)
        assert all(np.array_equal(g, e) and g.dtype == e.dtype for g, e in zip(got, fn(x, w)))
    relaxed = staged.get_concrete_function(ag.TensorSpec((None, 4), np.float32),
                                           ag.TensorSpec((4, 4), np.float32))
    assert [t.static_shape for t in relaxed.graph.outputs] == [(None, 4), (None, 4)]


# --- binary ufuncs with a Python number or a 0-d operand: the other's shape ---

_NUMBERS = [True, 0, 7, -3, 200, 255, 1000, 2 ** 40, 1.5, -0.0, float("nan"), 2j]
_UFUNCS = [np.add, np.multiply, np.power, np.true_divide, np.floor_divide, np.less,
           np.maximum, np.bitwise_and, np.arctan2, np.logaddexp]


def _numpy_outcome(ufunc, *operands):
    try:
        with np.errstate(all="ignore"):
            result = ufunc(*operands)
    except (TypeError, OverflowError, ValueError) as e:
        return type(e)
    return [(np.shape(result), np.asarray(result).dtype)]


def _rule_outcome(op, *operands):
    try:
        return op.infer(*operands)
    except (TypeError, OverflowError, ValueError) as e:
        return type(e)


def _slow_outcome(ufunc, *operands):
    """What the rule's general path gives: broadcast_shapes, dtypes from numpy
    on 0-d stand-ins (its cache emptied first)."""
    from autograph.graph.ops import base, elementwise
    elementwise._dtype_cache.clear()
    try:
        shape = base.broadcast_shapes(*[base.shape_of(o) for o in operands])
        return [(shape, dt) for dt in elementwise._out_dtypes(ufunc, operands, {})]
    except (TypeError, OverflowError, ValueError) as e:
        return type(e)


def test_binary_rules_with_numbers_and_0d_operands_answer_as_their_general_path():
    from autograph.graph.ops import elementwise
    graph = core.Graph("numbers")
    for ufunc in _UFUNCS:
        op = elementwise._ufunc_op(ufunc)
        for shape in [(), (3,), (2, 3), (0,)]:
            for dtype in _DTYPES:
                tensor = graph.placeholder(shape, dtype)
                array = np.ones(shape, dtype)
                for number in _NUMBERS + [np.ones((), np.float32), np.ones((), np.int8)]:
                    operand = number if not isinstance(number, np.ndarray) else \
                        graph.placeholder((), number.dtype)
                    for order in ((tensor, operand), (operand, tensor)):
                        want = _slow_outcome(ufunc, *order)
                        for _ in range(2):  # the rule, then its cached dtypes
                            assert _rule_outcome(op, *order) == want, (ufunc, shape, dtype,
                                                                       number, order)
                        if shape != (0,):  # (numpy's own answer, where it computes one)
                            values = [array if o is tensor else number for o in order]
                            assert _numpy_outcome(ufunc, *values) == want


def test_unknown_dims_with_a_number_keep_the_tensor_shape():
    from autograph.graph.ops import elementwise
    graph = core.Graph("unknown")
    x = graph.placeholder((None, 3), np.float32)
    s = graph.placeholder((), np.float64)
    add = elementwise._ufunc_op(np.add)
    assert add.infer(x, 2.0) == [((None, 3), np.dtype(np.float32))]
    assert add.infer(2, x) == [((None, 3), np.dtype(np.float32))]
    assert add.infer(x, s) == [((None, 3), np.dtype(np.float64))]
    assert add.infer(s, 1.0) == [((), np.dtype(np.float64))]
    add.infer(x, 2.0).append("changed by its caller")  # (a remembered answer is a copy)
    assert add.infer(x, 2.0) == [((None, 3), np.dtype(np.float32))]


# --- guards._names_probed, remembered per code object by identity ---


def test_names_probed_are_remembered_by_identity_and_dropped_with_their_code():
    import gc

    from autograph.graph import guards
    source = "def f(cfg):\n    return getattr(cfg, 'scale', 1.0) + ('G' in globals())\n"
    namespace = {}
    exec(compile(source, "<probed>", "exec"), namespace)  # noqa: S102
    code = namespace.pop("f").__code__
    first = guards._names_probed(code)
    assert first == {"scale", "G"}
    assert guards._names_probed(code) is first  # (remembered)
    twin = compile(source, "<probed>", "exec").co_consts[0]  # equal, not the same object
    assert twin == code and twin is not code
    assert guards._names_probed(twin) == first
    key = id(code)
    assert key in guards._probed_by
    del code
    gc.collect()
    assert key not in guards._probed_by or guards._probed_by[key][0]() is not None


def test_unary_rules_answer_as_their_general_path():
    from autograph.graph.ops import elementwise
    graph = core.Graph("unary")
    for ufunc in (np.tanh, np.negative, np.sqrt, np.logical_not, np.invert, np.isnan,
                  np.absolute, np.modf, np.frexp, np.spacing):
        op = elementwise._ufunc_op(ufunc)
        for shape in [(), (3,), (None, 2), (0,)]:
            for dtype in _DTYPES:
                x = graph.placeholder(shape, dtype)
                want = _slow_outcome(ufunc, x)
                for _ in range(2):  # the rule, then its cached dtypes
                    assert _rule_outcome(op, x) == want, (ufunc, shape, dtype)


# --- broadcast_shapes of two fully known shapes ---


def test_broadcast_of_two_known_shapes_is_numpys_and_errors_name_both():
    import itertools

    from autograph.graph.ops import base
    shapes = [s for rank in range(4) for s in itertools.product((0, 1, 2, 3), repeat=rank)]
    for a in shapes:
        for b in shapes:
            try:
                want = np.broadcast_shapes(a, b)
            except ValueError:
                want = None
            try:
                got = base.broadcast_shapes(a, b)
            except base.RuleError as e:
                assert want is None, (a, b)
                assert str(e) == f"shapes {a} and {b} cannot be broadcast together"
            else:
                assert got == want and type(got) is tuple, (a, b)


# --- placeholders of the arguments: located at the call, unless user code makes them ---


class _Logged(list):
    """A list subclass whose constructor is Python code consuming its items."""

    def __init__(self, items):
        super().__init__(item for item in items)  # LOGGED INIT


def _line_of(marker):
    import inspect
    lines, _ = inspect.getsourcelines(sys.modules[__name__])
    return next(i + 1 for i, text in enumerate(lines) if text.rstrip().endswith(marker))


def _placeholder_locations(fn, args, slow=False):
    from autograph.graph import signature
    if slow:  # every leaf looks its line up, as before the shortcut
        signature.constructing.depth = 1
    try:
        staged = ag.function(fn, autograph=False)
        staged(*args)
        graph = staged.get_concrete_function(*args).graph
    finally:
        signature.constructing.depth = 0
    return [(p.name, p.node.location) for p in graph.inputs]


def test_argument_placeholders_are_located_as_the_frame_walk_locates_them():
    import collections
    import dataclasses

    Pair = collections.namedtuple("Pair", "a b")

    @dataclasses.dataclass
    class Box:
        w: object
        b: object

    def fn(x, nested, pair, box, logged, scalar):
        return x + nested["k"][0] + pair.a + box.w + logged[0] + scalar

    one = np.ones(3)
    args = (one, {"k": [one, (one, one)], "j": one}, Pair(one, one), Box(one, one),
            _Logged([one, one]), np.float64(2.0))
    fast = _placeholder_locations(fn, args)
    slow = _placeholder_locations(fn, args, slow=True)
    assert fast == slow
    here = {location for _, location in fast}
    logged_line = _line_of("# LOGGED INIT")
    assert (__file__, logged_line) in here  # made while the subclass's __init__ ran
    assert len(here) == 2
    assert [name for name, location in fast if location == (__file__, logged_line)] == \
        ["logged_0", "logged_1"]


# --- the rules' 0-d stand-ins, made once per dtype object ---


def test_rule_stand_ins_are_kept_per_dtype_and_answer_as_fresh_ones():
    from autograph.graph.ops import base, elementwise
    graph = core.Graph("stand-ins")
    dtypes = [np.dtype(np.float32), np.dtype(">f8"), np.dtype(np.int8), np.dtype(np.bool_),
              np.dtype(object), np.dtype(np.complex64), np.dtype("m8[s]"),
              np.dtype(np.float64, metadata={"unit": "m"})]
    for dtype in dtypes:
        x, y = graph.placeholder((2,), dtype), graph.placeholder((), dtype)
        stand_in = base.example(x)
        assert stand_in is base.example(y) is base.ones(dtype) and stand_in.dtype is dtype
        assert stand_in.shape == () and not stand_in.flags.writeable
        for ufunc, operands in ((np.add, (x, y)), (np.multiply, (x, 2)),
                                (np.negative, (x,)), (np.less, (1.5, x))):
            elementwise._dtype_cache.clear()
            try:
                with np.errstate(all="ignore"):
                    fresh = ufunc(*[np.ones((), dtype) if o is x or o is y else o
                                    for o in operands])
                want = (np.asarray(fresh).dtype,)
            except TypeError as e:
                want = type(e)
            try:
                got = elementwise._out_dtypes(ufunc, operands, {})
            except TypeError as e:
                got = type(e)
            assert got == want, (dtype, ufunc)
            assert got is want or all(g.metadata == w.metadata for g, w in zip(got, want))
