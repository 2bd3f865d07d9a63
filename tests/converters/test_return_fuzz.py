"""Randomly generated functions full of jumps: the lowered code (return, break
and continue passes) must print, return and raise exactly as the original."""

import importlib.util
import random
import sys

import pytest

import autograph as ag
import test_return_harness as harness

HELPERS = '''
class Boom(Exception):
    pass


class CM:
    def __init__(self, name, suppress=False):
        self.name, self.suppress = name, suppress

    def __enter__(self):
        print("enter", self.name)
        return self

    def __exit__(self, *exc):
        print("exit", self.name, exc[0].__name__ if exc[0] else None)
        return self.suppress


def nxt(bits):
    return bits.pop() if bits else False


def items(bits, tag):
    for i in range(3):
        print("fetch", tag, i)
        yield i
'''


class _Gen:
    def __init__(self, rng):
        self.rng = rng
        self.n = 0

    def tag(self):
        self.n += 1
        return self.n

    def block(self, depth, loops, indent):
        stmts = [self.stmt(depth, loops, indent) for _ in range(self.rng.randint(1, 3))]
        return "".join(stmts)

    def stmt(self, depth, loops, indent):
        pad = "    " * indent
        choices = ["print", "print", "return"]
        if loops:
            choices += ["break", "continue"]
        if depth > 0:
            choices += ["if", "if", "for", "while", "try", "with", "raise"]
        kind = self.rng.choice(choices)
        t = self.tag()
        inner = lambda lp=loops: self.block(depth - 1, lp, indent + 1)
        if kind == "print":
            return f"{pad}print('s{t}')\n"
        if kind == "return":
            value = self.rng.choice(["", f" {t}", f" out('r{t}')"])
            return f"{pad}return{value}\n"
        if kind in ("break", "continue"):
            return f"{pad}if nxt(bits):\n{pad}    {kind}\n" if self.rng.random() < 0.7 \
                else f"{pad}{kind}\n"
        if kind == "raise":
            return f"{pad}if nxt(bits):\n{pad}    raise Boom('b{t}')\n"
        if kind == "if":
            text = f"{pad}if nxt(bits):\n{inner()}"
            if self.rng.random() < 0.5:
                text += f"{pad}elif nxt(bits):\n{inner()}"
            if self.rng.random() < 0.5:
                text += f"{pad}else:\n{inner()}"
            return text
        if kind == "for":
            text = f"{pad}for i{t} in items(bits, {t}):\n{inner(True)}"
            if self.rng.random() < 0.4:
                text += f"{pad}else:\n{inner()}"
            return text
        if kind == "while":
            text = f"{pad}while nxt(bits):\n{inner(True)}"
            if self.rng.random() < 0.4:
                text += f"{pad}else:\n{inner()}"
            return text
        if kind == "try":
            text = f"{pad}try:\n{inner()}{pad}except Boom as e{t}:\n{pad}    print('caught', e{t})\n{inner()}"
            if self.rng.random() < 0.5:
                text += f"{pad}else:\n{inner()}"
            if self.rng.random() < 0.5:
                text += f"{pad}finally:\n{pad}    print('finally {t}')\n"
            return text
        suppress = self.rng.random() < 0.3
        return f"{pad}with CM({t}, {suppress}):\n{inner()}"


def _make_module(tmp_path, seed, count):
    rng = random.Random(seed)
    parts = [HELPERS, "\n\ndef out(x):\n    print('value', x)\n    return x\n"]
    for k in range(count):
        gen = _Gen(rng)
        parts.append(f"\n\ndef f{k}(bits):\n    print('start')\n{gen.block(3, False, 1)}")
    path = tmp_path / f"jumps_fuzz_{seed}.py"
    path.write_text("".join(parts))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module, count


@pytest.mark.parametrize("seed,full_pipeline", [(s, False) for s in range(6)] + [(6, True)])
def test_random_jumps_behave_like_python(tmp_path, seed, full_pipeline):
    """Just our passes (fast), and once through the whole pipeline (to_graph)."""
    module, count = _make_module(tmp_path, seed, 4 if full_pipeline else 25)
    rng = random.Random(seed)
    for k in range(count):
        fn = getattr(module, f"f{k}")
        converted = ag.to_graph(fn) if full_pipeline else harness.convert(fn, harness.MINE)
        for _ in range(12):
            bits = [rng.random() < 0.5 for _ in range(rng.randint(0, 12))]
            expected = harness.run(fn, list(bits))
            actual = harness.run(converted, list(bits))
            assert actual == expected, (
                f"f{k} with bits={bits}\n{harness.to_source(fn)}\n"
                f"converted: {actual}\noriginal:  {expected}")
