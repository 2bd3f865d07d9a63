"""Which callees `converted_call` converts: overrides by module name.

By default user code is converted and library code (standard library,
installed packages, autograph itself) is called as is, decided by the file a
function lives in. These rules override that, by module-name prefix:

    autograph.config.include("mypackage")        # installed, but convert it
    autograph.config.exclude("myproject.legacy")  # user code, but never convert
"""

from autograph.runtime import call


def _changed():
    call.clear_caches()


def include(*module_prefixes):
    """Always convert functions of these modules (and their submodules)."""
    call.RULES.include = tuple(dict.fromkeys(call.RULES.include + module_prefixes))
    _changed()


def exclude(*module_prefixes):
    """Never convert functions of these modules (exclude wins over include)."""
    call.RULES.exclude = tuple(dict.fromkeys(call.RULES.exclude + module_prefixes))
    _changed()


def reset():
    """Back to the default: decided by where the code lives."""
    call.RULES.include = call.RULES.exclude = ()
    _changed()
