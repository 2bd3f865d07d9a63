"""Command line: `python -m autograph show FILE.py:FUNC` prints the converted code;
`python -m autograph graph FILE.py:FUNC --arg float32[8,16] ... -o out.svg` draws
the graph traced for those arguments (SVG with Graphviz, else Graphviz text).

FUNC may be dotted (`Class.method`, `outer.<locals>` is not reachable).
"""

import argparse
import ast
import importlib.util
import os
import re
import sys

import numpy as np

from autograph import api, errors
from autograph.graph.dot import render_svg
from autograph.graph.function import Function, function
from autograph.graph.tensor import TensorSpec


def _load_module(path):
    path = os.path.abspath(path)
    if not os.path.exists(path):
        raise SystemExit(f"autograph: no such file: {path}")
    name = "__autograph_show__"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(path))
    spec.loader.exec_module(module)
    return module


def _target(target, command):
    path, sep, qualname = target.rpartition(":")
    if not sep or not path or not qualname:
        raise SystemExit(f"autograph: usage: python -m autograph {command} FILE.py:FUNC")
    obj = _load_module(path)
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SystemExit(f"autograph: {path} has no {qualname!r}") from None
    return obj


def show(target):
    return api.to_code(_target(target, "show"))


_ARRAY_ARG = re.compile(r"(\w+)\[([^\]]*)\]")


def parse_arg(text):
    """`float32[8,16]` (None or ? for a dim of any size) -> TensorSpec; any
    other text is a Python literal (`3`, `'up'`), passed as it is."""
    match = _ARRAY_ARG.fullmatch(text.replace(" ", ""))
    if match is None:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise SystemExit(f"autograph: --arg {text!r} is neither DTYPE[DIMS] (e.g. "
                             "float32[8,16], int64[]) nor a Python literal") from None
    dtype, dims = match.groups()
    try:
        shape = [None if d in ("None", "?") else int(d) for d in dims.split(",") if d]
        return TensorSpec(shape, np.dtype(dtype))
    except (TypeError, ValueError):
        raise SystemExit(f"autograph: --arg {text!r}: unknown dtype or dims") from None


def graph(target, args, output):
    """Writes the graph of FILE.py:FUNC traced for `args` to `output` (SVG, or
    Graphviz text for `.dot` or when Graphviz is absent); returns a note."""
    fn = _target(target, "graph")
    if not isinstance(fn, Function):
        fn = function(fn)
    dot_text = fn.get_concrete_function(*[parse_arg(a) for a in args]).to_dot()
    if output is None:
        sys.stdout.write(dot_text)
        return None
    svg = render_svg(dot_text) if not output.endswith(".dot") else None
    note = None
    if svg is None and not output.endswith(".dot"):
        output = os.path.splitext(output)[0] + ".dot"
        note = ("autograph: Graphviz is not installed (pip install graphviz, and the dot "
                f"program): wrote Graphviz text to {output} instead of SVG")
    with open(output, "w", encoding="utf-8") as f:
        f.write(svg if svg is not None else dot_text)
    return note or f"autograph: wrote {output}"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograph")
    commands = parser.add_subparsers(dest="command", required=True)
    show_cmd = commands.add_parser("show", help="print the converted code of FILE.py:FUNC")
    show_cmd.add_argument("target", metavar="FILE.py:FUNC")
    graph_cmd = commands.add_parser("graph", help="draw the graph of FILE.py:FUNC traced "
                                    "for the given arguments")
    graph_cmd.add_argument("target", metavar="FILE.py:FUNC")
    graph_cmd.add_argument("--arg", action="append", default=[], metavar="DTYPE[DIMS]",
                           help="one argument: an array spec such as float32[8,16] or "
                           "int64[], or a Python literal; repeat for each argument")
    graph_cmd.add_argument("-o", "--output", metavar="OUT.svg",
                           help="where to write SVG (or Graphviz text for .dot); "
                           "default: Graphviz text on standard output")
    args = parser.parse_args(argv)
    try:
        if args.command == "graph":
            note = graph(args.target, args.arg, args.output)
            if note:
                print(note, file=sys.stderr)
            return 0
        sys.stdout.write(show(args.target))
    except errors.AutoGraphError as e:
        raise SystemExit(f"autograph: {e}") from None
    return 0


if __name__ == "__main__":
    sys.exit(main())
