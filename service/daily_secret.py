"""The daily challenge's secret (RR_DAILY_SECRET): how strong it must be, and how processes
sharing a database prove they share it. Apart from the day's game (service/daily.py) because
an operator's start-up check reads it alone, and a reader of the day's game need not hold
entropy estimates in their head."""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import string

MIN_SECRET_BITS = 128
MAKE_SECRET = 'python -c "import secrets; print(secrets.token_hex(32))"'
_HEX = re.compile(r"[0-9a-fA-F]+")
_CLASSES = (string.ascii_lowercase, string.ascii_uppercase, string.digits)
_OTHER = 33  # printable ASCII beside letters and digits (space included)
_DICEWARE_WORD = math.log2(7776)  # the most a word of a passphrase can hold


class SecretError(ValueError):
    """The daily secret cannot be used: the bot must not start (one line, for the operator)."""


def secret_bits(raw: str) -> float:
    """At most how many bits of entropy `raw` can hold: 4 a character for hex, else log2 of
    the character classes it uses (lower, upper, digits, other: a lowercase-only word scores
    4.7, a password manager's mix 6.6), a passphrase (words and spaces) 12.9 a word as if
    drawn by diceware, and a string repeating a few characters no more than those. An upper
    bound only: no check tells a random string from a well-chosen pattern, which is why the
    refusal says how to generate one."""
    body = raw.strip()
    if not body:
        return 0.0
    if any(c.isspace() for c in body):
        return _DICEWARE_WORD * len(body.split())
    if _HEX.fullmatch(body):
        per_char = 4.0
    else:
        size = sum(len(cls) for cls in _CLASSES if any(c in cls for c in body))
        if any(not c.isascii() or not c.isalnum() for c in body):
            size += _OTHER
        per_char = math.log2(size)
    bits = per_char * len(body)
    distinct = len(set(body))
    if distinct < min(len(body), 16) // 2:  # "aaaa…", "abab…": not random
        bits = min(bits, distinct * per_char)
    return bits


def check_secret(raw: str) -> bytes:
    """RR_DAILY_SECRET as the key of every day, or SecretError with the reason and how to
    make a good one. Past days' keys are published, so a weak secret would be found
    offline and give away every future day."""
    bits = secret_bits(raw)
    if bits < MIN_SECRET_BITS:
        raise SecretError(
            f"RR_DAILY_SECRET is too weak ({len(raw)} characters, at most {bits:.0f} bits of "
            f"entropy; {MIN_SECRET_BITS} needed, because published day keys let a weak one "
            f"be searched offline) — make one with: {MAKE_SECRET}")
    return raw.encode()


def fingerprint(secret: bytes) -> str:
    """A keyed fingerprint of the secret, kept in the database: processes sharing it compare
    theirs without storing or logging the secret (HMAC: it gives nothing of the secret)."""
    return hmac.new(secret, b"rook-and-raiders/daily/fingerprint", hashlib.sha256).hexdigest()


def check_fingerprint(secret: bytes, stored: str) -> None:
    """SecretError when this process's secret is not the one the database was started with:
    two secrets would give two different games of one day. A stored fingerprint that is no
    fingerprint at all is said to be damaged, not blamed on RR_DAILY_SECRET (the
    fault-injection audit: it was, with no RR_DAILY_SECRET set)."""
    if not re.fullmatch(r"[0-9a-f]{64}", str(stored)):
        raise SecretError(
            "the daily secret's fingerprint kept in the database (table kv, key "
            "daily_secret_fingerprint) is damaged: restore that row from a backup; the bot "
            "does not start on it (it could not tell a wrong secret from the right one)")
    if not hmac.compare_digest(fingerprint(secret), stored):
        raise SecretError(
            "RR_DAILY_SECRET is not the secret this database's daily challenge was started "
            "with (another process or an earlier start used a different one, or none and a "
            "generated one): every process on one database needs the same secret — see "
            "docs/deploy.md, \"The daily secret\"")
