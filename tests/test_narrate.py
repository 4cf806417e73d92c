"""Narration: every public event a player can cause reads as a sentence, in EN and JA, and
private events never reach anyone else's lines."""

from __future__ import annotations

import random

from rules_helpers import actions, decision, dice_seed, hp, invade, monster, puzzle, unit

from engine import Game, default_cards, visible
from service import narrate as _narrate


def narrate(*args, **kwargs) -> list[str]:
    """The story's words (service/lines.py: what both interfaces show, marks aside)."""
    return [str(line) for line in _narrate.narrate(*args, **kwargs)]


def prompt(*args, **kwargs) -> str | None:
    line = _narrate.prompt(*args, **kwargs)
    return None if line is None else str(line)


def _events(seed: int, players: int, steps: int = 3000) -> tuple[Game, list[dict]]:
    g = Game.new([f"P{i}" for i in range(players)], seed=seed)
    rng = random.Random(seed)
    out: list[dict] = []
    for _ in range(steps):
        if g.over:
            break
        seat = rng.choice(g.waiting_for())
        out += g.apply(seat, rng.choice(g.legal_actions(seat)))
    return g, out


def test_every_kind_of_event_narrates_in_both_languages():
    names = ["Ann", "Bob", "Cy", "Di"]
    seen: set[str] = set()
    for seed in range(12):
        g, ev = _events(seed, 1 + seed % 4)
        for lang in ("en", "ja"):
            lines = narrate(visible(ev, None), names, default_cards(), lang, limit=10_000)
            assert all(isinstance(line, str) and line for line in lines)
        seen |= {e["type"] for e in ev}
        for seat in g.waiting_for():
            assert prompt(g, seat, "en") and prompt(g, seat, "ja")
    # the story covers the main beats of a game
    assert {"picked", "moved", "rolled", "summoned", "monster_moved", "game_over"} <= seen


def test_medal_values_only_in_their_owners_lines():
    """R14.1: a medal's value is known to its owner only."""
    ev = [{"type": "medal", "player": 0},
          {"type": "medal_value", "player": 0, "value": -4, "vis": [0]}]
    names = ["Ann", "Bob"]
    assert "-4" not in " ".join(narrate(visible(ev, 1), names, default_cards()))
    assert "-4" not in " ".join(narrate(visible(ev, None), names, default_cards()))
    assert "-4" in " ".join(narrate(visible(ev, 0), names, default_cards()))


def test_a_bards_command_is_told():
    ev = [{"type": "command", "player": 0, "from": "1B", "target": "2B"}]
    assert "2B" in narrate(ev, ["Ann"], default_cards())[0]


# ---- the story of a phase: damage, HP left, moves, rolls (issue 7) ---------------------------

def _lines(ev: list[dict], lang: str, names: tuple[str, ...] = ("Ann", "Bob")) -> list[str]:
    return narrate(visible(ev, None), list(names), default_cards(), lang, limit=10_000)


def test_a_monster_attack_says_the_damage_and_the_hp_left_in_both_languages():
    """R9.1: the Skeleton on 4B hits the Warrior★ on 1B for its ATK 2; the line names both
    cards and says the HP left (4 − 1 − 2 = 1 of 4); the Goblin's move is told as a move."""
    g = puzzle([{"4B": monster("skeleton"), "1B": unit("warrior_star", dmg=1),
                 "5A": monster("goblin")}])
    ev = invade(g)
    en, ja = _lines(ev, "en"), _lines(ev, "ja")
    assert "Ann: Skeleton on 4B attacks Warrior★ on 1B: 2 damage (HP 1/4)." in en
    assert "Ann: Goblin 5A → 3A." in en
    assert "Ann: 4Bのスケルトンが攻撃 → 1Bのウォーリア★に2ダメージ（HP 1/4）" in ja
    assert "Ann: ゴブリン 5A → 3A" in ja
    # the damage is told once, inside the attack's line
    assert sum("2 damage" in line for line in en) == 1


def test_an_area_attack_tells_every_unit_hit_and_a_faint_then_the_bonus_move():
    """R9.1 ★ range: the Dullahan hits every unit in range; R9 step 2: a unit that fainted
    gives the monster a bonus move, told as such."""
    g = puzzle([{"3B": monster("dullahan"), "2B": unit("sorcerer_star", dmg=1),
                 "2A": unit("cleric_star")}])
    ev = invade(g)
    en = " ".join(_lines(ev, "en"))
    assert "Sorcerer★ on 2B: 1 damage (HP 0/2)" in en
    full = hp("cleric_star")
    assert f"Cleric★ on 2A: 1 damage (HP {full - 1}/{full})" in en
    assert "Sorcerer★ on 2B fainted" in en
    assert "(bonus move)" in en
    assert "（ボーナス移動）" in " ".join(_lines(ev, "ja"))


def test_monster_moves_on_one_board_share_a_line_and_boards_stay_apart():
    """R9.2: every monster without a unit in range moves; one line per board."""
    g = puzzle([{"5A": monster("goblin"), "6C": monster("golem")}, {"5B": monster("goblin")}])
    en = _lines(invade(g), "en")
    assert "Ann: Goblin 5A → 3A, Golem 6C → 5C." in en
    assert "Bob: Goblin 5B → 3B." in en


def test_a_roll_shows_the_units_modifier_and_the_damage_left():
    """R8.2: Warrior★ (modifier +1) rolls 4+3: 4+3+1 = 8 vs the Skeleton's DEF 7 is a hit,
    2 damage; the Skeleton, 2 HP from the end, is defeated, so HP 0 of its total."""
    full = hp("skeleton")
    g = puzzle([{"2B": unit("warrior_star"), "3B": monster("skeleton", dmg=full - 2)}],
               decisions={0: actions()}, dice={0: dice_seed((4, 3))})
    ev = g.apply(0, "act 2B attack 3B")
    en, ja = _lines(ev, "en", ("Ann",)), _lines(ev, "ja", ("Ann",))
    assert "Ann: Warrior★ on 2B attacks Skeleton on 3B: 4+3+1 = 8 vs DEF 7: hit, 2 damage." in en
    assert f"Ann: Skeleton on 3B: 2 damage (HP 0/{full})." in en
    assert "Ann: 2Bのウォーリア★が3Bのスケルトンを攻撃: 4+3+1 = 8（防御力7）: 命中・2ダメージ" in ja


def test_readying_reads_as_readying_not_healing_in_japanese():
    """R11.2 / Rest (R7): removing action markers returns units to 未行動 (rulebook p.16,
    p.23); 回復 is the rulebook's word for removing damage, so it must not appear here."""
    g = puzzle([{"1A": unit("warrior_star", acted=True), "1B": unit("thief_star", acted=True)}],
               decisions={0: decision("ready", card="fatigue", n=2)})
    ask = prompt(g, 0, "ja")
    assert ask is not None and "未行動に戻" in ask and "最大2体" in ask
    assert "回復" not in ask.replace("疲労回復", "")  # the step's own name is 疲労回復 (p.23)
    ev = g.apply(0, "ready 1A 1B")
    line = " ".join(_lines(ev, "ja", ("Ann",)))
    assert "1A、1Bのユニットを未行動に戻しました" in line and "回復" not in line


def test_support_healing_names_the_unit_and_its_hp_with_the_rulebooks_word():
    """R11.1 ① 援護 (p.23): the most-pressed player heals 1 HP on one unit."""
    full = hp("knight")
    g = puzzle([{"1A": unit("knight", dmg=2)}, {}], decisions={0: decision("support")})
    ev = g.apply(0, "support 1A")
    assert f"Ann: support heals 1 on Knight on 1A (HP {full - 1}/{full}) (R11.1)." in _lines(
        ev, "en")
    assert f"Ann: 援護で1AのナイトのHPを1回復（HP {full - 1}/{full}）。" in _lines(ev, "ja")


def test_the_roll_question_shows_the_modifier_and_the_defence():
    """R8.2 / R12.3: 4+3 with the Warrior★'s +1 is 8, short of the Golem's DEF 9: a miss the
    player may reroll with Willpower; the question shows the sum as it is made."""
    g = puzzle([{"2B": unit("warrior_star"), "3B": monster("golem")}],
               decisions={0: actions()}, dice={0: dice_seed((4, 3))}, player={0: {"honor": 1}})
    g.apply(0, "act 2B attack 3B")
    assert (g.decision(0) or {}).get("kind") == "roll"
    assert "4+3+1 = 8 vs DEF 9: below DEF, 1 damage" in (prompt(g, 0, "en") or "")
    assert "4+3+1 = 8（防御力9）: 防御力未満・1ダメージ" in (prompt(g, 0, "ja") or "")


def test_the_roll_question_prices_the_level_up_it_offers():
    """R12.1 / R12.2: after 4+3+1 = 8 against the Golem's DEF 9, a Level Up to the Warrior
    (+2) would make 9, a hit; the question says what it costs — 2 honor marks for a
    player's first two level-ups, 3 from the third — as it prices Willpower."""
    for done, price in ((0, 2), (2, 3)):
        g = puzzle([{"2B": unit("warrior_star"), "3B": monster("golem")}],
                   decisions={0: actions()}, dice={0: dice_seed((4, 3))},
                   player={0: {"honor": 4, "levelups": done}})
        g.apply(0, "act 2B attack 3B")
        en, ja = prompt(g, 0, "en") or "", prompt(g, 0, "ja") or ""
        assert f"level up ({price} honor marks)" in en, en
        assert f"レベルアップ（栄誉マーク{price}）" in ja, ja


def test_japanese_lists_use_the_ideographic_comma():
    from engine import default_cards
    from service.narrate import narrate
    ev = [{"type": "mercenaries", "cards": ["knight",
                                             "thief_star"]}]
    (ja,) = narrate(ev, ["Ann"], default_cards(), "ja")
    assert "ナイト、シーフ★" in ja and ", " not in ja
    (en,) = narrate(ev, ["Ann"], default_cards(), "en")
    assert "Knight, Thief★" in en


def test_every_question_that_may_be_declined_says_how():
    """A prompt whose decision accepts `done` names it (fatigue recovery R11.2, support
    R11.1, recruit R7…): a newcomer must not be left guessing how to pass. Random 2- and
    4-player games, every question asked along the way, in both languages."""
    seen: set[str] = set()
    for seed, players in ((1, 2), (2, 4), (3, 2)):
        g = Game.new([f"P{k}" for k in range(players)], seed=seed)
        rng = random.Random(seed)
        for _ in range(3000):
            if g.over:
                break
            seat = g.waiting_for()[0]
            legal = [str(a) for a in g.legal_actions(seat)]
            kind = g.decision_kind(seat)
            for lang in ("en", "ja"):  # the command is typed as it is in every language
                line = _narrate.prompt(g, seat, lang)
                if "done" in legal and line is not None:
                    assert "done" in str(line), (kind, lang, str(line))
                    seen.add(str(kind))
            g.apply(seat, rng.choice(legal))
    assert {"ready", "support", "recruit"} <= seen, seen


def test_a_choosers_time_out_is_told_once():
    """R15 default answer, the group audit: a chooser who ran out of time read "Cat ran out
    of time (default answer)." and then "Cat ran out of time and chose no card." in one
    post; the pass says both. Any other time-out keeps its own line."""
    names = ["Ann", "Bob", "Cat"]
    cs = default_cards()
    told = [str(x) for x in narrate([{"type": "timeout", "player": 2, "decision": "pick"},
                                     {"type": "passed", "player": 2}], names, cs)]
    assert told == ["Cat ran out of time and chose no card."]
    told = [str(x) for x in narrate([{"type": "timeout", "player": 1, "decision": "actions"}],
                                    names, cs)]
    assert told == ["Bob ran out of time (default answer)."]


def test_the_placement_prompt_says_it_costs_nothing():
    """R4.4 (p.7): the initial placement is free of charge. The prompt sat under a hand
    listing prices (Sorcerer★ 3g with 2 gold), which read as if it could not be placed (the
    console audit)."""
    g = Game.new(["Ann"], seed=1)
    assert "free of charge (R4)" in (prompt(g, 0, "en") or "")
    assert "コストはかかりません（R4）" in (prompt(g, 0, "ja") or "")


def test_an_elimination_says_why():
    """R9.2: a boss invading the castle, or a second monster, eliminates a player (2–4
    players). The new-player audit: "☠ Ann is eliminated." did not say which, so a newcomer
    could not tell what to guard against; the line now names the monster and the reason."""
    cs, names = default_cards(), ["Ann", "Bob"]
    boss = [{"type": "invaded", "player": 0, "card": "dragon"},
            {"type": "eliminated", "player": 0}]
    second = [{"type": "invaded", "player": 1, "card": "goblin"},
              {"type": "eliminated", "player": 1}]
    assert narrate(boss, names, cs, "en")[-1] == \
        "☠ Ann is eliminated: a boss, Dragon, invaded the castle (R9.2)."
    assert narrate(second, names, cs, "en")[-1] == \
        "☠ Bob is eliminated: Goblin is the second monster to invade the castle (R9.2)."
    assert narrate(boss, names, cs, "ja")[-1] == \
        "☠ Annは脱落しました。ボスのドラゴンが城に侵入したためです（R9.2）。"
    assert narrate(second, names, cs, "ja")[-1] == \
        "☠ Bobは脱落しました。2体目のモンスター（ゴブリン）が城に侵入したためです（R9.2）。"
    # a resignation is told as one, without a reason it did not have
    assert narrate([{"type": "eliminated", "player": 0, "resigned": True}], names, cs,
                   "en") == ["🏳️ Ann has left the game."]


def test_a_healer_healing_itself_reads_itself():
    """R8.2 heal may target the healer itself. The new-player audit read "1Aのクレリック★が
    1Aのクレリック★のHPを1回復": one unit named twice, as if two. It reads 自分の / itself;
    a heal on another unit still names both."""
    cs, names = default_cards(), ["Ann"]
    heal = {"type": "healed", "player": 0, "square": "1A", "amount": 1, "card": "cleric_star",
            "hp": 4, "hp_left": 4, "by": "cleric_star", "from": "1A"}
    assert narrate([heal], names, cs, "en") == ["Ann: Cleric★ on 1A heals itself: 1 (HP 4/4)."]
    assert narrate([heal], names, cs, "ja") == ["Ann: 1Aのクレリック★が自分のHPを1回復（HP 4/4）。"]
    other = {**heal, "square": "2A", "card": "warrior_star"}
    assert "heals Warrior★ on 2A" in narrate([other], names, cs, "en")[0]


def test_a_solo_summon_names_no_player_and_a_queue_says_what_it_is():
    """The new-player audit: a solo game read "Goblin summoned on 6A (P1)" — with one board
    the "(P1)" meant nothing; and "waits in lane A's queue" did not say what a queue does.
    Solo names no player (several boards still do); the queue line says when the monster
    comes on and names its rule (R10.4), in both languages."""
    cs = default_cards()
    summon = {"type": "summoned", "player": 0, "card": "goblin", "square": "6A"}
    assert narrate([summon], ["P1"], cs, "en") == ["Goblin summoned on 6A"]
    assert narrate([summon], ["P1"], cs, "ja") == ["ゴブリンを6Aに召喚"]
    assert narrate([summon], ["Ann", "Bob"], cs, "en") == ["Goblin summoned on 6A (Ann)"]
    queued = {"type": "queued", "player": 0, "card": "goblin", "lane": "A"}
    assert narrate([queued], ["Ann"], cs, "en") == \
        ["Ann: Goblin waits in lane A's queue, to enter at the next summon (R10.4)."]
    assert narrate([queued], ["Ann"], cs, "ja") == \
        ["Ann: ゴブリンはラインAの待機列へ（次の召喚で登場、R10.4）。"]
