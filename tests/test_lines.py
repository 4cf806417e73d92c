"""Narration is written once (service/lines.py) and each interface formats it: Discord shows
emphasis in bold and slash commands as code, the console shows plain words and the command
to type there — and nothing a player typed (a name) is ever taken for a mark."""

from __future__ import annotations

from rules_helpers import decision, puzzle, unit

from cogs.text import markdown
from console.text import plain
from engine import default_cards
from service.lines import COMMAND, STRONG, Piece, parse
from service.narrate import narrate, prompt


def test_a_prompt_reads_as_markdown_in_discord_and_as_console_commands_in_the_console():
    """R7 (Advance): the unit-action question names the card and the command to type; `done`
    is for stopping early (the Discord new-player audit: "then `/rr done`" was refused after
    a lone unit's action, which had ended the question on its own)."""
    g = puzzle([{"1A": unit("knight")}], decisions={0: decision("actions", card="advance",
                                                                  left=2)})
    line = prompt(g, 0, "en")
    assert markdown(line, "en") == "**Advance**: 2 unit actions left — `/rr act` (`/rr done` ends them early)."
    assert plain(line, "en") == ("Advance: 2 unit actions left — 'act SQUARE [to SQUARE] "
                                 "[attack/area/heal …]' ('done' ends them early).")
    ja = prompt(g, 0, "ja")
    assert markdown(ja, "ja") == "**進撃**: 残り2回のユニット行動 — `/rr 行動`（早めに終えるなら`/rr 完了`）"
    # Japanese brackets take no spaces around them
    assert plain(ja, "ja") == ("進撃: 残り2回のユニット行動 —「行動 マス [→ マス] "
                               "[攻撃/範囲攻撃/回復 …]」（早めに終えるなら「完了」）")


def test_a_count_takes_its_plural_form():
    """R7: the last unit action of a card reads in the singular (English has two forms,
    Japanese one)."""
    g = puzzle([{"1A": unit("knight")}], decisions={0: decision("actions", card="raid",
                                                                  left=1)})
    assert str(prompt(g, 0, "en")).startswith("Raid: 1 unit action left — act")
    assert str(prompt(g, 0, "ja")).startswith("奇襲: 残り1回のユニット行動")


def test_a_story_line_is_bold_in_discord_and_plain_in_the_console():
    ev = [{"type": "phase", "phase": "main", "round": 3, "start_player": 1}]
    (line,) = narrate(ev, ["Ann", "Bob"], default_cards(), "en")
    assert markdown(line, "en") == "**Round 3** begins. Start player: Bob."
    assert plain(line, "en") == "Round 3 begins. Start player: Bob."
    (ja,) = narrate(ev, ["Ann", "Bob"], default_cards(), "ja")
    assert plain(ja, "ja") == "ラウンド3 開始。スタートプレイヤー: Bob"


def test_a_name_that_looks_like_a_mark_stays_words():
    """Marks come from the template only: placeholders are filled after the split."""
    line = parse("<b>{p}</b> chose it; <cmd>done</cmd>", p="<cmd>place</cmd> **x**")
    assert line[0] == Piece("<cmd>place</cmd> **x**", STRONG)
    assert [p.mark for p in line] == [STRONG, "", COMMAND]
    assert plain(line, "en") == "<cmd>place</cmd> **x** chose it; 'done'"
    ev = [{"type": "picked", "player": 0, "card": "advance"}]
    (picked,) = narrate(ev, ["<b>Eve</b>"], default_cards(), "en")
    assert plain(picked, "en") == "<b>Eve</b> chose Advance (LEADER: its large effect)."


def test_a_chosen_card_says_what_leader_means():
    """R6.3, the Discord new-player audit: "(LEADER)" was a term the channel never
    explained; the line says what it means, with followers only where there are others."""
    ev = [{"type": "picked", "player": 0, "card": "advance"}]
    (two,) = narrate(ev, ["Ann", "Bob"], default_cards(), "en")
    assert plain(two, "en") == ("Ann chose Advance (LEADER: the large effect; the others "
                                "follow with the small one).")
    (ja,) = narrate(ev, ["Ann", "Bob"], default_cards(), "ja")
    assert "FOLLOWERとしてスモール・エフェクト" in plain(ja, "ja")


def test_the_same_summon_on_every_board_is_one_line():
    """R10 (Summon): each board summons the same card on the same square: told once."""
    ev = [{"type": "summoned", "player": s, "card": "goblin", "square": "6B"} for s in (0, 1)]
    ev.append({"type": "summoned", "player": 0, "card": "goblin", "square": "6A"})
    lines = [str(x) for x in narrate(ev, ["Ann", "Bob"], default_cards(), "en")]
    assert lines == ["Goblin summoned on 6B (Ann, Bob)", "Goblin summoned on 6A (Ann)"]
