"""Helpers the passes share; none of these modules is a pass.

  - base.py: `Converter`, the base class of every pass, and `copy_location`;
  - jumps.py: jump lowering shared by the return, break and continue passes;
  - staging.py: the pieces of a statement's functional form shared by the
    if, while and for passes (state, nested functions, why a statement
    cannot be staged).

`autograph/converters/` itself holds only the passes listed in PIPELINE.
"""
