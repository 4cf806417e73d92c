"""Issue 21: adding a language is one catalogue file, no code branch.

A pseudo-language built from en.po (every text wrapped in ⟦…⟧, its own list separator and
quotation marks) is installed as `fr` — a locale Discord's clients really send — and the
screens a player meets are checked to come out in it: the console's start, board and
refusals, a Discord refusal and the slash commands' translations, a word on the images.
Nothing in the product code is changed for it. A scan of the product code keeps any
`lang == "ja"`-style branch from coming back (i18n/README.md, "Adding a language").
"""

from __future__ import annotations

import ast
import asyncio
import re
from pathlib import Path

import discord
import pytest
from babel.messages.pofile import read_po, write_po
from bot_driver import Clock, make_bot
from discord import app_commands
from harness import Harness

import i18n
from cogs.i18n import RookTranslator
from render import theme
from service.errors import ServiceError
from service.refusals import words
from store import Store
from tests.test_console_play import Table

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("ai", "cogs", "console", "engine", "i18n", "render", "service", "sim", "store")
CODE = "fr"
OWN = {"story.list_sep": " · ", "board.list_sep": " · ", "story.or_sep": " ou ",
       "console.quote": "«{text}»", "image.second_lang": "en"}


def pseudo(text: str) -> str:
    return f"⟦{text}⟧" if text else text


@pytest.fixture
def pseudo_lang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """`fr.po`: a copy of en.po with every text marked, installed for this test only."""
    with (ROOT / "i18n" / "en.po").open("rb") as f:
        cat = read_po(f)
    for m in cat:
        if not m.id:
            continue
        key = m.id[0] if isinstance(m.id, (tuple, list)) else m.id
        if key in OWN:
            m.string = OWN[key]
        elif isinstance(m.string, (tuple, list)):
            m.string = tuple(pseudo(s) for s in m.string)
        else:
            m.string = pseudo(m.string)
    path = tmp_path / f"{CODE}.po"
    with path.open("wb") as f:
        write_po(f, cat)
    monkeypatch.setitem(i18n.CATALOGUES, CODE, i18n.CATALOGUES["en"])  # undone after the test
    i18n.install(CODE, path)
    return CODE


def test_the_console_plays_in_a_new_language_from_its_catalogue_alone(pseudo_lang: str) -> None:
    """Start, board and a refusal in the pseudo-language: its words, its list separator, its
    quotation marks around the console's commands (no Japanese spacing rule, no English)."""

    async def play() -> tuple[str, str, str]:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "Bob", "--seed", "3"], lang=pseudo_lang)
            await t.start()
            start = t.out.getvalue()
            board = await t.type("board")
            return start, board + await t.type("legal act"), await t.type("Ann: place dragon 9Z")
        finally:
            await store.close()

    start, board, refusal = asyncio.run(play())
    for text in (start, board, refusal):
        assert "⟦" in text, text
        assert not re.search(r"[\u3040-\u30ff]", text), text  # no Japanese leaks in
    assert "Ann · Bob" in start or "Bob · Ann" in start, start
    assert refusal.startswith("! ") and "⟦" in refusal, refusal
    assert pseudo("Nothing begins with «act» now. Ann may:") in board, board


def test_refusals_and_discord_words_come_from_the_new_catalogue(pseudo_lang: str) -> None:
    """A service refusal (its command marked for each interface), the slash commands'
    names as Discord's client shows them, a word on the images."""
    text = words(ServiceError.of("svc.no_game_new"), pseudo_lang)
    # the command as that client lists it: its names uploaded in the new language
    assert text.startswith("⟦") and "`/⟦rr⟧ ⟦new⟧`" in text, text
    assert i18n.slash(pseudo_lang, "new") == "/⟦rr⟧ ⟦new⟧"
    translated = asyncio.run(RookTranslator().translate(
        app_commands.locale_str("new"), discord.Locale.french, None))  # type: ignore[arg-type]
    assert translated == pseudo(i18n.t("en", "command.new")), translated
    assert theme.word("winner", pseudo_lang) == pseudo(theme.word("winner", "en"))


def test_a_discord_player_with_that_locale_reads_it(pseudo_lang: str, tmp_path: Path) -> None:
    """A client set to French gets the French catalogue, with no code naming French."""

    async def scenario() -> str:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            amelie = h.user("amelie", locale="fr")
            res = await h.slash(amelie, "rr status")
            assert res.ephemeral
            return res.text

    text = asyncio.run(scenario())
    said = words(ServiceError.of("svc.no_game_new"), pseudo_lang)
    assert said == pseudo(words(ServiceError.of("svc.no_game_new"), "en").replace(
        "/rr new", "/⟦rr⟧ ⟦new⟧"))
    assert text == pseudo("⛔ " + said), text


def _language_branches(path: Path) -> list[str]:
    """`lang == "ja"`, `"ja" if lang …`, `lang != "en"`, `locale.startswith("ja")`: code that
    names a language where the catalogue should speak."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            codes = [s for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, str)
                     and re.fullmatch(r"[a-z]{2}(-[A-Z]{2})?", s.value)]
            if codes and any("lang" in ast.unparse(s).lower() or "locale" in ast.unparse(s)
                             for s in sides):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "startswith" and node.args
                and isinstance(node.args[0], ast.Constant) and node.args[0].value in i18n.LANGS):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_product_code_branches_on_a_language() -> None:
    """i18n/README.md: to add a language, copy ja.po — true only while no code branches on
    one (15 such branches, issue 21)."""
    files = [p for d in PRODUCT for p in (ROOT / d).rglob("*.py")] + [ROOT / "bot.py"]
    found = [f for p in files for f in _language_branches(p)]
    assert found == []
    assert _language_branches(Path(__file__)) != []  # the scan does see one: `lang == "ja"`


def test_catalogue_languages_are_the_files_in_i18n() -> None:
    assert set(i18n.LANGS) == {p.stem for p in (ROOT / "i18n").glob("*.po")}
    assert i18n.LANGS[0] == i18n.DEFAULT


if False:  # what the scan must catch (never run)
    lang = "en"
    assert lang == "ja"


@pytest.mark.parametrize("path", sorted((ROOT / "i18n").glob("*.po")), ids=lambda p: p.name)
def test_every_translation_belongs_to_a_message_id(path: Path) -> None:
    """A `msgstr` left without its `msgid` (a merge's leftover) is a syntax error to GNU
    msgfmt, which a translator's tools run, though Babel reads past it silently: every
    msgstr directly follows its msgid (or a continuation line of it)."""
    previous = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("msgstr"):
            assert previous.startswith(("msgid", "msgstr[", '"')), f"{path.name}:{number}"
        if line.strip():
            previous = line
