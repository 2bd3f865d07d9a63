"""Random programs for the staged differential fuzzer (test_fuzz.py and
benchmarks/fuzz_staged.py).

A program is the source of one function `f(x, n, a)` -- `x` a float64 or
float32 array, `n` an int64, int32 or uint8 scalar, `a` a float64 or float32
scalar -- built from nested
`if`/`elif`/`else`, `while`, `for` over a staged range, over the staged array
and over a Python range, `break`, `continue`, `return`, loop `else`, `and`/
`or`/`not`, `print`, calls of a module-level helper and (as features)
closures, dicts and lists; Python loops over a dict's keys and over a list
of arrays' indices updating their entries ("entries"), and a dict of lists
appended to as a log ("log"), both inside staged loops and branches.  Every path returns the same structure, every
variable is bound before the control flow starts and no operation can raise
(a uint8 or int32 count may wrap, as numpy's scalars do, with numpy's
warning), so the plain run always succeeds and a staged run must give the same
numbers, print the same text, or refuse with a catalog error.

The choices come from a `Chooser`: `RandomChooser` (a seeded `random.Random`,
for long runs) or `DataChooser` (hypothesis' `data.draw`, which shrinks a
failing program to a small one).
"""

import copy
import random
import re

# Features a program may use.  Each is a class of staged pattern; a run picks
# the ones it exercises (test_fuzz.py documents why some are left out of CI).
FEATURES = ("if", "while", "for_range", "for_array", "python_for", "break", "continue",
            "return", "loop_else", "logic", "print", "call", "closure", "dict", "list",
            "try", "with", "entries", "log")

PRELUDE = '''\
import numpy as np


def helper(z):
    return z * 0.5 + 1.25


class Ctx:
    """A context manager for `with` blocks (its exit does not swallow errors)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

'''


class RandomChooser:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choice(self, options):
        return options[self.rng.randrange(len(options))]

    def integer(self, lo, hi):
        return self.rng.randint(lo, hi)


class DataChooser:
    """Choices drawn from hypothesis, so that failures shrink."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data, self.st = data, st

    def choice(self, options):
        return self.data.draw(self.st.sampled_from(options))

    def integer(self, lo, hi):
        return self.data.draw(self.st.integers(lo, hi))


class _Scope:
    # quiet: inside a `finally` body, which runs on every path, so not under a
    # staged guard: a print of a Python value there would run once, while
    # tracing, as any print of a Python value outside staged code does
    # no_return / only_jump: a `finally` body holds one kind of jump (two kinds
    # in one are refused at conversion); loops inside it may break/continue
    # unguarded: not inside a staged `if` or loop (the function's top level, a
    # Python `for` or an `if` on its index there): a constant stored there
    # makes the variable a Python value, and a print of it runs while tracing
    __slots__ = ("loop", "item", "index", "quiet", "no_return", "only_jump", "unguarded")

    def __init__(self, loop=None, item=None, index=None, quiet=False, no_return=False,
                 only_jump=None, unguarded=False):
        self.loop, self.item, self.index, self.quiet = loop, item, index, quiet
        self.no_return, self.only_jump, self.unguarded = no_return, only_jump, unguarded

    def inner_loop(self, loop, item, index, staged=True):
        return _Scope(loop=loop, item=item, index=index, quiet=self.quiet,
                      no_return=self.no_return, unguarded=self.unguarded and not staged)

    def guarded(self):
        inner = copy.copy(self)
        inner.unguarded = False
        return inner


class ProgramWriter:
    """Writes one random program using only `features`."""

    def __init__(self, chooser, features, max_depth=3, max_statements=3):
        self.c = chooser
        self.features = set(features)
        self.max_depth, self.max_statements = max_depth, max_statements
        self.lines = []
        self.loops = 0  # names loop counters and items uniquely
        self.used = set()

    def has(self, feature):
        return feature in self.features

    # --- expressions --------------------------------------------------------

    def float_atom(self, scope):
        options = ["a", "s", "t", "1.5", "-0.75"]
        if scope.item:
            options += [scope.item, scope.item]
        if scope.index:
            options.append(f"{scope.index} * 0.25")
        if self.has("dict") or self.has("entries"):
            options.append("d['k']")
        if self.has("entries"):
            options.append("d['m']")
        if self.has("closure"):
            options.append("scaled(s)")
        return self.c.choice(options)

    def float_expr(self, scope):
        atom = self.float_atom(scope)
        form = self.c.choice(["{v} + {a}", "{v} - {a}", "{v} * 0.5 + {a}", "np.sin({v}) + {a}",
                              "{a}", "helper({v})" if self.has("call") else "{v} + 1.0"])
        if "helper" in form:
            self.used.add("call")
        if (scope.quiet or scope.unguarded) and form == "{a}":
            # a `finally` body is not under a staged guard: a constant stored
            # there would make the variable a Python value for the prints after it
            form = "{v} + {a}"
        return form.format(v=self.c.choice(["s", "t"]), a=atom)

    def int_expr(self, scope):
        options = ["c + 1", "c - 1", "c + 2"]
        if scope.index:
            options.append(f"c + {scope.index}")
        return self.c.choice(options)

    def comparison(self, scope):
        options = ["s > t", "s < a", "t > 0.5", "c % 2 == 0", "c > 2", "s > 1.0"]
        if scope.item:
            options += [f"{scope.item} > 0.0", f"{scope.item} < s"]
        if scope.index:
            options.append(f"{scope.index} % 3 == 1")
        if self.has("dict"):
            options.append("d['k'] > 0.0")
        return self.c.choice(options)

    def condition(self, scope):
        test = self.comparison(scope)
        if self.has("logic") and self.c.integer(0, 3) == 0:
            self.used.add("logic")
            form = self.c.choice(["{} and {}", "{} or {}", "not ({})", "not {} and {}"])
            parts = [test, self.comparison(scope)]
            return form.format(*parts[:form.count("{}")])
        return test

    # --- statements ---------------------------------------------------------

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def block(self, indent, depth, scope):
        for _ in range(self.c.integer(1, self.max_statements)):
            self.statement(indent, depth, scope)

    def statement(self, indent, depth, scope):
        kinds = ["assign_s", "assign_t", "assign_c"]
        if depth < self.max_depth:
            # `if` is listed twice: branches are the most common statement
            kinds += [k for k in ("if", "while", "for_range", "for_array", "python_for", "if",
                                  "try", "with")
                      if self.has(k)]
        if scope.loop:
            kinds += [k for k in ("break", "continue")
                      if self.has(k) and scope.only_jump in (None, k)]
        if self.has("return") and depth > 0 and not scope.no_return:
            kinds.append("return")
        for feature in ("print", "dict", "list", "entries", "log"):
            if self.has(feature) and not (feature == "print" and scope.quiet):
                kinds.append(feature)
        getattr(self, "_" + self.c.choice(kinds))(indent, depth, scope)

    def _assign_s(self, indent, depth, scope):
        self.emit(indent, f"s = {self.float_expr(scope)}")

    def _assign_t(self, indent, depth, scope):
        self.emit(indent, f"t = {self.float_expr(scope)}")

    def _assign_c(self, indent, depth, scope):
        self.emit(indent, f"c = {self.int_expr(scope)}")

    def _print(self, indent, depth, scope):
        self.used.add("print")
        self.emit(indent, f"print('at', {self.c.choice(['c', 's', 't'])})")

    def _dict(self, indent, depth, scope):
        self.used.add("dict")
        self.emit(indent, f"d['k'] = d['k'] + {self.float_atom(scope)}")

    def _item_atom(self, scope):
        atom = self.float_atom(scope)
        if atom[0].isdigit() or atom[0] == "-" or atom.endswith("* 0.25"):
            # a Python float among numpy items: a list of both kinds is refused
            # (mixed_list_message), so the list stays one kind
            atom = f"np.float64({atom})"
        return atom

    def _list(self, indent, depth, scope):
        self.used.add("list")
        self.emit(indent, f"acc.append({self._item_atom(scope)})")

    def _entries(self, indent, depth, scope):
        # a Python loop over a Python container (its keys or indices are
        # Python values), updating each entry: inside a staged loop or branch
        # the entries are what the staged statement carries
        self.used.add("entries")
        form = self.c.choice(["keys", "list_keys", "indices"])
        name = f"e{self._new_loop()}"
        if form == "indices":
            self.emit(indent, f"for {name} in range(len(lst)):")
            self.emit(indent + 1, f"lst[{name}] = lst[{name}] * {self.float_atom(scope)}")
        else:
            self.emit(indent, f"for {name} in {'d' if form == 'keys' else 'list(d)'}:")
            self.emit(indent + 1, f"d[{name}] = d[{name}] + {self.float_atom(scope)}")

    def _log(self, indent, depth, scope):
        self.used.add("log")
        self.emit(indent, f"log['v'].append({self._item_atom(scope)})")

    def _if(self, indent, depth, scope):
        self.used.add("if")
        test = self.condition(scope)
        self.emit(indent, f"if {test}:")
        # a test reading a Python `for`'s index may be a Python `if` (`j1 % 3 ==
        # 1 or ...` is Python's True): its arms are as guarded as the `if` itself
        python_test = re.search(r"\bj\d+\b", test) is not None
        arm_scope = scope if python_test else scope.guarded()
        self.block(indent + 1, depth + 1, arm_scope)
        arms = self.c.integer(0, 2)
        for _ in range(arms - 1):
            self.emit(indent, f"elif {self.condition(scope)}:")
            self.block(indent + 1, depth + 1, arm_scope)
        if arms:
            self.emit(indent, "else:")
            self.block(indent + 1, depth + 1, arm_scope)

    def _jump(self, indent, scope, keyword):
        self.used.add(keyword)
        # an unconditional jump would leave dead code behind: guard it
        self.emit(indent, f"if {self.condition(scope)}:")
        self.emit(indent + 1, keyword)

    def _break(self, indent, depth, scope):
        self._jump(indent, scope, "break")

    def _continue(self, indent, depth, scope):
        self._jump(indent, scope, "continue")

    def _return(self, indent, depth, scope):
        self.used.add("return")
        self.emit(indent, f"if {self.condition(scope)}:")
        self.emit(indent + 1, "return " + self.result())

    def _try(self, indent, depth, scope):
        # jumps inside the `try` body cross the `finally` body, which runs on
        # every path and may jump itself (it wins over the pending jump)
        self.used.add("try")
        self.emit(indent, "try:")
        self.block(indent + 1, depth + 1, scope)
        self.emit(indent, "finally:")
        kinds = [k for k in ("break", "continue") if scope.loop and scope.only_jump in (None, k)]
        if not scope.no_return:
            kinds.append("return")
        kind = self.c.choice(kinds) if kinds else None
        self.block(indent + 1, depth + 1, _Scope(
            loop=scope.loop if kind in ("break", "continue") else None, index=scope.index,
            item=scope.item, quiet=True, no_return=kind != "return", only_jump=kind))

    def _with(self, indent, depth, scope):
        self.used.add("with")
        self.emit(indent, "with Ctx():")
        self.block(indent + 1, depth + 1, scope)

    def _loop_else(self, indent, depth, scope):
        if self.has("loop_else") and self.c.integer(0, 2) == 0:
            self.used.add("loop_else")
            self.emit(indent, "else:")
            self.emit(indent + 1, f"t = {self.float_expr(scope)}")

    def _new_loop(self):
        self.loops += 1
        return self.loops

    def _while(self, indent, depth, scope):
        self.used.add("while")
        k = self._new_loop()
        counter = f"k{k}"
        bound = self.c.choice(["n", "n + 1", "3"])
        self.emit(indent, f"{counter} = n * 0")
        # the counter moves first, so `continue` cannot make the loop endless
        self.emit(indent, f"while {counter} < {bound}:")
        self.emit(indent + 1, f"{counter} = {counter} + 1")
        self.block(indent + 1, depth + 1, scope.inner_loop("while", None, scope.index))
        self._loop_else(indent, depth, scope)

    def _for(self, indent, depth, scope, feature, prefix, iterable, as_item):
        self.used.add(feature)
        target = f"{prefix}{self._new_loop()}"
        self.emit(indent, f"for {target} in {iterable}:")
        staged = feature != "python_for"
        inner = (scope.inner_loop("for", target, scope.index, staged) if as_item
                 else scope.inner_loop("for", scope.item, target, staged))
        self.block(indent + 1, depth + 1, inner)
        self._loop_else(indent, depth, scope)

    def _for_range(self, indent, depth, scope):
        bound = self.c.choice(['n', 'n - 1', '1, n'])
        self._for(indent, depth, scope, "for_range", "i", f"range({bound})", as_item=False)

    def _python_for(self, indent, depth, scope):
        self._for(indent, depth, scope, "python_for", "j", f"range({self.c.integer(0, 3)})",
                  as_item=False)

    def _for_array(self, indent, depth, scope):
        self._for(indent, depth, scope, "for_array", "v", "x", as_item=True)

    # --- the whole function ---------------------------------------------------

    def result(self):
        parts = ["s", "t", "c"]
        if self.has("dict") or self.has("entries"):
            parts.append("d['k']")
        if self.has("entries"):
            parts += ["d['m']", "lst[0]", "lst[1]"]
        if self.has("list"):
            parts.append("len(acc)")
        if self.has("log"):
            parts.append("len(log['v'])")
        return "(" + ", ".join(parts) + ")"

    def write(self):
        self.emit(0, "def f(x, n, a):")
        self.emit(1, "s = a * 0.0")
        self.emit(1, "t = a + 0.5")
        self.emit(1, "c = n * 0")
        if self.has("entries"):
            self.emit(1, "d = {'k': a, 'm': a * 2.0}")
            self.emit(1, "lst = [x + 0.0, x * 0.5]")
        elif self.has("dict"):
            self.emit(1, "d = {'k': a}")
        if self.has("list"):
            self.emit(1, "acc = []")
        if self.has("log"):
            self.emit(1, "log = {'v': []}")
        if self.has("closure"):
            self.used.add("closure")
            self.emit(1, "def scaled(z):")
            self.emit(2, "return z * 0.5 + t")
        self.block(1, 0, _Scope(unguarded=True))
        self.emit(1, "return " + self.result())
        return PRELUDE + "\n".join(self.lines) + "\n"


def write_program(chooser, features, **limits):
    """(source, features the program really uses)."""
    writer = ProgramWriter(chooser, features, **limits)
    source = writer.write()
    return source, frozenset(writer.used)


def argument_sets(chooser):
    """Argument sets (numpy values) for one program: empty and short arrays,
    zero, one and a few iterations; float64 or float32 arrays and numbers, and
    int64, int32 or uint8 counts (numpy's promotion of narrower dtypes meets
    the staged Python numbers there: all-default dtypes never showed it)."""
    import numpy as np
    sets = []
    for _ in range(3):
        length = chooser.integer(0, 4)
        values = [chooser.choice([-1.5, -0.5, 0.0, 0.25, 0.75, 1.5, 2.0]) for _ in range(length)]
        x = np.array(values, dtype=chooser.choice([np.float64, np.float32]))
        n = chooser.choice([np.int64, np.int32, np.uint8])(chooser.integer(0, 4))
        a = chooser.choice([np.float64, np.float32])(chooser.choice([-1.0, 0.0, 0.5, 1.25]))
        sets.append((x, n, a))
    return sets
