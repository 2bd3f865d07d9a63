"""What converted code calls as `ag__`: operators whose meaning on plain Python
values is exactly the Python statement or expression they replace, and which
stage into a backend's graph when an operand is a staged value.
"""
# Each runtime module adds its own import line below (owners: see docs).
from autograph.runtime.call import FunctionScope, converted_call
