"""The daily challenge's hosting rules: same game for everyone, secret until played, scores
from the replayed log, ranks with ties, streaks over UTC days (R13 solo rules)."""

import datetime as dt

from ai import make_player
from engine import Game, view
from service import daily
from service.daily import Score

SECRET = b"test-secret"
DAY = dt.date(2026, 11, 23)


def test_two_players_get_byte_identical_setups_and_dice():
    a = daily.challenge_for(SECRET, DAY).new_game("Ann")
    b = daily.challenge_for(SECRET, DAY).new_game("Bob")
    sa, sb = a.state, b.state
    for k in ("monster_deck", "unit_deck", "chips", "mercenaries", "row", "rng", "options"):
        assert sa[k] == sb[k], k


def test_the_key_depends_on_the_secret_and_the_day():
    c = daily.challenge_for(SECRET, DAY)
    assert daily.challenge_for(b"other", DAY).key != c.key  # not reproducible without it
    assert daily.challenge_for(SECRET, DAY + dt.timedelta(days=1)).key != c.key
    assert c.difficulty in ("easy", "normal", "hard")  # R13.2
    assert 1 <= len(c.modifiers) <= 2
    assert c.number == daily.number_of(DAY) == 23


def test_modifiers_vary_and_never_clash_over_a_year():
    seen, difficulties = set(), set()
    for k in range(365):
        c = daily.challenge_for(SECRET, DAY + dt.timedelta(days=k))
        keys = [set(m.options) for m in c.modifiers]
        assert len(keys) == 1 or not keys[0] & keys[1]
        seen |= {m.id for m in c.modifiers}
        difficulties.add(c.difficulty)
        c.new_game("x")  # every combination is a valid engine setup
    assert seen == {m["id"] for m in daily.catalogue()["modifiers"]}
    assert difficulties == {"easy", "normal", "hard"}


def test_the_key_is_published_only_when_the_day_is_over():
    end = daily.day_end(DAY)
    assert daily.published_key(SECRET, DAY, end - 1) is None
    assert daily.published_key(SECRET, DAY, end) == daily.challenge_for(SECRET, DAY).key.hex()
    assert daily.day_of(end - 1) == DAY and daily.day_of(end) == DAY + dt.timedelta(days=1)


def play(game: Game, seed: int) -> Game:
    bot = make_player("random", seed)
    for _ in range(5000):
        if game.over:
            break
        game.apply(0, bot.choose(view(game.state, 0), 0))
    return game


def test_the_score_comes_from_replaying_the_stored_log():
    g = play(daily.challenge_for(SECRET, DAY).new_game("Ann"), 1)
    r = daily.replay_score(g.state["setup"], g.state["log"])
    p = g.state["players"][0]
    assert r.score.won == (0 in g.state["result"]["winners"])  # R13
    assert r.score.rounds == g.state["round"]
    assert r.score.marks_left == p["honor"] + len(p["defeated"])
    assert len(r.defeats_per_round) == g.state["round"]
    assert sum(r.defeats_per_round) == len(p["defeated"])
    tampered = g.state["log"][:-1]
    try:
        daily.replay_score(g.state["setup"], tampered)
    except ValueError as e:
        assert "not finished" in str(e)
    else:  # the last action ended the game: without it the game cannot be finished
        raise AssertionError("an unfinished log was scored")


def test_order_win_then_fewer_rounds_then_fewer_faints_then_more_marks():
    win9 = Score(False, 9, 2, -1)
    assert win9 < Score(True, 3, 0, -9)  # any win beats any loss
    assert Score(False, 8, 5, 0) < win9  # fewer rounds
    assert Score(False, 9, 1, 0) < win9  # then fewer fainted units
    assert Score(False, 9, 2, -3) < win9  # then more honor marks left


def test_ties_share_a_rank():
    a, b = Score(False, 8, 0, -2), Score(False, 9, 1, -1)
    rows = daily.ranked([(5, b), (1, a), (3, b), (4, Score(True, 2, 0, 0)), (2, a)])
    assert [(r, u) for r, u, _ in rows] == [(1, 1), (1, 2), (3, 3), (3, 5), (5, 4)]


def day(n: int) -> dt.date:
    return DAY + dt.timedelta(days=n)


def test_streaks_over_days_gaps_and_an_unfinished_day():
    w, loss = Score(False, 9, 0, 0), Score(True, 5, 0, 0)
    res = {day(-6): w, day(-5): loss, day(-4): w, day(-3): None, day(-2): w, day(-1): w}
    s = daily.stats(res, DAY)
    assert s.longest_streak == 3 and s.current_streak == 2  # today not played yet: still on
    assert s.played == 5 and s.won == 4 and s.win_percent == 80  # unfinished is not a loss
    assert daily.stats({**res, DAY: w}, DAY).current_streak == 3
    assert daily.stats(res, day(1)).current_streak == 0  # a whole day missed breaks it
    assert s.rounds_to_win == {9: 4} and s.best == w


def test_share_line_is_spoiler_free_and_names_the_par():
    line = daily.share_line(123, Score(False, 9, 0, 0), 11, [0, 1, 1, 0, 2, 0, 0, 1, 1])
    assert line.startswith("Rook & Raiders #123 — won in 9 rounds (bot: 11) ")
    assert line.endswith("🏰") and line.count("⚔️") == 5 and line.count("🛡️") == 4
    assert "Goblin" not in line and "A" not in line.split(")")[-1]
    assert daily.versus_par(Score(False, 9, 0, 0), Score(False, 11, 0, 0)) == \
        "beat the bot by 2 rounds"
    ja = daily.share_line(1, Score(True, 4, 1, 0), None, [0, 0, 0, 1], "ja")
    assert "落城" in ja and ja.endswith("🔥")



def test_stats_image_draws_one_bar_per_round_count_longest_for_most_wins():
    import io

    from PIL import Image

    from render.stats import stats_png
    png = stats_png(played=10, win_percent=70, current_streak=3, longest_streak=5,
                    rounds_to_win={8: 1, 10: 6}, highlight=10)
    im = Image.open(io.BytesIO(png)).convert("RGB")
    assert im.width == 520
    rows = [150 + k * 32 + 13 for k in range(3)]  # bars for 8, 9 (none) and 10 rounds
    def bar_len(y):
        paper = im.getpixel((519, y))
        return sum(1 for x in range(56, 520) if im.getpixel((x, y)) != paper)
    lens = [bar_len(y) for y in rows]
    assert lens[2] > lens[0] > 0 and lens[2] > 3 * lens[0]  # 6 wins in 10 vs 1 in 8
    empty = Image.open(io.BytesIO(stats_png(played=0, win_percent=0, current_streak=0,
                                            longest_streak=0, rounds_to_win={}, lang="ja")))
    assert empty.height < im.height
