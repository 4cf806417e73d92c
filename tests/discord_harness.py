"""Kept for old imports: the harness is the package `tests/harness/` (its README says what
it fakes and how to add a payload kind). Import from `harness` in new tests."""

from harness import *  # noqa: F403
from harness import __all__  # noqa: F401
