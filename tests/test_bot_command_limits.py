"""Discord's documented limits on the command tree, checked on the bot's real tree.

Discord refuses a whole sync (and discord.py refuses to even load a cog) when one group has
more than 25 children or a name or description is too long, so a single extra subcommand
would take every command offline. These limits hold in English and in the Japanese names and
descriptions `RookTranslator` uploads.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

from bot_driver import Clock, make_bot
from harness import Harness

from cogs.i18n import RookTranslator

MAX_CHILDREN = 25  # subcommands + subcommand groups per group, options per command
MAX_CHOICES = 25
# The combined name, description and value characters of one command, its options
# (subcommands and groups included) and choices; of a localized field only its longest
# version counts. Discord's documentation says 8000 today; it said 4000 before, and some
# libraries still check 4000 (@sapphire/discord-utilities), so the tree keeps under the
# stricter figure: /rr has room for about 80 more characters.
MAX_COMMAND_SIZE = 4000
# Discord's name rule: 1–32 letters, digits, '-' or '_' (any script), lowercase.
NAME = re.compile(r"^[-_\w]{1,32}$")
SUBCOMMAND, GROUP = 1, 2


def _check_name(where: str, name: str | None) -> None:
    assert name, f"{where}: empty name"
    assert NAME.match(name), f"{where}: bad name {name!r}"
    assert name == name.lower(), f"{where}: name not lowercase {name!r}"


def _check_description(where: str, desc: str | None) -> None:
    assert desc, f"{where}: empty description"
    assert 1 <= len(desc) <= 100, f"{where}: description of {len(desc)} chars"


def _nodes(node: dict[str, Any], path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    yield path, node
    for child in node.get("options") or []:
        yield from _nodes(child, f"{path} {child['name']}")


def _longest(node: dict[str, Any], field: str) -> int:
    versions = [node.get(field) or "", *(node.get(f"{field}_localizations") or {}).values()]
    return max(len(v or "") for v in versions)


def command_size(node: dict[str, Any]) -> int:
    """The characters Discord counts against MAX_COMMAND_SIZE for `node` and all below it."""
    size = _longest(node, "name") + _longest(node, "description")
    for choice in node.get("choices") or []:
        size += _longest(choice, "name")
        size += len(choice["value"]) if isinstance(choice["value"], str) else 0
    return size + sum(command_size(child) for child in node.get("options") or [])


def _check(payload: dict[str, Any]) -> int:
    """Every limit on one top-level command's payload; returns how many nodes were checked."""
    seen = 0
    size = command_size(payload)
    assert size <= MAX_COMMAND_SIZE, f"/{payload['name']}: {size} characters in all"
    for path, node in _nodes(payload, "/" + payload["name"]):
        seen += 1
        for lang, name, desc in (
                ("en", node["name"], node.get("description")),
                ("ja", (node.get("name_localizations") or {}).get("ja"),
                 (node.get("description_localizations") or {}).get("ja"))):
            _check_name(f"{path} ({lang})", name)
            _check_description(f"{path} ({lang})", desc)
        options = node.get("options") or []
        assert len(options) <= MAX_CHILDREN, f"{path}: {len(options)} children/options"
        choices = node.get("choices") or []
        assert len(choices) <= MAX_CHOICES, f"{path}: {len(choices)} choices"
        for choice in choices:
            for label in (choice["name"], (choice.get("name_localizations") or {}).get("ja")):
                assert label and 1 <= len(label) <= 100, f"{path}: choice {choice!r}"
    return seen


def test_command_tree_fits_discord_limits_in_english_and_japanese(tmp_path):
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            tree = h.bot.tree
            commands = tree.get_commands()
            names = [c.name for c in commands]
            assert "rr" in names, names  # the cog loaded at all
            translator = RookTranslator()
            checked = 0
            for cmd in commands:
                payload = await cmd.get_translated_payload(tree, translator)
                checked += _check(payload)
                if payload["name"] == "rr":
                    children = payload["options"]
                    assert len(children) <= MAX_CHILDREN, len(children)
                    kinds = {c["name"]: c["type"] for c in children}
                    # the AI seat commands are one group, so /rr has room to grow
                    assert kinds["bot"] == GROUP and kinds["back"] == SUBCOMMAND
                    bot = next(c for c in children if c["name"] == "bot")
                    assert sorted(c["name"] for c in bot["options"]) == ["add", "hint", "remove"]  # issue 23
            assert checked > 25

    asyncio.run(scenario())


def test_checker_catches_what_discord_refuses():
    """The checks above must fail on what Discord would refuse."""
    ok = {"name": "x", "description": "d", "name_localizations": {"ja": "x"},
          "description_localizations": {"ja": "d"}}
    assert _check(dict(ok)) == 1
    bad_cases = [
        {**ok, "name": "Upper"},
        {**ok, "name": "a" * 33},
        {**ok, "description": "d" * 101},
        {**ok, "name_localizations": {"ja": "名 前"}},
        {**ok, "description_localizations": {}},
        {**ok, "options": [dict(ok, name=f"o{i}") for i in range(26)]},
        {**ok, "choices": [{"name": "c", "value": i, "name_localizations": {"ja": "c"}}
                           for i in range(26)]},
        # 4 subcommands of 25 options each, every longest description (the Japanese) full:
        # over 10,000 characters, though each name and description is within its own limit
        {**ok, "options": [dict(ok, name=f"s{i}", type=SUBCOMMAND, options=[
            dict(ok, name=f"o{k}", description_localizations={"ja": "説" * 100})
            for k in range(25)]) for i in range(4)]},
    ]
    for bad in bad_cases:
        try:
            _check(bad)
        except AssertionError:
            continue
        raise AssertionError(f"not caught: {bad}")
