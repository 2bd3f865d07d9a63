"""Command line: `python -m autograph show FILE.py:FUNC` prints the converted code.

FUNC may be dotted (`Class.method`, `outer.<locals>` is not reachable).
"""

import argparse
import importlib.util
import os
import sys

from autograph import api, errors


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


def show(target):
    path, sep, qualname = target.rpartition(":")
    if not sep or not path or not qualname:
        raise SystemExit("autograph: usage: python -m autograph show FILE.py:FUNC")
    obj = _load_module(path)
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SystemExit(f"autograph: {path} has no {qualname!r}") from None
    return api.to_code(obj)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograph")
    commands = parser.add_subparsers(dest="command", required=True)
    show_cmd = commands.add_parser("show", help="print the converted code of FILE.py:FUNC")
    show_cmd.add_argument("target", metavar="FILE.py:FUNC")
    args = parser.parse_args(argv)
    try:
        sys.stdout.write(show(args.target))
    except errors.AutoGraphError as e:
        raise SystemExit(f"autograph: {e}") from None
    return 0


if __name__ == "__main__":
    sys.exit(main())
