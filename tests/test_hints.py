"""Hints by the expert AI (issue 23), as players and hosts meet them through the service
(both store backends) and the console: a hint names a listed legal action with a reason and
the chances to win; it is the expert's own choice for the seed; it is refused in a ranked
daily attempt and where the host turned hints off (nothing changes then); every hint used
is shown to everyone."""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rules_helpers import actions, puzzle, unit

from ai import make_player
from ai.advise import Advice, Reason, advise, explain, keeping_marks
from ai.chance import Chance
from ai.expert import ExpertPlayer, Weighing
from ai.model import cards_of
from cogs.text import markdown
from console.text import plain
from engine import Game, board, parse, view
from service import GameService, ServiceError
from service.daily import day_end
from service.daily_play import DailyHost
from service.hints import advice_lines, hinted, used_lines
from service.notation import action_words
from service.tutorial import lesson_index, lessons, puzzle_state

ROOT = Path(__file__).resolve().parents[1]
DAY = dt.date(2026, 11, 23)
SECRET = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"


async def _two_player(db):
    store = await db.open()
    svc = GameService(store, clock=lambda: 1_000_000.0, seed_source=lambda: 11)
    await svc.lobby.new_lobby(1, 100, 11, "Ann", players=2, time_limit_s=3600)
    await svc.lobby.join(100, 22, "Bob")
    out = await svc.lobby.start(100, 11)
    return store, svc, out


def test_a_hint_is_a_listed_legal_action_with_a_reason_and_everyone_sees_it_was_used(db):
    """Issue 23: the suggestion is one of the caller's listed legal actions, with a reason
    and the chance to win before and after; the game itself is unchanged (the engine log
    holds moves only) and the use is counted where everyone sees it ("Ann used 1 hint")."""
    async def main():
        store, svc, out = await _two_player(db)
        seat = out.game.waiting_for()[0]
        user = out.row.seats[seat]["user"]
        before = await store.get(out.row.id)
        got = await svc.hints.hint(100, user)
        legal = [str(a) for a in out.game.legal_actions(seat)]
        assert got.advice.action in legal
        assert 0.0 <= got.advice.p_before <= 1.0 and 0.0 <= got.advice.p_after <= 1.0
        text = advice_lines(got.advice, out.game.cards, "en")
        # the answer to type, with the cards' names (typed back, the same answer)
        typed = action_words(got.advice.action, out.game.cards, "en")
        assert typed in text[0] and text[1]
        # the answer as each interface shows one: code in Discord, quoted in a terminal
        assert markdown(text[0], "en").endswith(f"`{typed}`")
        ja = advice_lines(got.advice, out.game.cards, "ja")
        assert plain(ja[0], "ja").endswith(f"「{action_words(got.advice.action, out.game.cards, 'ja')}」")
        assert str(text[2]).startswith("Estimated chance to win:")
        assert str(ja[2]).startswith("推定勝率")
        after = await store.get(out.row.id)
        assert after.state == before.state and after.version == before.version
        # the suggestion is kept by decision, so the review leaves that answer out
        assert hinted(after.meta) == {(seat, out.game.decision_id(seat)): got.advice.action}
        assert await store.log(out.row.id) == await store.log(before.id)
        # another player reads the game: the hint is told with its user's name
        row, _g = await svc.tables.viewable(100)
        names = [s["name"] for s in row.seats]
        assert used_lines(row, names, "en") == [f"{names[seat]} used 1 hint"]
        await svc.hints.hint(100, user)
        row, _g = await svc.tables.viewable(100)
        assert used_lines(row, names, "en") == [f"{names[seat]} used 2 hints"]
        # a watcher (not seated) gets a clear refusal, nothing counted
        with pytest.raises(ServiceError) as e:
            await svc.hints.hint(100, 999)
        assert e.value.code == "not_player"
        other = 1 - seat
        if out.game.decision(other) is None:
            with pytest.raises(ServiceError, match="nothing to decide"):
                await svc.hints.hint(100, out.row.seats[other]["user"])
        row, _g = await svc.tables.viewable(100)
        assert row.meta["hints"] == {str(seat): 2}
        await store.close()
    asyncio.run(main())


def test_the_hint_is_the_experts_choice_for_the_same_seed():
    """Issue 23: a hint is the expert AI's answer (same seed, same view), and the same
    question asked twice gets the same hint."""
    g = Game.new(["Ann", "Bob"], seed=4)
    g.apply(0, str(g.legal_actions(0)[0]))
    g.apply(1, str(g.legal_actions(1)[0]))
    seat = g.waiting_for()[0]
    v = view(g.state, seat)
    # a generous wall-clock cap: the count budget alone decides, on any machine load
    a = advise(v, seat, seed=77, budget=60.0)
    assert a.action == ExpertPlayer(77, budget=60.0).choose(v, seat)
    assert advise(v, seat, seed=77, budget=60.0) == a


def test_a_hint_never_says_its_own_move_lowers_the_chance_to_win():
    """Issue 23: the chances a hint shows are read from the very rollouts the expert chose
    on (the same samples and dice for every candidate), so the suggestion's chance is never
    below the obvious answer's, greedy's ("25% now, 19% after this move" told a player the
    hint was bad: with play-outs of their own, 3 samples, a third of the hints on searched
    decisions said so); where the suggestion is greedy's answer they are one figure."""
    checked, disagreed, unsearched = 0, 0, 0
    for seed, names, opts in ((1, ["Ann"], {"difficulty": "normal"}), (2, ["Ann", "Bob"], None)):
        g = Game.new(names, seed=seed, options=opts)
        p = make_player("greedy", seed)
        goal = checked + 6
        while not g.over and (checked < goal or not unsearched):
            who = g.waiting_for()[0]
            v = g.view(who)
            kind = g.decision_kind(who)
            if kind in ("pick", "place", "recruit") and checked < goal:
                hint_seed = len(g.state["log"])
                a = advise(v, who, seed=hint_seed, budget=60.0)
                assert a.p_after >= a.p_before, (kind, a)
                if checked == 0:  # the figures are the expert's own, not a second guess
                    w = ExpertPlayer(hint_seed, budget=60.0).weighing(v, who)
                    assert a.p_after == Chance(v).mean(w.values[w.best])
                checked += 1
                disagreed += a.p_after > a.p_before
            elif kind == "actions" and not unsearched and len(names) == 2:
                a = advise(v, who, seed=5, budget=60.0)
                assert a.p_before == a.p_after and 0.0 <= a.p_after <= 1.0
                unsearched += 1
            g.apply(who, p.choose(v, who))
    assert checked == 12 and unsearched and disagreed >= 2, (checked, unsearched, disagreed)


def test_no_hint_in_a_ranked_daily_attempt_but_in_practice(db):
    """Issue 23: never in a ranked daily attempt — a clear refusal, nothing counted; a
    daily practice allows them."""
    async def main():
        store = await db.open()
        clock = lambda: day_end(DAY) - 12 * 3600  # noqa: E731
        h = await DailyHost.open(GameService(store, clock=clock), secret=SECRET)
        started = await h.attempts.play(1, "Ann", 100, 9001)
        key = started.row.channel_id
        with pytest.raises(ServiceError, match="ranked daily attempt") as e:
            await h.games.hints.hint(key, 1)
        assert e.value.code == "hints"
        row, _g = await h.games.tables.viewable(key)
        assert "hints" not in row.meta
        # a practice (here: yesterday's) allows them
        past = await h.attempts.practice(1, "Ann", 100, 9001)
        got = await h.games.hints.hint(past.row.channel_id, 1)
        assert got.row.meta["hints"] == {"0": 1}
        await store.close()
    asyncio.run(main())


@pytest.mark.parametrize("damage", [0, None, "gone"])
def test_no_hint_in_a_ranked_daily_attempt_whose_record_lost_its_ranked_flag(db, damage):
    """The fault-injection audit: the ranked flag in a daily game's record was read by its
    truth, so a ranked attempt whose flag was damaged to 0 or null (or lost) gave hints in
    the day's ranked try. Only `ranked: false`, as a practice is written, allows them."""
    async def main():
        store = await db.open()
        clock = lambda: day_end(DAY) - 12 * 3600  # noqa: E731
        h = await DailyHost.open(GameService(store, clock=clock), secret=SECRET)
        started = await h.attempts.play(1, "Ann", 100, 9001)
        record = dict(started.row.settings["daily"])
        if damage == "gone":
            del record["ranked"]
        else:
            record["ranked"] = damage
        settings = {**started.row.settings, "daily": record}
        await store.close()
        await db.sql("UPDATE games SET settings=? WHERE id=?", json.dumps(settings),
                     started.row.id)
        store = await db.open()
        h = await DailyHost.open(GameService(store, clock=clock), secret=SECRET)
        with pytest.raises(ServiceError, match="ranked daily attempt"):
            await h.games.hints.hint(started.row.channel_id, 1)
        row, _g = await h.games.tables.viewable(started.row.channel_id)
        assert "hints" not in row.meta
        await store.close()
    asyncio.run(main())


def test_a_host_turns_hints_off_for_the_channel_and_its_next_games(db):
    """Issue 23: `/rr settings hints:off` (host or Manage Channels) refuses hints in the
    channel, for its next games too; nobody else can change it."""
    async def main():
        store, svc, out = await _two_player(db)
        seat = out.game.waiting_for()[0]
        user = out.row.seats[seat]["user"]
        with pytest.raises(ServiceError, match="Only the host"):
            await svc.hints.set_hints(100, 22, False, can_manage=False)
        await svc.hints.set_hints(100, 11, False, can_manage=False)
        with pytest.raises(ServiceError, match="turned hints off"):
            await svc.hints.hint(100, user)
        row, _g = await svc.tables.viewable(100)
        assert "hints" not in row.meta
        await svc.lobby.abandon(100, 11, can_manage=False)
        lobby = await svc.lobby.new_lobby(1, 100, 11, "Ann", players=1)
        assert lobby.settings["hints"] is False
        await svc.hints.set_hints(100, 33, True, can_manage=True)  # Manage Channels
        await svc.lobby.start(100, 11)
        got = await svc.hints.hint(100, 11)
        assert got.row.meta["hints"] == {"0": 1}
        await store.close()
    asyncio.run(main())


@pytest.mark.process
def test_console_hint_names_a_legal_action_and_status_tells_who_used_it(tmp_path: Path):
    """Issue 23, console: `hint` answers with a listed action, a reason and the chances;
    `status` then shows the use."""
    lines = "hint\nstatus\n"
    r = subprocess.run([sys.executable, str(ROOT / "bot.py"), "--console", "--db",
                        str(tmp_path / "c.db"), "--out", str(tmp_path / "out"), "--names",
                        "Ann", "--difficulty", "normal", "--seed", "3"],
                       input=lines, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert "Traceback" not in r.stdout + r.stderr
    g = Game.new(["Ann"], seed=3, options={"difficulty": "normal"})
    legal = {action_words(str(a), g.cards, "en") for a in g.legal_actions(0)}
    shown = [line.split("'")[1] for line in r.stdout.splitlines() if "Hint (the expert AI)" in line]
    assert len(shown) == 1 and shown[0] in legal, r.stdout[-2000:]
    # one person at the keyboard: the hint is theirs, not headed "Ann:" on a line alone
    assert "\nAnn:\n" not in r.stdout
    assert "_star" not in shown[0]  # a card's name, not its key
    assert "`" not in r.stdout  # quoted as the console quotes, not in Discord's backticks
    assert "Estimated chance to win:" in r.stdout
    assert "Ann used 1 hint" in r.stdout


def test_an_attack_hint_says_who_hits_what_and_how_hard_in_english_and_japanese():
    """Issue 23: the reason names the acting unit, the monster it hits and the damage
    expected (the dice weighed, R8.2), from the engine's own facts, in the reader's language."""
    g = Game.new(["Ann", "Bob"], seed=5)
    p = make_player("greedy", 1)
    found = None
    for _ in range(200):
        who = g.waiting_for()[0]
        if g.decision_kind(who) == "actions":
            attacks = [a for a in g.legal_actions(who) if a.skill is not None
                       and a.skill.kind == "attack"]
            if attacks:
                found = who, attacks[0]
                break
        g.apply(who, p.choose(g.view(who), who))
    assert found is not None
    seat, a = found
    v = g.view(seat)
    r = explain(cards_of(v), v, seat, a)
    target = v["players"][seat]["board"][board.square(a.skill.targets[0])]
    assert r.monster == target["card"] and r.target == a.skill.targets[0]
    assert 0 < r.damage <= g.cards.monsters[target["card"]].hp
    advice = Advice(str(a), r, 0.25, 0.5)
    en = advice_lines(advice, g.cards, "en")
    assert f"attacks the {g.cards.name(r.monster, 'en')} on {r.target}" in en[1]
    assert f"{r.damage:g} damage expected" in en[1]
    assert str(en[1]).endswith("expected."), en[1]  # the reason is a sentence
    assert str(en[2]) == ("Estimated chance to win: 50% with this move, 25% with the most "
                          "obvious one")
    ja = advice_lines(advice, g.cards, "ja")
    assert g.cards.name(r.monster, "ja") in ja[1] and "期待ダメージ" in ja[1]


def test_a_monster_at_the_castle_door_is_said_to_get_in_this_rounds_invasion():
    """R5/R9: the Invasion follows the Main phase of the same round, so a Goblin on 2C
    that nobody stops gets into the castle before the round ends (solo: the game is lost,
    R13.1) — the hint says "in the coming Invasion", not "next round"."""
    lesson = lessons()[lesson_index("summon")]
    pos = copy.deepcopy(dict(lesson.position))
    pos["board"] = {"1A": {"kind": "unit", "card": "thief_star"},
                    "2B": {"kind": "unit", "card": "warrior_star"}, "2C": {"card": "goblin"}}
    g = Game.from_json(json.dumps(puzzle_state(pos, lesson.cards_version)))
    r = explain(g.cards, g.view(0), 0, parse("act 2B attack 2C"))
    assert r.castle and 0 < r.stops < 1  # the attack may miss: then the Goblin gets in
    advice = Advice("act 2B attack 2C", r, 0.5, 0.6)
    assert str(advice_lines(advice, g.cards, "en")[1]).endswith(
        f"; it stops the monster reaching your castle in the coming Invasion "
        f"{round(100 * r.stops)}% of the time.")
    assert "この後の侵略で城に到達するはずのモンスターを" in advice_lines(advice, g.cards, "ja")[1]
    round_ = g.round
    g.apply(0, "done")  # nobody stops it
    assert g.over and g.result["code"] == "end.castle_invaded" and g.round == round_


def test_where_every_sample_ends_alike_the_marks_are_kept():
    """R12 (a Level Up, a reroll and a Full Move spend honor marks, which break a tie between declarers, R14.3, and
    count in the daily's score): in a game already won, hints suggested Level Ups, "100% now,
    100% after" (the learning audit). Where a Level Up and another answer do equally well
    on every sample, the expert keeps its marks — even when greedy ranked the Level Up
    first."""
    won = [[4000.0] * 3, [4000.0] * 3, [4000.0] * 3]
    w = Weighing([parse("levelup 2B"), parse("done"), parse("act 1A to 2A")], won)
    assert str(w.choice) == "done"
    better = Weighing([parse("levelup 2B"), parse("done")], [[4000.0] * 3, [3900.0] * 3])
    assert str(better.choice) == "levelup 2B"  # where it does better, it is still chosen
    # the hint shows chances: where the evaluation still prefers the stronger unit but the
    # chance to win is the same to the percent, the hint keeps the marks
    assert keeping_marks(better, [1.0, 0.999], better.best) == 1
    assert keeping_marks(better, [0.62, 0.55], better.best) == 0
    # Willpower's reroll and a Full Move pay a mark too (R12.3, R12.4; the second audit)
    roll = Weighing([parse("reroll"), parse("keep")], [[4000.0] * 3, [4000.0] * 3])
    assert str(roll.choice) == "keep"
    far = Weighing([parse("act 2A fullmove to 4B attack 5B"), parse("act 2A attack 5A")],
                   [[4100.0] * 3, [4000.0] * 3])
    assert keeping_marks(far, [0.996, 0.995], far.best) == 1
    assert keeping_marks(far, [0.99, 0.72], far.best) == 0


def test_a_move_hint_says_where_the_unit_goes():
    """The second learning audit: a hint for a move (or a heal) named only the square the
    unit starts on ("Warrior★ 2B: …" for `act 2B fullmove to 3A`)."""
    g = Game.new(["Ann"], seed=1)
    r = Reason("act", unit="warrior_star", square="2B", to="3A")
    en = str(advice_lines(Advice("act 2B fullmove to 3A", r, 0.5, 0.5), g.cards, "en")[1])
    assert en.startswith("Warrior★ 2B→3A:"), en
    ja = str(advice_lines(Advice("act 2B fullmove to 3A", r, 0.5, 0.5), g.cards, "ja")[1])
    assert ja.startswith("2Bのウォーリア★が3Aへ: "), ja


def test_a_unit_the_answer_itself_makes_faint_is_never_said_to_be_kept():
    """R8.2 (command: the target first takes 1 damage, and a unit that faints does nothing
    more): a Bard's command on a 1-HP Thief★ that the Goblin would finish in the Invasion
    made the Thief★ faint at once, and the hint said it "keeps 1 of your units from
    fainting" (the learning audit). The unit is lost either way."""
    lesson = lessons()[lesson_index("summon")]
    pos = copy.deepcopy(dict(lesson.position))
    pos["board"] = {"1A": {"kind": "unit", "card": "thief_star"},
                    "1C": {"kind": "unit", "card": "bard"}, "2A": {"card": "goblin"}}
    hp = Game.from_json(json.dumps(puzzle_state(pos, lesson.cards_version))).cards.units[
        "thief_star"].hp
    pos["board"]["1A"]["dmg"] = hp - 1
    g = Game.from_json(json.dumps(puzzle_state(pos, lesson.cards_version)))
    v = g.view(0)
    r = explain(cards_of(v), v, 0, parse("act 1C command 1A"))
    assert r.saved == 0
    after = copy.deepcopy(g)
    after.apply(0, "act 1C command 1A")
    assert after.view(0)["players"][0]["board"][board.square("1A")] is None  # it fainted
    text = str(advice_lines(Advice("act 1C command 1A", r, 0.3, 0.3), g.cards, "en")[1])
    assert "from fainting" not in text


def test_an_area_attack_hint_says_how_many_monsters_it_hits_and_the_total(tmp_path):
    """R8.2 (area ★: every monster in range takes 1 damage): the hint for a Sorcerer★'s
    area attack gave only "the best use of this unit"; it now says how many monsters it hits
    and the damage expected in all (the learning audit), in both languages."""
    lesson = lessons()[lesson_index("summon")]
    pos = copy.deepcopy(dict(lesson.position))
    pos["board"] = {"3B": {"kind": "unit", "card": "sorcerer_star"},
                    "5B": {"card": "goblin"}, "6A": {"card": "goblin"}}
    g = Game.from_json(json.dumps(puzzle_state(pos, lesson.cards_version)))
    r = explain(g.cards, g.view(0), 0, parse("act 3B area"))
    assert r.hits == 2 and r.damage == 2 and r.monster is None
    advice = Advice("act 3B area", r, 0.5, 0.6)
    en = str(advice_lines(advice, g.cards, "en")[1])
    assert en.startswith("Sorcerer★ 3B hits 2 monsters: 2 damage expected"), en
    ja = str(advice_lines(advice, g.cards, "ja")[1])
    assert "モンスター2体を攻撃" in ja and "期待ダメージ合計2" in ja, ja


def test_a_hint_whose_figures_agree_says_what_the_figure_means():
    """The English new-player audit: a round-1 hint at three players read "33% now, 33%
    after" — one figure twice, telling nothing. Where the suggestion is as good as the
    obvious answer the line gives the figure once, beside an even share among the players
    (R9.3: one winner among them); solo, the figure alone."""
    g = Game.new(["Ann"], seed=1)
    r = Reason("act", unit="warrior_star", square="2B", to="3A")
    three = advice_lines(Advice("act 2B to 3A", r, 0.331, 0.334, 3), g.cards, "en")[2]
    assert str(three) == ("Estimated chance to win: 33% with this move "
                          "(an even share among 3 players is 33%)")
    ja = advice_lines(Advice("act 2B to 3A", r, 0.331, 0.334, 3), g.cards, "ja")[2]
    assert str(ja) == "推定勝率: この手で33%（3人で均等に分けると33%）"
    solo = advice_lines(Advice("act 2B to 3A", r, 0.6, 0.6, 1), g.cards, "en")[2]
    assert str(solo) == "Estimated chance to win: 60% with this move"


def test_a_hint_knows_how_many_play():
    """The share a hint compares with is the number still playing (R9.3: an eliminated
    player shares nothing; the verification audit read "among 4" with two of them out)."""
    g = Game.new(["Ann", "Bob", "Cy"], seed=3)
    who = g.waiting_for()[0]
    assert advise(g.view(who), who, seed=1, budget=60.0).players == 3
    out = 2 if who != 2 else 1
    g.state["players"][out]["eliminated"] = True
    g.state["decisions"].pop(str(out), None)  # an eliminated player is asked nothing
    assert advise(g.view(who), who, seed=1, budget=60.0).players == 2


def test_a_level_up_hint_names_the_unit_the_card_and_its_price():
    """R12.2: a Level Up costs 2 honor marks (3 from a player's third); the hint for one said
    only "The expert's best answer to this decision" (the Discord audit), not which unit
    becomes what, nor what it spends."""
    for done, price in ((0, 2), (2, 3)):
        g = puzzle([{"2B": unit("warrior_star")}], decisions={0: actions()},
                   player={0: {"honor": 4, "levelups": done}})
        r = explain(g.cards, g.view(0), 0, parse("levelup 2B"))
        assert (r.verb, r.unit, r.card, r.square, r.price) == (
            "levelup", "warrior_star", "warrior", "2B", price)
        en = str(advice_lines(Advice("levelup 2B", r, 0.3, 0.4), g.cards, "en")[1])
        assert en == (f"Level up the Warrior★ on 2B into the Warrior for {price} honor marks "
                      "(R12.2): the best use of them the expert found."), en
        ja = str(advice_lines(Advice("levelup 2B", r, 0.3, 0.4), g.cards, "ja")[1])
        assert f"栄誉マーク{price}つで2Bのウォーリア★をウォーリアにレベルアップ" in ja, ja


def test_a_hint_to_pass_says_why():
    """The console audit: a hint to answer `done` read only "The expert's best answer to this
    decision" — passing up an attack with no why."""
    g = Game.new(["Ann"], seed=1)
    en = str(advice_lines(Advice("done", Reason("done"), 0.4, 0.4), g.cards, "en")[1])
    assert en.startswith("Stop here: nothing else the expert tried did better"), en
    ja = str(advice_lines(Advice("done", Reason("done"), 0.4, 0.4), g.cards, "ja")[1])
    assert ja.startswith("ここで完了: "), ja
