"""A rule id a player reads can be opened (issue 20): messages cite "(R11.1)"; `/rr rules R11`
and the console's `rules R11` open the project's own summary of that rule (docs/rules.md,
docs/rules.ja.md), in the reader's language."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from bot_driver import Clock, make_bot
from harness import Harness
from test_console import console

from service import rules

ROOT = Path(__file__).resolve().parent.parent


def _player_texts() -> list[str]:
    """Every text a player can read that may cite a rule: catalogue strings (not translator
    comments), the rules summaries and the daily modifiers' names."""
    out: list[str] = []
    for lang in ("en", "ja"):
        with (ROOT / "i18n" / f"{lang}.po").open("rb") as f:
            for m in read_po(f):
                if m.id:
                    out += [m.string] if isinstance(m.string, str) else list(m.string)
        out.append(rules.FILES[lang].read_text(encoding="utf-8"))
    mods = json.loads((ROOT / "service" / "data" / "daily_modifiers.json").read_text())
    out += [m[lang] for m in mods["modifiers"] for lang in ("en", "ja")]
    return out


def test_every_rule_id_a_player_reads_opens_a_section_in_both_languages() -> None:
    """Issue 20: no "(R11.1)" a player cannot open."""
    ids = {rid for text in _player_texts() for rid in rules.cited(text)}
    assert {"R11.1", "R12.3", "R7.1"} <= ids  # the ids refusals and the story cite today
    unopenable = {rid for rid in ids for lang in ("en", "ja") if rules.find(rid, lang) is None}
    assert unopenable == set()


def test_a_word_the_rules_use_opens_the_section_that_explains_it() -> None:
    """The English new-player audit: `/rr rules threat` found nothing, though threat decides
    a 2–4 player game (R14.2) and messages say it. A word opens the section that uses it
    most, typed in either language; a word no section uses still finds nothing."""
    assert (rules.find("threat", "en") or rules.Section("", "", (), "")).rules == ("R14",)
    assert (rules.find("Medals", "en") or rules.Section("", "", (), "")).key == "winning"
    assert (rules.find("willpower", "ja") or rules.Section("", "", (), "")).key == "boons"
    assert (rules.find("脅威", "ja") or rules.Section("", "", (), "")).key == "winning"
    assert rules.find("banana", "en") is None and rules.find("b", "en") is None
    # words every section uses, squares and numbers open nothing (the verification audit:
    # "the" opened the daily section, "2B" the unit actions)
    for word in ("the", "is", "you", "on", "2B", "12", "する"):
        assert rules.find(word, "en") is None and rules.find(word, "ja") is None, word
    assert (rules.find("城", "ja") or rules.Section("", "", (), "")).key == "overview"
    # where a newcomer begins (the Discord new-player audit: `start` opened the daily)
    for word, lang in (("start", "en"), ("How to play", "en"), ("遊び方", "ja"), ("ヘルプ", "ja")):
        assert (rules.find(word, lang) or rules.Section("", "", (), "")).key == "overview", word


def test_both_languages_have_the_same_sections_and_ids() -> None:
    en, ja = rules.sections("en"), rules.sections("ja")
    assert list(en) == list(ja)
    assert [s.rules for s in en.values()] == [s.rules for s in ja.values()]
    assert rules.find("R11.1", "en").key == "end" and rules.find("r8.2", "ja").key == "skills"
    assert rules.find("（Ｒ１２．３）", "ja").key == "boons"  # as a Japanese IME types it


def test_the_r15_section_states_the_round_cap() -> None:
    """R15 is mostly the round cap (end of round 30: solo lost, else lowest threat, then
    R14.4); its section spoke only of undo (the second new-player audit)."""
    en = rules.sections("en")["time"].body
    ja = rules.sections("ja")["time"].body
    assert "end of round 30" in en and "lowest threat" in en and "solo, it is lost" in en
    assert "30ラウンド目の終わり" in ja and "ソロでは敗北" in ja


def test_each_interface_reads_its_own_way_of_answering() -> None:
    """The rules are one; how a player types an answer is not: Discord's sections name slash
    commands and never a console command line, the console's the reverse — in every section
    where either says how, in both languages."""
    for lang in ("en", "ja"):
        for sec in rules.sections(lang).values():
            discord, console_ = sec.read("Discord"), sec.read("Console")
            assert "Console:" not in discord and "Discord:" not in console_
            assert "/rr" not in console_, (lang, sec.key)
            if "/rr" in sec.body:  # a way to answer in Discord: the console's too
                assert console_ != discord, (lang, sec.key)
    end = rules.find("R11", "en")
    assert "`/rr ready`" in end.read("Discord") and "`ready SQUARE [SQUARE]`" in end.read("Console")
    assert "`undo NAME`" in rules.find("R15", "en").read("Console")


def _run(coro) -> None:
    asyncio.run(coro)


def test_rr_rules_opens_a_cited_rule_id_and_explains_a_wrong_topic(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            ann, yui = h.user("ann"), h.user("yui", locale="ja")
            res = await h.slash(ann, "rr rules", topic="R11.1")
            assert res.embed["title"] == "⑦ End phase" and "Support" in res.embed["description"]
            assert "`/rr support`" in res.embed["description"]
            assert "Console" not in res.embed["description"]
            res = await h.slash(yui, "rr rules", topic="R11")
            assert res.embed["title"] == "⑦終了処理"
            res = await h.slash(ann, "rr rules", topic="boons")  # a suggested topic still works
            assert res.embed["title"] == "Boons: honor marks"
            res = await h.slash(ann, "rr rules", topic="banana")
            assert res.ephemeral and "banana" in res.text and "⑦ End phase" in res.text
            assert res.text.startswith("⛔ ")  # a refusal, marked as every refusal is
            assert "R11" in res.text
            got = await h.autocomplete(ann, "rr rules", focused="topic", topic="end")
            assert "end" in got.choice_values
            # a word a message uses, not a topic's name: the section that defines it (R14.2)
            res = await h.slash(ann, "rr rules", topic="threat")
            assert res.embed["title"] == "Winning with 2–4 players", res.text
            assert "Threat =" in res.embed["description"]
            res = await h.slash(yui, "rr rules", topic="脅威")
            assert res.embed["title"] == "2〜4人戦の勝利"
            got = await h.autocomplete(ann, "rr rules", focused="topic", topic="threat")
            assert got.choice_values == ["winning"]
    _run(scenario())


@pytest.mark.process
def test_console_rules_opens_a_cited_rule_id(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", "--seed", "1",
                  lines=["rules R11.1", "rules banana", "rules"]).stdout
    assert "⑦ End phase\n1. Support" in out
    assert "support SQUARE" in out and "/rr support" not in out  # the console's own words
    assert "There is no rules topic 'banana'" in out
    assert re.search(r"end\s+⑦ End phase \(R11\)", out)
    ja = console(tmp_path, "--names", "Ann", "--seed", "1", "--lang", "ja", "--new",
                 lines=["ルール R11"], db="ja.db").stdout
    assert "⑦終了処理\n1. 援護" in ja
