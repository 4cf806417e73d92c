"""Issue 20, the console as a player meets it while playing: what a refusal, `legal`,
`undo`, the roll prompt and the end of an AI game tell them.

Lines are typed into a real `bot.py --console` process (`console` from test_console.py) or,
where a whole random game must be searched for a moment, into the same `Console` object the
process runs, in memory. Each test names the issue 20 point it checks.
"""

from __future__ import annotations

import asyncio
import io
import random
import re
from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path

import pytest
from mistypes import ODD_WORDS, mistyped
from rules_helpers import actions, dice_seed, monster, puzzle, unit

from console.app import CHANNEL, Console
from console.options import parse_command_line
from engine import Game
from service.notation import words_typed
from store import Store
from tests.test_console import console


def _auto(g: Game) -> None:
    """The service's trivial answers (it applies them itself; a script must not type them)."""
    for _ in range(200):
        trivial = [(s, a) for s in g.waiting_for() if (a := g.trivial_action(s)) is not None]
        if g.over or not trivial:
            return
        g.apply(*trivial[0])


class Table:
    """One console in memory (the process's own `Console`), without images, for the tests
    that play whole random games looking for a moment."""

    def __init__(self, store: Store, args: list[str], lang: str = "en") -> None:
        _ns, table = parse_command_line(args)
        self.out = io.StringIO()
        self.con = Console(store, Path("unused"), lang, self.out, "c.db", table)
        self.table = table

        async def no_image(*_a: object, **_k: object) -> None:
            return None

        self.con.write_image = no_image  # type: ignore[method-assign]

    async def start(self) -> None:
        await self.con.start(self.table)

    async def game(self) -> Game:
        return (await self.con.service.tables.viewable(CHANNEL))[1]

    async def type(self, line: str) -> str:
        """What the console answers to one typed line."""
        start = len(self.out.getvalue())
        assert await self.con.handle(line)
        return self.out.getvalue()[start:]

    async def random_answer(self, g: Game, names: list[str], rng: random.Random) -> str:
        """The first seat waited for types a random legal answer, never a resignation (the
        game stays whole while a test looks for a moment in it): the console's answer."""
        seat = g.waiting_for()[0]
        acts = [str(a) for a in g.legal_actions(seat) if not str(a).startswith("resign")]
        return await self.type(f"{names[seat]}: {rng.choice(acts)}")


# ---- refusals keep the game's own words whole --------------------------------------------------

@pytest.mark.process
def test_a_bare_verb_gets_its_whole_usage_line(tmp_path: Path) -> None:
    """Issue 20: `act` and `rolls` alone were answered with a usage line cut mid-word
    ("Use 'act SQUARE [fullmove…' (62 characters)"); only what the player typed is cut."""
    out = console(tmp_path, "--seed", "3", lines=["act", "rolls", "P1: " + "🙂" * 100]).stdout
    assert "! Use 'act SQUARE [fullmove] [to SQUARE] [attack|area|heal|command …]'." in out
    assert ("! Use 'rolls miss' (be asked about a roll only when it misses) or 'rolls always' "
            "(whenever a boon could raise the damage).") in out
    assert "(62 characters)" not in out and "(48 characters)" not in out
    assert "(100 characters)" in out  # a long typed token is still quoted short


@pytest.mark.process
def test_legal_for_another_verb_lists_what_can_be_done(tmp_path: Path) -> None:
    """Issue 20: `legal act` during placement said "nothing now" to a player who can place."""
    out = console(tmp_path, "--seed", "3", lines=["legal act"]).stdout
    answer = out.split("P1's hand: ", 1)[1]  # what follows the first question
    assert "nothing now" not in answer
    assert "Nothing begins with 'act' now. P1 may:" in answer
    assert "  place Thief★ 1A/1B/1C/2A/2B/2C" in answer


# ---- who is still deciding --------------------------------------------------------------------

def test_a_new_question_is_not_called_still_deciding() -> None:
    """Issue 20: when Bob's answer closes a phase, "Bob: answer recorded. Still deciding:
    Ann." was printed although Ann now faced a new question. Random two-player games are
    played until an answer gives the other player a new question without any story; the
    console must show that question, not call Ann still deciding."""

    async def search() -> int:
        seen = 0
        async with aclosing(_two_player_tables(12)) as tables:
            async for seed, t, said in tables:
                rng = random.Random(seed)
                for _ in range(200):
                    g = await t.game()
                    if g.over:
                        break
                    seat = rng.choice(g.waiting_for())
                    other = 1 - seat
                    asked = g.decision(other)
                    action = str(rng.choice(g.legal_actions(seat)))
                    said.clear()
                    answer = await t.type(f"{['Ann', 'Bob'][seat]}: {action}")
                    after = (await t.game()).decision(other)
                    name = ["Ann", "Bob"][other]
                    if after is not None and (asked is None or after["id"] != asked["id"]):
                        assert f"Still deciding: {name}" not in answer, answer
                        if {"recorded", "accepted"} & set(said):  # no story
                            assert f"> {name}: " in answer, answer  # the new question
                            seen += 1
                if seen >= 1:
                    return seen
        return seen

    assert asyncio.run(search()) >= 1, "no answer in 12 games gave the other a new question"


async def _two_player_tables(seeds: int) -> AsyncIterator[tuple[int, Table, list[str]]]:
    """Ann and Bob at a fresh table per seed, its boards off, and the keys of what the
    console says (`_said`); each store closed once its seed is done with."""
    for seed in range(seeds):
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "Bob", "--seed", str(seed)])
            t.con.auto_board = False
            await t.start()
            yield seed, t, _said(t.con)
        finally:
            await store.close()


def _said(con: Console) -> list[str]:
    """The console's message keys as it says them (cleared by the caller), to know which
    line an answer got without parsing the story."""
    said: list[str] = []
    words = con.t

    def t(key: str, **kw: object) -> str:
        said.append(key)
        return words(key, **kw)

    con.t = t  # type: ignore[method-assign]
    return said


def test_an_answer_with_nothing_to_tell_is_echoed_plainly() -> None:
    """The new-player audit: an answer whose move told no story was echoed as "Bob: 'done'
    — done." (then "— accepted."): the word twice, quoted. It reads as a line of the game's
    record now, "Bob: done." — random two-player games are played until a `done` tells
    nothing else."""

    async def search() -> str:
        async with aclosing(_two_player_tables(8)) as tables:
            async for seed, t, said in tables:
                rng = random.Random(seed)
                for _ in range(300):
                    g = await t.game()
                    if g.over:
                        break
                    seat = g.waiting_for()[0]
                    acts = [str(a) for a in g.legal_actions(seat)
                            if not str(a).startswith("resign")]
                    action = rng.choice(acts)
                    said.clear()
                    answer = await t.type(f"{['Ann', 'Bob'][seat]}: {action}")
                    if action == "done" and "accepted" in said:
                        return answer
        return ""

    answer = asyncio.run(search())
    assert answer, "no 'done' in 8 games was answered without a story"
    first = answer.splitlines()[0]
    assert re.fullmatch(r"  (Ann|Bob): done\.", first), answer
    assert "'done'" not in answer and "accepted" not in answer


# ---- undo says why not -----------------------------------------------------------------------

def test_a_bare_undo_asks_whose_when_several_moves_can_go_back() -> None:
    """The new-player audit: with two players' moves both still undoable, a bare `undo`
    silently took back the last one typed. It asks whose now, naming both (as a move typed
    without a name does while several decide), and takes back nothing; `undo NAME` then
    takes back that player's only. Random three-player games are played until two can."""

    async def search() -> tuple[str, str, list[int], list[int]]:
        names = ["Ann", "Bob", "Cy"]
        for seed in range(8):
            store = await Store(":memory:").open()
            try:
                t = Table(store, ["--names", *names, "--seed", str(seed)])
                t.con.auto_board = False
                await t.start()
                rng = random.Random(seed)
                for _ in range(200):
                    g = await t.game()
                    if g.over:
                        break
                    can = [s for s in range(3) if g.can_undo(s)]
                    if len(can) > 1:
                        bare = await t.type("undo")
                        after = [s for s in range(3) if (await t.game()).can_undo(s)]
                        named = await t.type(f"undo {names[can[0]]}")
                        left = [s for s in range(3) if (await t.game()).can_undo(s)]
                        return bare, named, can, after + [-1] + left
                    await t.random_answer(g, names, rng)
            finally:
                await store.close()
        raise AssertionError("no moment in 8 games where two players could undo")

    bare, named, can, seen = asyncio.run(search())
    names = ["Ann", "Bob", "Cy"]
    who = [names[s] for s in can]
    assert bare.startswith(f"! Whose action? More than one can still be taken back "
                           f"({who[0]}, {who[1]}): write undo NAME, e.g. 'undo {who[-1]}'."), bare
    assert "took back" not in bare
    after, left = seen[:seen.index(-1)], seen[seen.index(-1) + 1:]
    assert after == can  # the bare undo took back nothing
    assert f"{who[0]} took back their last action." in named, named
    assert can[1] in left  # the other's move can still go back


@pytest.mark.process
def test_undo_refused_says_why_and_help_tells_the_rule(tmp_path: Path) -> None:
    """Issue 20: `undo` was refused after most actions with a reason the help never
    explained. The refusal names the move and why it cannot be taken back; `help` states
    the rule (engine/game.py `Game.undo`)."""
    out = console(tmp_path, "--seed", "3", lines=["help", "place thief 2B", "undo"]).stdout
    assert ("take back NAME's last action while its question is still open (or the\n"
            "                  others still answer the same step) and nothing random") in out
    assert ("! P1: 'place Thief★ 2B' cannot be undone: the game has moved past it. "
            "Undo takes back a move only while its question is still open") in out
    # how to give up is in the list too (the new-player audit: only docs/notation.md said)
    assert "NAME: resign   leave the game: you are eliminated" in out


def test_undo_of_a_move_that_rolled_dice_says_so() -> None:
    """Issue 20: a move that stays in its question but rolled dice cannot be undone; the
    refusal says it revealed something random (not the general rule alone)."""

    async def search() -> str:
        for seed in range(30):
            store = await Store(":memory:").open()
            try:
                t = Table(store, ["--names", "Ann", "--seed", str(seed)])
                t.con.auto_board = False
                await t.start()
                rng = random.Random(seed)
                for _ in range(300):
                    g = await t.game()
                    if g.over:
                        break
                    before = g.decision(0)
                    acts = [str(a) for a in g.legal_actions(0) if str(a) != "resign"]
                    await t.type(rng.choice(acts))
                    after = (await t.game()).decision(0)
                    if (before is not None and after is not None
                            and after["opened"] == before["opened"]
                            and not (await t.game()).can_undo(0)):
                        return await t.type("undo")
            finally:
                await store.close()
        raise AssertionError("no move in 30 games rolled dice inside an open question")

    answer = asyncio.run(search())
    assert "cannot be undone: it revealed something random (dice, a drawn card)" in answer


# ---- the roll prompt -------------------------------------------------------------------------

def _roll_without_levelup() -> tuple[int, list[str]]:
    """A solo game's lines up to a roll question where only Willpower could help (R12)."""
    for seed in range(200):
        g = Game.new(["P1"], seed=seed)
        rng = random.Random(seed)
        lines: list[str] = []
        for _ in range(400):
            _auto(g)
            if g.over:
                break
            dec = g.decision(0)
            if dec and dec["kind"] == "roll" and dec["can_reroll"] and not dec["can_levelup"]:
                return seed, lines
            action = str(rng.choice([a for a in g.legal_actions(0) if str(a) != "resign"]))
            lines.append(action)
            g.apply(0, action)
    raise AssertionError("no seed in 0..199 reaches a roll where no level-up helps")


@pytest.mark.process
def test_roll_prompt_offers_level_up_only_when_it_can_help(tmp_path: Path) -> None:
    """Issue 20: the roll prompt offered "level up" when no level-up could raise the damage
    (engine/combat.py `roll_options`)."""
    seed, lines = _roll_without_levelup()
    out = console(tmp_path, "--seed", str(seed), lines=lines).stdout
    prompt = [x for x in out.splitlines() if x.startswith("> P1: Your roll")][-1]
    assert "Reroll with Willpower (1 honor mark), or keep?" in prompt
    assert "level up" not in prompt.casefold() and "levelup" not in prompt


# ---- the end of an AI game -------------------------------------------------------------------

def _ai_game(seed: int, levels: list[str]) -> str:
    async def play() -> str:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "--ai", *levels, "--seed", str(seed)])
            await t.start()
            rng = random.Random(seed)
            for _ in range(600):
                g = await t.game()
                if g.over:
                    break
                await t.type(rng.choice([str(a) for a in g.legal_actions(0)
                                         if str(a) != "resign"]))
            assert (await t.game()).over
            return t.out.getvalue()
        finally:
            await store.close()
    return asyncio.run(play())


def test_game_over_is_told_once_in_an_ai_game() -> None:
    """Issue 20: "🏆 Game over" was printed twice in AI games (the AI's last answer told
    it, then the status told it again)."""
    for seed in (3, 4):  # games an AI's answer ends (found by playing seeds 1..5)
        out = _ai_game(seed, ["random"])
        assert len(re.findall(r"Game over: ", out)) == 1, out[-2000:]


def test_an_eliminated_players_board_is_not_reprinted() -> None:
    """Issue 20: an eliminated player's board was reprinted after every phase; R9.3: it is
    out of the game, so its line says so and its board is left out."""
    out = _ai_game(9, ["random", "random"])
    gone = re.search(r"☠ (.+?) is eliminated[.:]", out)  # [:] the reason after it
    assert gone, "nobody was eliminated in this game"
    name = gone.group(1).replace("🤖 ", "")
    later = out[gone.end():].splitlines()
    rows = [k for k, x in enumerate(later) if x.strip().startswith(f"{name}: gold")]
    assert rows, "no board was printed after the elimination"
    for k in rows:
        assert "ELIMINATED" in later[k]
        assert not re.match(r"\s+A\s", later[k + 1]), later[k:k + 3]


@pytest.mark.process
def test_a_refusal_among_several_players_says_whose_it_is(tmp_path: Path) -> None:
    """Several people share one keyboard: a refusal names the player it answers (R6: the
    Advance's leader and followers act with their units, not with another card)."""
    out = console(tmp_path, "--names", "Ann", "Bob", "--seed", "3",
                  lines=["Ann: place warrior 2A", "Bob: place warrior 2A", "Bob: pick advance",
                         "Ann: pick advance", "Bob: pick rest"]).stdout
    assert "! Ann: Now you take unit actions" in out and "! Bob: Now you take unit actions" in out


@pytest.mark.process
def test_a_private_line_is_marked_only_when_others_share_the_keyboard(tmp_path: Path) -> None:
    """A standing order is told to its owner alone: among several players marked so, in a
    solo game (nobody else to hide it from) without the mark."""
    solo = console(tmp_path, "--names", "P1", lines=["P1: rolls always"], db="a.db").stdout
    two = console(tmp_path, "--names", "Ann", "Bob", lines=["Ann: rolls always"],
                  db="b.db").stdout
    assert "after every dice roll a boon could still improve" in solo
    assert "(to P1 only)" not in solo
    assert "(to Ann only) Ann: after every dice roll" in two


def test_a_bare_new_after_a_start_up_seed_deals_a_new_game() -> None:
    """The new-player audit: `--seed 3` then `new` (typed twice, to leave the game) dealt
    the very same game again. A bare `new` keeps the seats and deals afresh; `new --seed`
    still chooses a deal."""

    async def run() -> tuple[int, int, int]:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "--seed", "3"])
            t.con.auto_board = False
            await t.start()
            first = (await t.game()).setup["seed"]
            await t.type("new")
            await t.type("new")
            fresh = await t.game()
            assert fresh.setup["players"] == ["Ann"] and fresh.round <= 1
            await t.type("new --names Ann --seed 3")
            await t.type("new --names Ann --seed 3")
            return first, fresh.setup["seed"], (await t.game()).setup["seed"]
        finally:
            await store.close()

    first, fresh, chosen = asyncio.run(run())
    assert first == 3 and fresh != 3 and chosen == 3


def test_the_japanese_roll_prompt_names_the_words_a_player_types(tmp_path: Path) -> None:
    """R12.1 / R12.3: the console's roll question in Japanese said 「reroll」 / 「keep」 (and
    このまま) where the words typed are 振り直し and そのまま (the console audit): it names
    the notation's Japanese words, and each is read back as the answer it names."""
    g = puzzle([{"2B": unit("warrior_star"), "3B": monster("golem")}],
               decisions={0: actions()}, dice={0: dice_seed((4, 3))}, player={0: {"honor": 4}})
    g.apply(0, "act 2B attack 3B")
    assert (g.decision(0) or {}).get("kind") == "roll"

    async def how() -> str:
        store = await Store(":memory:").open()
        try:
            _ns, table = parse_command_line(["--names", "花子", "--lang", "ja"])
            return Console(store, tmp_path, "ja", io.StringIO(), "c.db", table).how(g, 0)
        finally:
            await store.close()
    said = asyncio.run(how())
    assert said == " — 「振り直し」 / 「レベルアップ マス」 / 「そのまま」", said
    assert words_typed("振り直し") == "reroll" and words_typed("そのまま") == "keep"


# ---- nothing typed breaks the game -------------------------------------------------------------

def test_mistyped_lines_are_refused_and_leave_the_game_as_it_was() -> None:
    """Standards (bad input) and R15 (the game is its log): lines made from legal actions
    with a word dropped, swapped, repeated or mangled, and odd words alone, are typed at
    random moments of two-player games. None may reach the console's last-resort answer
    ("something went wrong inside the game"), and a refused line ("! …") leaves the stored
    game exactly as it was (its version and state). A legal move now and then moves the game
    on, so the lines meet placement, command cards, unit actions, recruits and the Enemy
    phase's questions."""

    async def play() -> tuple[int, int]:
        refused = moved = 0
        async with aclosing(_two_player_tables(3)) as tables:
            async for seed, t, said in tables:
                rng = random.Random(seed)
                for k in range(150):
                    row, g = await t.con.service.tables.viewable(CHANNEL)
                    if g.over:
                        break
                    legal = [str(a) for s in g.waiting_for() for a in g.legal_actions(s)[:80]]
                    if k % 4 == 3:  # the game moves on
                        seat = rng.choice(g.waiting_for())
                        await t.type(f"{['Ann', 'Bob'][seat]}: {rng.choice(g.legal_actions(seat))}")
                        moved += 1
                        continue
                    line = rng.choice(["", "Ann: ", "Bob: ", "P3: "]) + mistyped(
                        rng, rng.choice(legal).split(" ") if legal else [],
                        [*ODD_WORDS, "\x00", "\x1b[31m", "新規"])
                    if line.split(" ")[0].casefold() in ("new", "新規", "hint", "review"):
                        continue  # a new game or the expert's search: not what is tested here
                    said.clear()
                    answer = await t.type(line)
                    assert "internal" not in said, (seed, line, answer)
                    if answer.startswith("!"):
                        after, _g = await t.con.service.tables.viewable(CHANNEL)
                        assert (after.version, after.state) == (row.version, row.state), line
                        refused += 1
        return refused, moved

    refused, moved = asyncio.run(play())
    assert refused >= 100 and moved >= 50, (refused, moved)  # the lines met the game
