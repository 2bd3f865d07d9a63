"""Backends of the runtime protocol (autograph/runtime/backend.py), one module
each, imported only once the library they stage into is imported.

`BY_LIBRARY` maps a library to its backend module; autograph/wiring.py hands
it to the runtime's registry (the runtime names no backend itself).
"""

BY_LIBRARY = {
    "autograph.graph": "autograph.backends.graph",
}
