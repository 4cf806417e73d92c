"""A command named in a text is the command the reader's client lists.

Discord shows every client the command names uploaded for its locale (a Japanese client
lists `/rr 行動`, not `/rr act`), so a reply that names a command names it in the reader's
language, options included (`i18n.slash`). Checked against what the bot really uploads, for
every command and option, and in replies a Japanese and an English player read."""

from __future__ import annotations

import asyncio
import functools
import re
from pathlib import Path

import pytest
from bot_driver import Clock, make_bot
from harness import Harness

import i18n
from cogs.i18n import RookTranslator, text
from cogs.text import markdown
from service.lines import parse

ROOT = Path(__file__).resolve().parent.parent


@functools.cache  # one bot start for every test here
def uploaded() -> list[tuple[list[str], dict[str, list[str]], dict[str, dict[str, str]]]]:
    """Every leaf command as uploaded: its English path, its path in each language, and its
    options' names in each language."""
    async def scenario() -> list:
        out = []
        async with Harness(lambda: make_bot(":memory:", Clock(), seed=6)) as h:
            translator = RookTranslator()
            for cmd in h.bot.tree.get_commands():
                payload = await cmd.get_translated_payload(h.bot.tree, translator)
                out += _leaves(payload, [], {lang: [] for lang in i18n.LANGS})
        return out
    return asyncio.run(scenario())


def _name(node: dict, lang: str) -> str:
    return (node.get("name_localizations") or {}).get(lang) or node["name"]


def _leaves(node: dict, path: list[str], paths: dict[str, list[str]]) -> list:
    path = [*path, node["name"]]
    paths = {lang: [*p, _name(node, lang)] for lang, p in paths.items()}
    subs = [o for o in node.get("options") or [] if o.get("type") in (1, 2)]
    if subs:
        return [leaf for o in subs for leaf in _leaves(o, path, paths)]
    options = {o["name"]: {lang: _name(o, lang) for lang in i18n.LANGS}
               for o in node.get("options") or []}
    return [(path, paths, options)]


def test_every_command_and_option_is_named_as_its_client_lists_it():
    leaves = uploaded()
    assert len(leaves) > 40  # the whole tree was walked
    for path, paths, options in leaves:
        named = " ".join(path[1:]) if path[0] == "rr" else " ".join(path)
        for lang in i18n.LANGS:
            assert i18n.slash(lang, named) == "/" + " ".join(paths[lang]), (named, lang)
            for option, names in options.items():
                assert i18n.slash(lang, f"{named} {option}:2") == \
                    "/" + " ".join(paths[lang]) + f" {names[lang]}:2", (named, option, lang)
    # the Japanese client lists other names than the English one: this is not a no-op
    assert i18n.slash("ja", "act") == "/rr 行動" and i18n.slash("en", "act") == "/rr act"
    assert i18n.slash("ja", "rr-learn tutorial lesson:") == "/rr-学ぶ チュートリアル レッスン:"


def _commands_in_catalogues() -> set[str]:
    found = set()
    for lang in i18n.LANGS:
        for template in i18n.CATALOGUES[lang].singular.values():
            found |= {p.text for p in parse(template.replace("{", "{{").replace("}", "}}"))
                      if p.mark == "cmd"}
        for forms in i18n.CATALOGUES[lang].plural.values():
            for template in forms:
                found |= {p.text for p in parse(template.replace("{", "{{").replace("}", "}}"))
                          if p.mark == "cmd"}
    return found


def test_every_command_a_text_names_exists():
    """A typo in a `<cmd>` (or a command renamed in code) would send players to a command
    that is not there."""
    leaves = {(" ".join(p[1:]) if p[0] == "rr" else " ".join(p)): set(o)
              for p, _, o in uploaded()}
    for cmd in sorted(_commands_in_catalogues() - {"…", "{command}"}):
        words = [w for w in cmd.split() if ":" not in w]
        options = [w.partition(":")[0] for w in cmd.split() if ":" in w]
        path = " ".join(words)
        # narration marks a console verb too (`<cmd>act</cmd>`): the /rr command of it
        assert path in leaves, f"{cmd!r} is not a command"
        assert set(options) <= leaves[path], f"{cmd!r}: no such option"


def test_no_text_writes_a_slash_command_by_hand():
    """Every `/rr …` a text names goes through the mark, so it is localized; the console's
    one pointer to Discord names the command as that language's client lists it."""
    for lang in i18n.LANGS:
        for mid, template in i18n.CATALOGUES[lang].singular.items():
            for literal in re.findall(r"/rr[^<>`」）)]*", template):
                assert mid == "usage.daily_open", (lang, mid, literal)
                assert literal.strip() == i18n.slash(lang, "daily play"), (lang, literal)


@pytest.mark.parametrize(("lang", "shown"), [("en", "`/rr status`"), ("ja", "`/rr 状況`")])
def test_a_reply_names_the_command_in_the_readers_language(lang, shown):
    """A stale button's reply points to the status command the reader can find."""
    assert shown in text(lang, "bot.stale")
    assert "<cmd>" not in text(lang, "bot.stale")
    # a name that looks like a mark stays a name (the template is split before it is filled)
    said = text(lang, "bot.channel_only", command="<cmd>new</cmd>")
    assert "<cmd>new</cmd>" in said
    line = parse(i18n.template(lang, "bot.no_daily_game"))
    assert i18n.slash(lang, "daily play") in markdown(line, lang)


def test_japanese_players_read_the_names_their_client_lists(tmp_path):
    """Through Discord's own code paths: a spectator's refusal, in each language."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            await h.slash(ann, "rr new", players=2)
            await h.slash(bob, "rr lobby join")
            await h.slash(ann, "rr start")
            yui = h.user("yui", locale="ja")
            res = await h.slash(yui, "rr done")
            assert "`/rr ボード`" in res.text and "`/rr 状況`" in res.text, res.text
            assert "/rr board" not in res.text
            eve = h.user("eve")
            res = await h.slash(eve, "rr done")
            assert "`/rr board`" in res.text and "`/rr status`" in res.text, res.text
    asyncio.run(scenario())


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_the_rules_summary_names_commands_as_the_readers_client_lists_them(lang):
    """`/rr rules` shows docs/rules.<lang>.md: its `Discord:` lines name each command and
    option by the name the reader's client lists (`/rr 設定 制限時間:` in Japanese)."""
    path = ROOT / "docs" / ("rules.md" if lang == i18n.DEFAULT else f"rules.{lang}.md")
    if not path.exists():
        pytest.skip(f"no rules summary in {lang}")
    listed = {tuple(paths[lang]): {names[lang] for names in options.values()}
              for _path, paths, options in uploaded()}
    spans = re.findall(r"`(/rr[^`]*)`", path.read_text(encoding="utf-8"))
    assert len(spans) >= 10
    for span in spans:
        words = span[1:].split()
        command = next((c for c in sorted(listed, key=len, reverse=True)
                        if tuple(words[:len(c)]) == c), None)
        assert command is not None, f"{span!r}: no such command in {lang}"
        for word in words[len(command):]:
            option = word.partition(":")[0]
            assert ":" in word and option in listed[command], f"{span!r}: {option!r}"
