"""aliases._stores_after reads the few instructions after a pending call
(what its result is stored into) by decoding the bytecode from there
(aliases._decoded_after): the same instructions, opnames and argvals as
dis.get_instructions, which decodes the whole code object."""

import dis
import os
import sys
import types

import pytest

from autograph.runtime import aliases

_SKIPPED = ("PRECALL", "CACHE", "NOP", "EXTENDED_ARG")


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _sources():
    """Code to compare on: autograph's own modules and part of the stdlib."""
    package = os.path.dirname(os.path.dirname(aliases.__file__))
    stdlib = os.path.dirname(os.__file__)
    found = [os.path.join(root, name) for root, _, names in os.walk(package)
             for name in names if name.endswith(".py")]
    found += [os.path.join(stdlib, name) for name in sorted(os.listdir(stdlib))[:15]
              if name.endswith(".py")]
    return found


def _by_dis(code, offset, instructions):
    return [i for i in instructions if i.offset > offset and i.opname not in _SKIPPED]


@pytest.mark.skipif(not aliases._DECODED_VERSION, reason="dis decodes on this Python version")
def test_decoded_instructions_match_dis_at_every_offset():
    compared = 0
    for path in _sources():
        with open(path, encoding="utf-8") as f:
            try:
                top = compile(f.read(), path, "exec")
            except SyntaxError:
                continue
        for code in _code_objects(top):
            instructions = list(dis.get_instructions(code))
            for ins in instructions:
                if ins.opname == "EXTENDED_ARG":
                    continue  # (a prefix: a pending call's offset is the call's own)
                decoded = aliases._decoded_after(code, ins.offset)
                expected = _by_dis(code, ins.offset, instructions)[:len(decoded)]
                assert [(d.opname, d.arg) for d in decoded] == \
                    [(e.opname, e.arg) for e in expected], (path, code.co_name, ins.offset)
                read = [(d.argval, e.argval) for d, e in zip(decoded, expected)
                        if d.opname in aliases._READ_PAST_CALL]
                assert all(a == b or a is b for a, b in read), (path, code.co_name, ins.offset)
                # it stops at the first instruction _stores_after does not read, or the end
                if len(decoded) < len(_by_dis(code, ins.offset, instructions)):
                    assert decoded[-1].opname not in aliases._READ_PAST_CALL
                compared += 1
    assert compared > 10000


def _stores_after_by_dis(code, offset):
    saved = aliases._instructions_after
    aliases._instructions_after = lambda c, o: _by_dis(c, o, list(dis.get_instructions(c)))
    try:
        return aliases._stores_after(code, offset)
    finally:
        aliases._instructions_after = saved


def _pending_calls(code):
    return [i.offset for i in dis.get_instructions(code) if i.opname.startswith("CALL")]


def test_rebound_names_as_dis_tells_them():
    def sample(obj, d, f):
        a = f()
        b, c = f()
        obj.attr = f()
        d["k"] = f()
        x, obj.y, d["z"] = f()
        print(a, b, c, x)
        with open(__file__):
            return f()

    offsets = _pending_calls(sample.__code__)
    got = [aliases._stores_after(sample.__code__, o) for o in offsets]
    assert got == [_stores_after_by_dis(sample.__code__, o) for o in offsets]
    assert {"a"} in got and {"b", "c"} in got and {"obj.attr"} in got and {"d['k']"} in got
    assert {"x", "obj.y", "d['z']"} in got and aliases._RETURNED in got


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
