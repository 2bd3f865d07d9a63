"""The optional C part of the package (metadata: pyproject.toml).

autograph/graph/_leafcheck.c speeds up call guards (leaf_check.py); it needs
only Python's headers.  `optional=True`: without a compiler the install goes
on and the guards stay pure Python.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("autograph.graph._leafcheck", ["autograph/graph/_leafcheck.c"],
                             optional=True)])
