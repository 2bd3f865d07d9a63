"""What converted code calls as `ag__`: operators whose meaning on plain Python
values is exactly the Python statement or expression they replace, and which
stage into a backend's graph when an operand is a staged value.
"""
# Each runtime module adds its own import line below (owners: see docs).
from autograph.runtime.call import FunctionScope, converted, converted_call
from autograph.runtime.registry import backend_of, is_staged, register_backend, tracing  # noqa: E402,F401
from autograph.runtime.special_values import Undefined, UndefinedReturnValue, ld  # noqa: E402,F401
from autograph.runtime.control_flow import for_stmt, if_stmt, python_only, while_stmt  # noqa: E402,F401
from autograph.runtime.logical import and_, compare_chain, if_exp, not_, or_  # noqa: E402,F401
from autograph.runtime.lists import list_append, list_pop, set_element_type, stack  # noqa: E402,F401
from autograph.runtime.builtins import (  # noqa: E402,F401
    StagedRange, enumerate_, len_, print_, range_, user_locals, zip_)
from autograph.runtime.exceptions import assert_stmt  # noqa: E402,F401
from autograph.runtime.directives import set_loop_options  # noqa: E402,F401
