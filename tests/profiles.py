"""How many random examples a property test plays: all of them in the full run (CI,
`bash rr test`), a quarter in the developers' loop (`bash rr test --fast` loads the hypothesis
profile `fast`). The properties are the same; only how hard each run searches changes, and
every full run still searches as hard as before."""

from __future__ import annotations

from hypothesis import settings

FAST = "fast"
settings.register_profile(FAST, max_examples=25)


def examples(full: int) -> int:
    """`full` scaled to the loaded profile (hypothesis's default of 100 keeps `full`), at
    least 10 so a property still meets some variety."""
    return max(10, full * settings.default.max_examples // 100)
