"""The daily challenge's hosting rules: same game for everyone, secret until played, scores
from the replayed log, ranks with ties, streaks over UTC days (R13 solo rules)."""

import datetime as dt

import pytest

from ai import make_player
from engine import Game, view
from service import daily, daily_schedule, daily_score
from service.daily_score import Score
from service.daily_standings import Entry, Standing, ranked, standing, stats

SECRET = b"test-secret"
DAY = dt.date(2026, 11, 23)


def test_two_players_get_byte_identical_setups_and_dice():
    a = daily.challenge_for(SECRET, DAY).new_game("Ann")
    b = daily.challenge_for(SECRET, DAY).new_game("Bob")
    sa, sb = a.state, b.state
    for k in ("monster_deck", "unit_deck", "chips", "mercenaries", "row", "rng", "options"):
        assert sa[k] == sb[k], k


def test_a_day_is_played_under_the_rules_its_date_names_whatever_release_deals_it():
    """Everyone's attempt of one day, and its par, are one game: rules 4 (the solo option's
    reshuffle, R11.3/R13.2) changes a last round's mercenaries, so it applies from a day not
    yet dealt when it was released (2026-12-07); the days before keep rules 3, as the
    release before dealt them."""
    before = daily.challenge_for(SECRET, dt.date(2026, 12, 6))
    after = daily.challenge_for(SECRET, dt.date(2026, 12, 7))
    assert before.rules == 3 and before.new_game("Ann").setup["rules"] == 3
    assert after.rules == 4 and after.new_game("Ann").setup["rules"] == 4


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
        if c.day >= daily_schedule.RHYTHM_FROM:
            seen |= {m.id for m in c.modifiers}
        difficulties.add(c.difficulty)
        c.new_game("x")  # every combination is a valid engine setup
    # every modifier but the three-command ones, which the weekly rhythm never deals (issue 19)
    assert seen == {m["id"] for m in daily.catalogue()["modifiers"]} - daily_schedule.THREE_COMMANDS
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
    r = daily_score.replay_score(g.state["setup"], g.state["log"])
    p = g.state["players"][0]
    assert r.score.won == (0 in g.state["result"]["winners"])  # R13
    assert r.score.rounds == g.state["round"]
    assert r.score.marks == p["honor"] + len(p["defeated"])
    assert r.score.gold == p["gold"]
    assert r.score.units == sum(1 for x in p["board"] if x and "owner" in x)
    assert r.score.monsters == sum(r.defeats_per_round) >= len(p["defeated"])
    assert r.score.points == sum(pts for _, _, pts in r.score.breakdown())
    assert len(r.defeats_per_round) == g.state["round"]
    assert daily_score.Score.from_json(r.score.to_json()) == r.score  # stored and read back
    tampered = g.state["log"][:-1]
    try:
        daily_score.replay_score(g.state["setup"], tampered)
    except ValueError as e:
        assert "not finished" in str(e)
    else:  # the last action ended the game: without it the game cannot be finished
        raise AssertionError("an unfinished log was scored")


def S(outcome: str, rounds: int, monsters: int = 0, units: int = 0, marks: int = 0,
      gold: int = 0) -> Score:
    return Score(outcome, rounds, monsters, units, marks, gold)


def test_one_number_a_win_above_any_loss_a_loss_above_any_resign():
    """Issue 18: a win is worth more than any loss; resigning scores lowest."""
    slowest_win = S("won", 30)  # won in the last round (R15 cap), nothing left
    best_loss = S("lost", 30, 12, 18, 99, 99)
    best_resign = S("resigned", 30, 12, 18, 99, 99)
    assert slowest_win.points > best_loss.points > best_resign.points
    assert S("won", 9).points > S("won", 10).points  # a win: the sooner the better


def test_a_resign_at_round_0_ranks_below_a_loss_in_round_1():
    """Issue 18: 'lost in round 0' ranked first among losses; now it ranks last."""
    g = daily.challenge_for(SECRET, DAY).new_game("Ann")
    quit_at_once = daily_score.replay_score(g.setup, g.log, resigned=True).score
    assert quit_at_once.outcome == "resigned" and quit_at_once.rounds == 0
    loss = S("lost", 1)
    board = ranked([Entry(1, quit_at_once, 10.0), Entry(2, loss, 99.0)])
    assert [(rank, e.user) for rank, e in board] == [(1, 2), (2, 1)]


def test_among_losses_a_longer_fight_and_more_monsters_score_more_refinements_only_refine():
    """Issue 18: rounds and monsters decide; units, marks and gold only break ties."""
    base = S("lost", 5, 3)
    assert S("lost", 6, 3).points > base.points
    assert S("lost", 5, 4).points > base.points
    # all refinements at their most are worth less than one more round or monster
    assert S("lost", 5, 3, 18, 99, 99).points < S("lost", 6, 3).points
    assert S("lost", 5, 3, 1).points > S("lost", 5, 3, 0, 99, 9).points  # a unit > marks
    assert S("lost", 5, 3, 0, 1).points > S("lost", 5, 3, 0, 0, 9).points  # a mark > gold
    assert S("lost", 5, 3, 0, 0, 1).points > base.points
    terms = [t for t, _, _ in S("won", 9, 12, 3, 5, 2).breakdown()]
    assert terms == ["outcome", "spare", "monsters", "units", "marks", "gold"]
    assert S("won", 9, 12, 3, 5, 2).points == 2_000_000 + 21 * 10_000 + 12 * 10_000 + 3_000 \
        + 50 + 2


def test_old_score_rows_still_read_and_a_damaged_one_is_a_value_error():
    """Stored v1 rows keep decoding (their outcome, round and marks count); anything else
    that is not a score is one ValueError for the caller to skip."""
    v1 = Score.from_json({"won": False, "rounds": 4, "fainted": 2, "marks": 3})
    assert v1.version == 1 and v1.outcome == "lost" and v1.marks == 3 and v1.rounds == 4
    assert Score.from_json({"won": True, "rounds": 9, "fainted": 0, "marks": 1}).won
    for bad in (None, [], {"won": True}, {"v": 2, "outcome": "won"}, {"v": 9},
                {"v": 2, "outcome": "drew", "rounds": 1, "monsters": 0, "units": 0,
                 "marks": 0, "gold": 0}, {"won": True, "rounds": -1, "marks": 0}):
        with pytest.raises(ValueError):
            Score.from_json(bad)


def test_equal_points_the_earlier_finish_ranks_first():
    """The documented tie-break: one rank each, the earlier finish first."""
    a, b = S("lost", 8, 2), S("lost", 9, 1)
    rows = ranked([Entry(5, a, 50.0), Entry(1, a, 70.0),
                         Entry(3, b, 10.0), Entry(4, S("won", 20), 99.0)])
    assert [(r, e.user) for r, e in rows] == [(1, 4), (2, 3), (3, 5), (4, 1)]


def test_rank_and_percentile():
    board = ranked(Entry(u, S("lost", u % 30), float(u)) for u in range(1204))
    me = board[36][1].user
    st = standing(board, me)
    assert st is not None and (st.rank, st.total, st.top_percent) == (37, 1204, 3)
    assert standing(board, 99999) is None
    assert Standing(1, 1).top_percent == 100 and Standing(1, 1000).top_percent == 1


def day(n: int) -> dt.date:
    return DAY + dt.timedelta(days=n)


def test_streaks_win_and_played_a_resign_or_unfinished_day_breaks_both():
    """Issue 18: the win streak counts days won in a row (a loss ends it), the played
    streak days played out in a row; a resign or an unfinished day ends both."""
    w, loss, gave_up = S("won", 9), S("lost", 5), S("resigned", 2)
    res = {day(-9): w, day(-8): w, day(-7): w, day(-6): loss, day(-5): w, day(-4): None,
           day(-3): w, day(-2): loss, day(-1): w}
    s = stats(res, DAY)
    assert (s.win_streak, s.best_win_streak) == (1, 3)
    assert (s.played_streak, s.best_played_streak) == (3, 5)  # today not played yet: on
    # an unfinished day is a played loss: walking away keeps no better win % than resigning
    assert s.played == 9 and s.won == 6 and s.win_percent == 67
    assert s.rounds_to_win == {9: 6} and s.best == w
    after_resign = stats({**res, DAY: gave_up}, DAY)
    assert after_resign.win_streak == 0 and after_resign.played_streak == 0
    assert after_resign.played == 10 and after_resign.win_percent == 60  # a resign is a loss
    today_lost = stats({**res, DAY: loss}, DAY)
    assert today_lost.win_streak == 0 and today_lost.played_streak == 4
    assert stats(res, day(1)).played_streak == 0  # a whole day missed breaks it


def test_share_line_carries_the_score_and_the_bots_true_result():
    """Issue 18: the share line carries the score; '(bot: 10)' said nothing of whether
    the bot won: it now says 'lost in round 10' and the bot's score."""
    me = S("won", 9, 12, 2, 3, 1)
    bot_lost = S("lost", 10, 6)
    line = daily_score.share_line(123, me, bot_lost, [0, 1, 1, 0, 2, 0, 0, 1, 1])
    assert line.startswith(f"Rook & Raiders #123 — won in 9 rounds · {me.points:,} pts "
                           f"(bot: lost in round 10 · {bot_lost.points:,}) "), line
    assert line.endswith("🏰") and line.count("⚔️") == 5 and line.count("🛡️") == 4
    assert "Goblin" not in line
    quit_ = daily_score.share_line(5, S("resigned", 2, 1), None, [1, 0])
    assert "resigned in round 2" in quit_ and quit_.endswith("🏳️")
    assert daily_score.versus_par(S("won", 9), S("won", 11)) == "beat the bot by 2 rounds"
    ja = daily_score.share_line(1, S("lost", 4), S("won", 10), [0, 0, 0, 1], "ja")
    assert "敗北" in ja and "10ラウンドで勝利" in ja and ja.endswith("🔥")


def test_a_loss_is_said_lost_not_fallen():
    """R13.2: with a difficulty (every daily day) most losses come at the final round, the
    castle never invaded; "fell in round 10" / 落城 said a fall that did not happen, and a
    player who resigned read "the bot fell too". A loss is said as a loss."""
    assert daily_score.versus_par(S("resigned", 2), S("lost", 10)) == "the bot lost too"
    assert daily_score.versus_par(S("lost", 11), S("lost", 10), "ja") == "ボットも敗北"
    line = daily_score.share_line(7, S("lost", 11), S("lost", 10), [0] * 11)
    assert "lost in round 11" in line and "(bot: lost in round 10" in line and "fell" not in line
    assert "落城" not in daily_score.share_line(7, S("lost", 11), S("lost", 10), [0] * 11, "ja")


def test_stats_image_draws_one_bar_per_round_count_longest_for_most_wins():
    import io

    from PIL import Image

    from render.stats import stats_png
    png = stats_png(played=10, won=7, win_percent=70, win_streak=3, best_win_streak=5,
                    played_streak=4, best_played_streak=6, best_points=2_331_452,
                    rounds_to_win={8: 1, 10: 6}, highlight=10)
    im = Image.open(io.BytesIO(png)).convert("RGB")
    assert im.width == 520
    from render.stats import BARS_TOP
    rows = [BARS_TOP + k * 32 + 13 for k in range(3)]  # bars for 8, 9 (none) and 10 rounds
    def bar_len(y):
        paper = im.getpixel((519, y))
        return sum(1 for x in range(56, 520) if im.getpixel((x, y)) != paper)
    lens = [bar_len(y) for y in rows]
    assert lens[2] > lens[0] > 0 and lens[2] > 3 * lens[0]  # 6 wins in 10 vs 1 in 8
    empty = Image.open(io.BytesIO(stats_png(
        played=0, won=0, win_percent=0, win_streak=0, best_win_streak=0, played_streak=0,
        best_played_streak=0, best_points=None, rounds_to_win={}, lang="ja")))
    assert empty.height < im.height


def test_a_question_is_answered_by_its_days_end_or_its_seats_limit():
    """A daily game still open at its day's end closes with it (00:00 UTC); a practice of a
    closed day keeps its seat's limit; a damaged day with no end (9999-12-31) keeps the
    seat's limit too, where it raised for every prompt of that game (the fault-injection
    audit)."""
    day = dt.date(2026, 11, 23)
    end = daily.day_end(day)
    settings = {"daily": {"day": day.isoformat()}}
    assert daily.answer_by(settings, end + 7 * 86400, end - 3600) == end
    assert daily.answer_by(settings, end + 7 * 86400, end + 60) == end + 7 * 86400
    assert daily.answer_by({"daily": {"day": "9999-12-31"}}, 100.0, 50.0) == 100.0
    assert daily.answer_by({}, 100.0, 50.0) == 100.0
