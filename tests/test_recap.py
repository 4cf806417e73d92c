"""Issue 24: the animated recap of a whole game — a title, then one captioned table per
phase with its changes highlighted (service/replay.py's frames, R15), the last held
longest, under Discord's upload limit even for a long 4-player game."""

from __future__ import annotations

import io

from PIL import Image

import render.recap
from ai import make_player
from engine import Game, view
from engine.cards import RELEASED_DIR
from render.recap import (
    LAST_MS,
    LIMIT,
    SHRINK,
    STEP_MS,
    TITLE_MS,
    encode_gif,
    frames,
    paletted_frames,
    recap_gif,
)
from service.replay import replay
from sim.runner import cards_in_use

V7 = str(RELEASED_DIR / "v7.json")  # the released card set this test was written on


def ai_game(players: int, seed: int, rules: int | None = None) -> Game:
    g = Game.new(["Ann", "Bob", "Cid", "Dee"][:players], seed=seed,
                 **({} if rules is None else {"rules": rules}))
    bots = [make_player("greedy", seed * 8 + s) for s in range(players)]
    for _ in range(5000):  # a game needs a few hundred answers; bounded all the same
        if g.over:
            break
        s = g.waiting_for()[0]
        g.apply(s, bots[s].choose(view(g.state, s), s))
    assert g.over
    return g


def test_long_four_player_recap_one_frame_per_phase_under_the_limit():
    with cards_in_use(V7):  # card set v7: 11 rounds, 74 phases, the longest of seeds 1–8
        g = ai_game(4, 6, rules=4)  # (bench/recap.py); v8's games of four end sooner, and
        # from rules 5 (a second copy of a mercenary granted) this one in round 8
    rp = replay(g.setup, g.state["log"])
    assert g.round >= 10 and len(rp.frames) > 60
    steps, title = rp.recap(7, "en")
    data = recap_gif(steps, title, lang="en")
    assert len(data) < LIMIT
    im = Image.open(io.BytesIO(data))
    assert im.format == "GIF" and im.info.get("loop") == 0
    assert im.n_frames == len(rp.frames) + 1  # the title, then one per phase
    shown = []
    for k in range(im.n_frames):
        im.seek(k)
        shown.append(im.info["duration"])
    assert shown[0] == TITLE_MS and shown[-1] == LAST_MS > STEP_MS == shown[1]
    # the captions say the round and what ended; the title who played and who won
    assert steps[0][2] == "Round 0 · Setup"
    assert steps[1][2] == "Round 0 · Placement"  # R4: placement belongs to round 0
    assert steps[2][2] == f"Round 1 · {g.cards.name(rp.frames[2].what or '', 'en')}"
    assert steps[-1][2] == f"Round {g.round} · Game over"
    winners = [g.state["players"][s]["name"] for s in g.result["winners"]]
    assert title[:2] == ["Rook & Raiders · game 7", "Ann, Bob, Cid, Dee"]
    assert title[2] == ("Winner: " + ", ".join(winners) if winners else "No winner")
    # the highlights are the board's changes: each phase frame is that phase's table
    assert [s[1] for s in steps] == [f.events for f in rp.frames]
    ja_steps, ja_title = rp.recap(7, "ja")
    assert ja_steps[-1][2] == f"ラウンド{g.round}・ゲーム終了" and "ゲーム7" in ja_title[0]


def test_an_oversized_recap_is_drawn_smaller_not_dropped(monkeypatch):
    g = ai_game(1, 3)  # a solo game's first phases: the point is the fallback, not the size
    steps, title = replay(g.setup, g.state["log"]).recap(1, "en")
    steps = steps[:8]
    drawn = paletted_frames(steps, title)
    full = encode_gif(drawn)
    assert full == encode_gif(frames(steps, title))  # quantized as drawn: the same GIF
    # the same frames, not drawn a second time (the drawing is the other tests' subject)
    monkeypatch.setattr(render.recap, "paletted_frames", lambda s, t, lang="en": drawn)
    small = recap_gif(steps, title, limit=len(full) - 1)
    assert len(small) < len(full)
    big, shrunk = Image.open(io.BytesIO(full)), Image.open(io.BytesIO(small))
    assert shrunk.width < big.width and shrunk.n_frames == big.n_frames


def test_a_recap_still_too_heavy_at_the_smallest_size_keeps_fewer_phases(monkeypatch):
    """The fault-injection audit: a recap over the limit even at the smallest size was
    returned as it was (the docstring promised it could always be uploaded): Discord
    refuses such an upload (413), and `/rr-recap` left its asker on 'thinking…' for good.
    Now every other phase is left out (the title and the final table kept) until it fits."""
    g = ai_game(1, 3)
    steps, title = replay(g.setup, g.state["log"]).recap(1, "en")
    steps = steps[:9]
    drawn = paletted_frames(steps, title)
    monkeypatch.setattr(render.recap, "paletted_frames", lambda s, t, lang="en": drawn)
    smallest = encode_gif(drawn, SHRINK[-1])
    data = recap_gif(steps, title, limit=len(smallest) - 1)
    assert len(data) <= len(smallest) - 1
    im = Image.open(io.BytesIO(data))
    assert 2 <= im.n_frames < len(drawn)
    first, last = Image.open(io.BytesIO(encode_gif([drawn[0], drawn[-1]], SHRINK[-1]))), im
    for k, at in ((0, 0), (1, im.n_frames - 1)):  # the title and the final table kept
        first.seek(k)
        last.seek(at)
        assert first.convert("RGB").tobytes() == last.convert("RGB").tobytes()
