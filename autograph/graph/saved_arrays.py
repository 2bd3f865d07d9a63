"""Reading the .npz of a saved graph without trusting it (for loading.py).

Only stored (uncompressed) .npy members lying inside the file are read; each
header is parsed by numpy's own reader (a literal, never a pickle); dtypes
are numbers, bools and strings only; the data must be exactly as long as the
header's shape says.  Anything else raises schemas.Refused.
"""

import os
import zipfile

import numpy as np

from autograph.graph.schemas import DTYPE_KINDS, Refused, need

MAX_ARRAYS = 1 << 20


def read_arrays(path):
    """{name: array} of the .npz at `path`, every member checked (see module doc)."""
    file_size = os.path.getsize(path)
    arrays = {}
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            need(len(members) <= MAX_ARRAYS, f"{len(members)} arrays is too many")
            for info in members:
                name = info.filename
                need(name.endswith(".npy") and name[:-4] not in arrays,
                     f"member {name!r} is not a (new) .npy array")
                need(info.compress_type == zipfile.ZIP_STORED,
                     f"array {name!r} is compressed; saved graphs store arrays as they are")
                need(info.file_size == info.compress_size
                     and info.header_offset + info.compress_size <= file_size,
                     f"array {name!r} claims {info.file_size} bytes, more than the "
                     f"{file_size}-byte file holds (truncated or oversized)")
                arrays[name[:-4]] = _read_member(archive, info)
    except Refused:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError,
            KeyError, IndexError, TypeError, NotImplementedError, RuntimeError,
            OverflowError) as e:
        raise Refused(f"it is not a readable .npz archive ({type(e).__name__}: {e})") from None
    return arrays


def _read_member(archive, info):
    name = info.filename
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        need(version in ((1, 0), (2, 0), (3, 0)), f"array {name!r} has .npy version {version}")
        read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                       else np.lib.format.read_array_header_2_0)
        shape, fortran_order, dtype = read_header(member, max_header_size=10000)
        need(dtype.kind in DTYPE_KINDS and not dtype.hasobject
             and dtype.fields is None and dtype.subdtype is None,
             f"array {name!r} has dtype {dtype}, which a saved graph may not hold "
             "(pickled Python objects are never loaded)")
        need(all(type(d) is int and d >= 0 for d in shape), f"array {name!r} has shape {shape}")
        count = 1
        for d in shape:
            count *= d
        expected = count * dtype.itemsize
        remaining = info.file_size - member.tell()
        need(expected == remaining,
             f"array {name!r} of shape {shape} and dtype {dtype} needs {expected} bytes, "
             f"the file has {remaining} (truncated or oversized)")
        data = member.read(expected)  # zipfile checks the CRC at the end
        need(len(data) == expected, f"array {name!r} is truncated")
    array = np.frombuffer(data, dtype=dtype, count=count)
    return array.reshape(shape, order="F" if fortran_order else "C").copy()
