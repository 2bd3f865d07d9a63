"""Test-wide settings."""

import os

# The tests never read or fill the user's conversion cache (conversion_cache.py):
# tests that replace parts of the transpiler must see their conversions run.
# tests/test_conversion_cache.py turns it on, in a temporary directory.
os.environ["AUTOGRAPH_CACHE_DIR"] = "off"
