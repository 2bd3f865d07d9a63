"""On-disk cache of conversions, as `__pycache__` is of bytecode.

A script's first run converts its functions (transpiler.py: parse, passes,
compile); every later run loads the compiled factory module (marshal) from
an entry file and only binds it:

    AUTOGRAPH_CACHE_DIR/3d/3d9f...c2.agc  =  marshal of
        (FORMAT, key, facts, (factory module code, generated names, cells, lambda?))

The key holds everything conversion reads but the function's namespace:
the whole text of the function's file as linecache gives it (hashed), its
code object's names, flags, bytecode and positions, the options, Python's
and gast's versions, and a fingerprint of autograph's own files (path, size,
mtime, like a .pyc's check of its source).  What conversion asks of the
namespace (is `locals` the builtin? is `ag.set_loop_options` autograph's?)
is recorded as it is asked (context.Facts) and stored in the entry; the
transpiler asks it again of the function it loads the entry for and converts
afresh when any answer differs.  One entry per function (its file name is a
hash of the function's file, qualname and options: an edit replaces the
entry, as a module's .pyc is replaced); it holds the whole key, compared when
loaded, so an entry of another version of the function loads nothing.

Location: AUTOGRAPH_CACHE_DIR (empty, `0` or `off`: no cache), else
$XDG_CACHE_HOME/autograph or ~/.cache/autograph.  An unreadable, corrupt or
foreign entry, or a directory that cannot be written, means converting as
if there were no cache: never an error.  New entries are written when the
process exits (atexit), so that a first call does not wait for the disk.
"""

import atexit
import hashlib
import logging
import marshal
import os
import sys
import threading

import gast

logger = logging.getLogger("autograph")

FORMAT = 2  # of the entries and their keys: raise it when either changes
_OFF = ("", "0", "off", "false", "no")
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def directory():
    """The cache's directory, or None when it is turned off."""
    setting = os.environ.get("AUTOGRAPH_CACHE_DIR")
    if setting is not None:
        return None if setting.strip().lower() in _OFF else setting
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "autograph")


_fingerprint = []  # autograph's files, computed once per process


# Conversion neither reads the graph engine nor names it in the code it
# emits (the runtime does, at run time): a changed engine keeps the entries.
_NOT_READ = frozenset({os.path.join(_PACKAGE, "graph")})


def package_fingerprint():
    """A digest of (path, size, mtime_ns) of every source and extension file
    of the autograph package (but the graph engine's): a changed converter,
    or a changed runtime whose functions the converted code calls, changes
    every key."""
    if not _fingerprint:
        found = []
        folders = [_PACKAGE]
        while folders:
            folder = folders.pop()
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir():
                        if entry.name != "__pycache__" and entry.path not in _NOT_READ:
                            folders.append(entry.path)
                    elif entry.name.endswith((".py", ".so", ".pyd")):
                        stat = entry.stat()
                        found.append((entry.path[len(_PACKAGE):], stat.st_size,
                                      stat.st_mtime_ns))
        text = repr(sorted(found)).encode("utf-8", "surrogatepass")
        _fingerprint.append(hashlib.blake2b(text, digest_size=32).hexdigest())
    return _fingerprint[0]


def code_fingerprint(code):
    """What conversion may read of a code object (nested ones included):
    its names, flags, bytecode, positions, constants.  (The constants are
    the source's, which the key holds, but for which of the lambdas of one
    line is converted: without column positions, -X no_debug_ranges, they
    tell it, source._find_lambda.)"""
    consts = tuple(code_fingerprint(c) if isinstance(c, type(code)) else (type(c).__name__, c)
                   for c in code.co_consts)
    return (code.co_name, code.co_qualname, code.co_firstlineno, code.co_flags,
            code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
            code.co_names, code.co_varnames, code.co_cellvars, code.co_freevars,
            code.co_code, code.co_linetable, getattr(code, "co_exceptiontable", b""), consts)


def key_of(fn, options, lines, variant=""):
    """The key of `fn`'s conversion with `options` from `lines` (its file's
    lines, as conversion reads them), of the transpiler's `variant`; None
    when `fn` has no real file."""
    code = fn.__code__
    filename = code.co_filename
    if filename.startswith("<") or not os.path.isfile(filename):
        return None
    digest, size = _text_digest(filename, lines)
    return (FORMAT, sys.implementation.cache_tag, sys.version, sys.flags.optimize,
            gast.__version__, package_fingerprint(), filename, digest, size,
            fn.__name__, repr(options), variant, code_fingerprint(code))


# filename -> (its lines, their digest and size): the functions of one file
# hash its text once, not once each (linecache gives the same list until the
# file changes; the list is held here, so `is` cannot match another)
_digests = {}


def _text_digest(filename, lines):
    known = _digests.get(filename)
    if known is None or known[0] is not lines:
        text = "".join(lines).encode("utf-8", "surrogatepass")
        known = _digests[filename] = (lines, hashlib.blake2b(text, digest_size=32).hexdigest(),
                                      len(text))
    return known[1], known[2]


def _path(folder, key):
    """The entry's file: named by the function (its file, qualname, the
    options and Python), not by the whole key, so that an edit or a new
    autograph replaces the entry, as a module's .pyc is replaced, instead of
    leaving one more file per edit.  (Lambdas share a qualname: their first
    line tells them apart.)"""
    form, tag, _, _, _, _, filename, _, _, name, options, variant, code = key
    where = (form, tag, filename, name, options, variant, code[1]) + (
        (code[2],) if name == "<lambda>" else ())
    digest = hashlib.blake2b(repr(where).encode("utf-8", "surrogatepass"),
                             digest_size=20).hexdigest()
    return os.path.join(folder, digest[:2], digest + ".agc")


def load(folder, key):
    """(facts, payload) stored under `key`, or None (no entry, or not one
    that holds exactly this key)."""
    try:
        with open(_path(folder, key), "rb") as file:
            entry = marshal.loads(file.read())
        form, stored_key, facts, payload = entry
        if form != FORMAT or stored_key != key:
            return None
        return facts, payload
    except Exception as e:  # noqa: BLE001 (missing, unreadable, truncated, foreign)
        if not isinstance(e, FileNotFoundError):
            logger.debug("conversion cache: entry not loaded (%r)", e)
        return None


# Entries are written when the process exits, not while the first call
# waits (~0.25 ms each: a file created and renamed); False: at once (tests).
DEFERRED = True
_pending = []


def store(folder, key, facts, payload):
    """Keeps the entry to write at exit (DEFERRED) or writes it now."""
    if not DEFERRED:
        _write(folder, key, facts, payload)
        return
    if not _pending:
        atexit.register(flush)
    _pending.append((folder, key, facts, payload))


def flush():
    """Writes the entries kept so far."""
    while _pending:
        _write(*_pending.pop(0))


def _write(folder, key, facts, payload):
    """Writes the entry (a temporary file renamed over it: readers see the
    whole entry or none); any failure is only logged."""
    path = _path(folder, key)
    temporary = f"{path}.{os.getpid()}-{threading.get_ident()}.tmp"  # (one per writer)
    try:
        data = marshal.dumps((FORMAT, key, facts, payload))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except Exception as e:  # noqa: BLE001 (read-only, full, unmarshallable: no cache)
        logger.debug("conversion cache: entry not written (%r)", e)
        try:
            os.unlink(temporary)
        except OSError:
            pass
