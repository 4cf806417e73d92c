"""Japanese in the rulebook's words and one style (issue 20): the glossary in i18n/README.md
is enforced over every Japanese text a player reads — the catalogue (story, prompts, bot
messages, refusals, image words, console), the rules summary and the daily modifiers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from ja_style import GLOSSARY, JAPANESE, restyle

import i18n
from console import board
from engine import Game

ROOT = Path(__file__).resolve().parent.parent
# usage.* (the console's start-up mistakes) are rewritten by the console's own change.
OWN_ELSEWHERE = ("usage.", "argparse.")  # argparse's own %-format strings: half-width (…)


def _catalogue() -> list[tuple[str, str]]:
    with (ROOT / "i18n" / "ja.po").open("rb") as f:
        cat = read_po(f)
    out = []
    for m in cat:
        mid = m.id[0] if isinstance(m.id, (list, tuple)) else m.id
        if not mid or str(mid).startswith(OWN_ELSEWHERE):
            continue
        for s in ([m.string] if isinstance(m.string, str) else list(m.string)):
            out.append((str(mid), s))
    return out


def _texts() -> list[tuple[str, str]]:
    out = _catalogue()
    for k, line in enumerate((ROOT / "docs" / "rules.ja.md").read_text(encoding="utf-8")
                             .splitlines()):
        out.append((f"docs/rules.ja.md:{k + 1}", line))
    mods = json.loads((ROOT / "service" / "data" / "daily_modifiers.json").read_text())
    out += [(f"daily modifier {m['id']}", m["ja"]) for m in mods["modifiers"]]
    return out


def test_the_glossary_has_the_rulebooks_words() -> None:
    """The table in i18n/README.md (read by ja_style) forbids the variants the issue names."""
    assert GLOSSARY["名誉マーク"] == "栄誉マーク" and GLOSSARY["メダル"] == "勲章"
    assert GLOSSARY["ゴールド"] == "金" and GLOSSARY["小効果"] == "スモール・エフェクト"
    assert GLOSSARY["リーダー"] == "LEADER"
    rulebook = ROOT.parent / "shared" / "reference" / "rulebook-ja.txt"
    if rulebook.exists():  # each word the glossary asks for is the rulebook's own
        book = rulebook.read_text(encoding="utf-8")
        for word in set(GLOSSARY.values()):
            assert word in book, word
        for word in GLOSSARY:
            assert word not in book or word == "栄誉トークン", word  # a component, not a mark


@pytest.mark.parametrize("forbidden", sorted(GLOSSARY))
def test_no_japanese_text_uses_a_forbidden_variant(forbidden: str) -> None:
    assert [where for where, text in _texts() if forbidden in text] == []


def test_gold_is_kin_everywhere_not_g() -> None:
    """金 on images and in text alike: no "2G" cost in Japanese."""
    assert [where for where, text in _texts() if re.search(r"(\d|\})G\b", text)] == []


def test_a_range_is_written_with_a_wave_dash() -> None:
    """1A〜2C, 1〜4 as Japanese writes a range (the rulebook: 2〜4人), not the English dash."""
    assert [where for where, text in _texts() if re.search(r"\w–\w", text)] == []


def test_emphasis_sits_in_the_sentence_without_spaces() -> None:
    """ホストが**開始**を押します: Discord bolds inside a Japanese sentence, so no half-width
    space opens the emphasis after a Japanese word ("ホストが **開始**を")."""
    ja = r"[\u3040-\u30ff\u4e00-\u9fff]"
    assert [where for where, text in _texts() if re.search(ja + r" \*\*\S", text)] == []
    # a command reads as a word of the sentence too: ホストは<cmd>bot add</cmd>で…
    assert [where for where, text in _texts()
            if re.search(ja + r" <cmd>|</cmd> " + ja, text)] == []


def test_one_spacing_and_punctuation_style() -> None:
    """No space around particles or between Japanese words and a placeholder; full-width
    parentheses and 「」 in Japanese sentences (the house style, i18n/README.md)."""
    bad = [(where, text) for where, text in _texts()
           if not where.startswith("docs/rules.ja.md:##") and restyle(text) != text]
    assert bad == []


def test_ai_level_names_share_one_register() -> None:
    """The three AI levels are plain Japanese words, not a loanword beside a grade."""
    names = [i18n.t("ja", f"level.{k}") for k in ("random", "greedy", "expert")]
    assert all(JAPANESE.search(n) and not re.search(r"[\u30a0-\u30ff]", n) for n in names), names
    # the expert of hints and the review is the same player as the AI level: one name
    assert [k for k, text in _texts() if "エキスパート" in text] == []
    assert i18n.t("ja", "level.expert") in i18n.t("ja", "review.title", game=1)


def test_the_text_board_names_its_latin_codes_in_japanese_under_every_board() -> None:
    """The piece codes (Gob, Thi*) are English abbreviations: a Japanese reader gets their
    names with each board the console prints, not only on `board`."""
    g = Game.new(["Ann", "Bob"], seed=1)
    for seat in (0, 1):
        g.apply(seat, "place thief 2B")
    lines = board.compact(g.cards, g.view(0), "ja")
    assert lines[-1].startswith("凡例") and "Thi=シーフ" in lines[-1] and "Gob=ゴブリン" in lines[-1]
    assert not any(line.startswith("Legend") for line in board.compact(g.cards, g.view(0), "en"))
