"""The step-through viewer's pure parts (issue 18): a stored game cut into phase frames by
replaying its log (R15), and the score chart's bars."""

from __future__ import annotations

import datetime as dt

from render.scores import BIN, bins, scores_png
from service import daily
from service.daily_par import ai_play
from service.replay import replay


def test_frames_are_every_card_and_phase_in_order_then_the_end():
    """R15: setup + log rebuild the game; one frame per card or phase that ended (the same
    cut as the live posts), the dealt table first, the game's end last; ⏮ ⏭ land on the
    first frame of a round."""
    ch = daily.challenge_for(b"k" * 32, dt.date(2026, 11, 20))
    played = ai_play(ch, "random")
    g = ch.new_game("bot (random)")
    events = []
    for seat, text in played["log"]:
        events += g.apply(seat, text)
    rp = replay(g.setup, played["log"])
    whats = [f.what for f in rp.frames]
    assert whats[0] == "setup" and whats[-1] is None
    assert whats[1:-1] == [e["what"] for e in events if e["type"] == "resolved"]
    assert rp.frames[-1].view == g.view(None)  # the end: the final table
    rounds = [f.round for f in rp.frames]
    assert rounds == sorted(rounds)
    firsts = {r: rounds.index(r) for r in set(rounds)}
    for k in range(len(rp.frames)):
        nxt = rp.round_start(k, 1)
        assert nxt == len(rp.frames) - 1 or nxt == firsts[rounds[nxt]]
        assert rp.round_start(k, -1) == firsts[rounds[rp.round_start(k, -1)]]
        assert rp.round_start(k, -1) <= k <= max(nxt, k)
    assert replay(g.setup, played["log"]).frames == rp.frames  # deterministic


def test_score_bars_skip_empty_bands_and_hold_the_marks():
    """docs/daily.md: scores sit in outcome bands a million apart; only bands holding a
    score or a mark (you, a bot) are drawn, with a gap between them."""
    scores = [1_043_000, 1_061_000, 2_250_000]
    rows = bins(scores, marks=[1_150_000])
    assert rows[:4] == [(1_000_000, 1), (1_050_000, 1), (1_100_000, 0), (1_150_000, 0)]
    assert rows[4] is None and rows[5:] == [(2_250_000, 1)]
    assert all(r is None or r[0] % BIN == 0 for r in rows)
    en = scores_png(scores, number=23, mine=1_043_000, bots={"greedy": 2_250_000})
    ja = scores_png(scores, number=23, mine=1_043_000, bots={"greedy": 2_250_000}, lang="ja")
    assert en.startswith(b"\x89PNG") and ja != en
    assert scores_png([], number=23).startswith(b"\x89PNG")
