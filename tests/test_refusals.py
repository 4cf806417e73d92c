"""Refusals are codes + parameters, translated through the catalogue (issue 11).

The engine names a refusal by code (`engine/messages.py`); its English is rendered from the
engine's own table, every other language from `refusal.<code>` in i18n/*.po, never by
reading the English back. Rule ids are those of the refusals' texts (R8.2 reach, R9.3 end).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import i18n
from engine import Game, IllegalAction, NotationError, parse
from engine.messages import ENGLISH, Name, phrase
from service import ServiceError
from service.refusals import reason, words

ROOT = Path(__file__).resolve().parents[1]
ERRORS = {"IllegalAction", "NotationError", "GameFinished", "NotYourDecision", "StaleDecision",
          "phrase"}


def test_card_names_and_squares_survive_translation() -> None:
    """R8.1: a blocked move names the unit, both squares and the monster in the way."""
    e = IllegalAction("unreachable", card=Name("Thief★", "シーフ★"), square="2B", target="5B",
                      why=phrase("stands_on", card=Name("Goblin", "ゴブリン"), square="4B"))
    assert str(e) == "Thief★ on 2B cannot reach 5B: a Goblin stands on 4B."
    assert words(e, "ja") == "2Bのシーフ★は5Bに行けません: 4Bにゴブリンがいます。"
    assert words(e, "en") == str(e)
    assert words(e, "fr") == str(e)  # an unknown language reads English


def test_a_real_refusal_carries_its_code_and_parameters() -> None:
    """What an interface gets is data: the code and the particulars, not only a sentence."""
    g = Game.new(["Ann", "Bob"], seed=3)
    seat = g.waiting_for()[0]
    with pytest.raises(IllegalAction) as e:
        g.apply(seat, "act 2B")
    assert e.value.key == "wrong_verb" and e.value.params["verbs"]
    assert words(e.value, "ja").startswith("今は「")
    with pytest.raises(NotationError) as n:
        parse("act 9Z")
    assert (n.value.key, n.value.params["text"]) == ("syntax.bad_square", "9Z")
    assert words(n.value, "ja") == "「9Z」はマスではありません（行動するユニット）: マスは1A … 6Cです。"


def test_the_end_of_a_game_reads_in_japanese() -> None:
    """R9.3: the reason a game ended is a code, told in the reader's language."""
    result = {"winners": [0], "draw": False, "reason": ENGLISH["end.last_standing"],
              "code": "end.last_standing"}
    assert reason(result, "ja") == "最後に残ったプレイヤー（R9.3）"
    assert reason(result, "en") == "last player standing (R9.3)"
    assert reason({"reason": "something else"}, "ja") == "something else"
    e = ServiceError.of("svc.over_win", who=Name("Ann", "Ann"),
                        reason=phrase("end.last_standing"))
    assert e.message == "The game is over: Ann won — last player standing (R9.3)."
    assert words(e, "ja") == "ゲームは終了しました: Annの勝利 — 最後に残ったプレイヤー（R9.3）。"


def test_a_service_refusal_reads_in_both_languages() -> None:
    e = ServiceError.of("svc.full", n=4)
    assert (e.message, e.code) == ("The game is full (4 players).", "refused")
    assert words(e, "ja") == "ゲームは満員です（4人）。"
    assert words(ServiceError("free text"), "ja") == "free text"  # no code: as it is


def _named_codes() -> list[tuple[str, str]]:
    """Every literal refusal code the product code names (engine errors, phrases, the
    service's `ServiceError.of`)."""
    found: list[tuple[str, str]] = []
    for path in ROOT.glob("*/*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("tests/", ".venv/", "bench/")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else (
                f.attr if isinstance(f, ast.Attribute) and f.attr != "of" else
                "of" if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                and f.value.id == "ServiceError" else None)
            arg = node.args[0]
            if name in ERRORS | {"of"} and isinstance(arg, ast.Constant) \
                    and isinstance(arg.value, str):
                found.append((rel, arg.value))
    return found


def test_every_refusal_code_is_in_both_catalogues() -> None:
    named = _named_codes()
    assert len(named) > 100  # the walk finds the raise sites
    engine_codes = {c for where, c in named if where.startswith("engine/")}
    assert engine_codes <= set(ENGLISH)
    for where, code in named:
        for lang in ("en", "ja"):
            assert i18n.CATALOGUES[lang].singular.get(f"refusal.{code}"), (where, code, lang)


def test_no_refusal_is_written_as_an_english_sentence() -> None:
    """The engine and service raise codes: a sentence in a raise would be English only."""
    sentences = [(where, c) for where, c in _named_codes() if " " in c]
    assert sentences == []


def test_a_unit_named_by_its_card_is_told_where_it_stands() -> None:
    """R8 (a unit acts from its square), the Discord new-player audit: `act warrior` got
    "'WARRIOR' is not a square", quoting what nobody typed and not saying where the
    Warrior★ was. It now says the name is a card and where that unit stands; nothing
    changes."""
    g = Game.new(["Ann", "Bob"], seed=12)
    g.apply(0, "place warrior 2B")
    g.apply(1, "place thief 2B")
    g.apply(g.state["start_player"], "pick advance")
    before = g.to_json()
    with pytest.raises(IllegalAction) as e:
        g.apply(0, "act warrior to 3B")
    assert str(e.value) == ("'warrior' is a card, not a square: a unit acts by its square — "
                            "your Warrior★ is on 2B.")  # (no console usage in Discord)
    assert words(e.value, "ja").startswith("「warrior」はカード名で、マスではありません。") and \
        "ウォーリア★は2Bにいます" in words(e.value, "ja")
    with pytest.raises(IllegalAction, match="you have no Warrior★ on your board"):
        g.apply(1, "act warrior")
    with pytest.raises(NotationError, match="'ZZ' is not a square"):  # not a card: as before
        g.apply(0, "act zz")
    assert g.to_json() == before
