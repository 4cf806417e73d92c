"""The simulator (issue 9): reproducible, runnable from the command line, and its statistics
right on cases small enough to check by hand."""

import json

import pytest
from PIL import Image

from sim.__main__ import main
from sim.runner import Config, run
from sim.stats import phi, summarize, wilson


@pytest.mark.process
def test_same_seeds_same_records_whatever_the_number_of_workers():
    cfg = Config(players=2, ai=("random",))
    one = run(cfg, range(5, 11), workers=1)
    two = run(cfg, range(5, 11), workers=2)
    assert one == two
    assert [r["seed"] for r in one] == list(range(5, 11))
    other = run(cfg, range(11, 17), workers=1)
    assert other != one  # the seeds matter: not one game played six times


@pytest.mark.process
def test_cli_prints_and_writes_the_same_numbers_twice(tmp_path, capsys):
    args = ["--players", "2", "--ai", "random", "--games", "6", "--seed", "3", "--quiet",
            "--workers", "2"]
    assert main(args + ["--json", str(tmp_path / "a.json"), "--png", str(tmp_path / "a.png")]) == 0
    first = capsys.readouterr().out
    assert main(args + ["--json", str(tmp_path / "b.json")]) == 0
    assert capsys.readouterr().out == first
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["summary"]["games"] == 6 and len(doc["records"]) == 6
    assert "turn position 1" in first and "ended by" in first
    with Image.open(tmp_path / "a.png") as img:
        assert img.size[0] > 500 and img.size[1] > 200


@pytest.mark.parametrize("args, message", [
    (["--ai", "godlike"], "unknown AI level"),
    (["--players", "2", "--ai", "random,random,random"], "one per seat"),
    (["--players", "2", "--difficulty", "easy"], "only with --players 1"),
    (["--cards", "/nonexistent/cards.json"], "not found"),
    (["--option", "opening_monster=gollem"], "opening_monster names a monster"),
    (["--option", "start_gold"], "write KEY=VALUE"),
    (["--option", "deadline=3"], "unknown setup option"),
])
def test_bad_command_lines_get_a_clear_answer(args, message):
    with pytest.raises(SystemExit, match=message):
        main(["--ai", "random"] + args + ["--games", "1", "--quiet"])


def test_game_end_reasons_match_the_engine_and_the_round_cap():
    """R13.1 solo: an invasion loses; R15: a game still going at the cap ends there."""
    recs = run(Config(players=1, ai=("random",), round_cap=3), range(20), workers=1)
    reasons = {r["reason"] for r in recs}
    assert reasons <= {"invasion", "round_cap"} and reasons == {"invasion", "round_cap"}
    for r in recs:
        assert (r["reason"] == "invasion") == ("invaded" in r["result_text"])
        assert (r["reason"] == "round_cap") == (r["rounds"] == 3 and "cap" in r["result_text"])
        assert r["invasions"] >= (r["reason"] == "invasion")
    four = run(Config(players=4, ai=("random",)), range(3), workers=1)
    for r in four:
        assert r["reason"] in {"declaration", "elimination"}
        assert (r["reason"] == "declaration") == ("R14.3" in r["result_text"])
        for seat in range(4):
            for offered, taken in r["offers"][seat].values():
                assert 0 <= taken <= offered


def _rec(winners, start, offers=None, recruited=None, rounds=6, reason="declaration"):
    return {"seed": 0, "winners": winners, "draw": len(winners) > 1, "reason": reason,
            "result_text": "", "rounds": rounds, "invasions": 0, "eliminations": 0,
            "start_player": start, "offers": offers or [{}, {}],
            "recruited": recruited or [[], []]}


def test_statistics_on_a_hand_checked_case():
    # Four 2-player games: the first-turn player wins 3 of them, one is a shared win.
    recs = [
        _rec([0], 0, offers=[{"merc:knight": [2, 1]}, {"merc:knight": [1, 0]}],
             recruited=[["merc:knight"], []], rounds=5),
        _rec([1], 1, rounds=6),
        _rec([1], 0, offers=[{"merc:knight": [1, 0]}, {}], rounds=7),
        _rec([0, 1], 1, rounds=30, reason="round_cap"),
    ]
    s = summarize(recs, players=2)
    assert s["draws"] == 1
    assert [p["wins"] for p in s["win_by_seat"]] == [1.5, 2.5]
    # turn position 1: seat 0, seat 1, (seat 0 lost), half of the draw = 2.5 of 4
    assert s["win_by_turn_position"][0]["wins"] == 2.5
    assert s["max_position_excess"] == pytest.approx(0.125)
    assert s["rounds"]["median"] == 6.5 and s["rounds"]["max"] == 30
    assert s["ended_by"]["round_cap"] == 1 and s["round_cap_share"] == 0.25
    k = s["cards"]["merc:knight"]
    assert (k["offered"], k["taken"], k["take_rate"]) == (4, 1, 0.25)
    # offered in 3 (player, game) pairs: took & won once, not taken & lost twice
    assert k["win_rate_taken"] == 1.0 and k["win_rate_not_taken"] == 0.0
    assert k["win_correlation"] == pytest.approx(1.0)


def test_wilson_interval_and_phi_known_values():
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 20)[0] == 0.0 and wilson(0, 20)[1] == pytest.approx(0.1611, abs=1e-4)
    assert phi(10, 0, 0, 10) == 1.0 and phi(0, 10, 10, 0) == -1.0 and phi(5, 5, 5, 5) == 0.0


def test_a_card_data_file_governs_the_engine_and_the_ai(tmp_path):
    """A value changed in --cards is what every game plays with: a Knight priced out of
    reach is never offered as affordable, nor recruited."""
    from engine.cards import DATA_FILE, default_cards
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    data["units"]["knight"]["cost"] = 99
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    base = summarize(run(Config(players=4, ai=("random",)), range(4), workers=1), 4)
    assert base["cards"]["merc:knight"]["offered"] > 0
    recs = run(Config(players=4, ai=("random",), cards=str(path)), range(4), workers=1)
    assert "merc:knight" not in summarize(recs, 4)["cards"]
    assert default_cards().units["knight"].cost != 99  # the default is back for what follows


def test_docs_cards_md_lists_the_values_of_the_card_data_file():
    """docs/cards.md is generated from engine/data/cards.json, never edited by hand."""
    from sim.cards_doc import main as cards_doc
    assert cards_doc(["--check"]) == 0


def test_levelling_up_never_lowers_a_units_hp():
    """R12.2: a level-up card takes over the ★ card's damage cubes, so a level-up card with
    less HP than its ★ card would leave a fainted unit standing (R9.1) — a balance change
    to one must keep the other at least as high (docs/balance.md)."""
    from engine.cards import default_cards

    cs = default_cards()
    stars = [c for c in cs.units.values() if c.job and not c.levelled]
    assert len(stars) == 4  # Warrior★, Cleric★, Sorcerer★, Thief★ (R4)
    for star in stars:
        lv = cs.units[cs.levelup_of(star.job)]
        assert lv.hp >= star.hp, (star.key, star.hp, lv.key, lv.hp)


# ---- issue 19: `python -m sim` reproduces every level ------------------------------------------

@pytest.mark.parametrize("text, why", [
    ("{not json", "Expecting"),
    ('{"monsters": {}}', "missing 'units'"),
    ('{"units": []}', "wrong kind"),
    ("", "Expecting value"),
])
def test_a_malformed_card_file_is_a_one_line_error(tmp_path, text, why):
    """A card file that is not a card set is refused before any game, in one line naming the
    file and what is wrong — not a traceback from every worker."""
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["--ai", "random", "--cards", str(path), "--games", "2", "--quiet",
              "--workers", "1"])
    message = str(exc.value.code)
    assert "bad.json" in message and "not a card set" in message and why in message
    assert "\n" not in message


def test_a_card_value_of_the_wrong_type_is_a_one_line_error(tmp_path):
    from engine.cards import DATA_FILE
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    data["units"]["knight"]["hp"] = "lots"
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SystemExit, match=r"typo\.json is not a card set: .*lots"):
        main(["--ai", "random", "--cards", str(path), "--games", "1", "--quiet"])


@pytest.mark.parametrize("args, message", [
    (["--round-cap", "0"], "--round-cap must be at least 1"),
    (["--round-cap", "-3"], "--round-cap must be at least 1"),
    (["--budget", "0"], "--budget must be at least 1"),
])
def test_a_round_cap_or_budget_below_one_is_refused(args, message):
    """R15: a cap of 0 would end every game before it began (the old sim played on and
    recorded nonsense)."""
    with pytest.raises(SystemExit, match=message):
        main(["--ai", "random", "--games", "1", "--quiet"] + args)


def test_the_json_records_the_card_values_it_ran_with(tmp_path):
    """Not only the file's name: its values' SHA-256 and the released version they are
    (engine/data/cards/vN.json), so an edited file cannot pass for the one measured."""
    from engine.cards import DATA_FILE, default_version
    base = ["--ai", "random", "--games", "1", "--quiet", "--workers", "1"]
    main(base + ["--json", str(tmp_path / "d.json")])
    default = json.loads((tmp_path / "d.json").read_text())["config"]["cards"]
    assert default["file"] == "cards.json" and default["version"] == default_version()
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    same = tmp_path / "cards.json"  # the same values under the same name, laid out otherwise
    same.write_text(json.dumps(data, indent=4), encoding="utf-8")
    main(base + ["--cards", str(same), "--json", str(tmp_path / "s.json")])
    assert json.loads((tmp_path / "s.json").read_text())["config"]["cards"] == default
    data["units"]["knight"]["cost"] = 9
    draft = tmp_path / "draft" / "cards.json"  # an edited file of the very same name
    draft.parent.mkdir()
    draft.write_text(json.dumps(data), encoding="utf-8")
    main(base + ["--cards", str(draft), "--json", str(tmp_path / "e.json")])
    edited = json.loads((tmp_path / "e.json").read_text())["config"]["cards"]
    assert edited["file"] == "cards.json" and edited["version"] is None
    assert edited["sha256"] != default["sha256"] and len(edited["sha256"]) == 64


def test_an_expert_run_gives_the_same_json_on_a_loaded_machine(tmp_path, monkeypatch):
    """`--budget` is a count of simulated answers with no wall-clock cap: a clock that runs
    ten seconds per glance (a machine loaded far past one second a decision) changes nothing."""
    import types

    import ai.expert
    args = ["--players", "1", "--ai", "expert", "--difficulty", "hard", "--games", "1",
            "--seed", "3", "--round-cap", "3", "--budget", "12", "--quiet", "--workers", "1"]
    assert main(args + ["--json", str(tmp_path / "quiet.json")]) == 0
    glances = []

    def slow() -> float:
        glances.append(1)
        return 10.0 * len(glances)

    monkeypatch.setattr(ai.expert, "time", types.SimpleNamespace(perf_counter=slow))
    assert main(args + ["--json", str(tmp_path / "loaded.json")]) == 0
    assert glances, "the expert never looked at the clock: the load was not simulated"
    assert (tmp_path / "quiet.json").read_bytes() == (tmp_path / "loaded.json").read_bytes()
    doc = json.loads((tmp_path / "quiet.json").read_text())
    assert doc["config"]["budget"] == 12


def test_the_chart_keeps_games_past_round_30():
    """With `--round-cap 40` a game of 35 rounds is a bar of the chart, not dropped."""
    from sim.chart import draw_chart
    recs = [_rec([0], 0, rounds=8) for _ in range(4)]
    short = summarize(recs, players=2)
    long = summarize(recs + [_rec([1], 1, rounds=35)], players=2)
    long["rounds"] = dict(short["rounds"], histogram=long["rounds"]["histogram"])
    for k in ("win_by_turn_position", "fair_share", "round_cap_share", "games"):
        long[k] = short[k]
    assert draw_chart([("x", short)], 40).tobytes() != draw_chart([("x", long)], 40).tobytes()
    assert draw_chart([("x", short)]).tobytes() != draw_chart([("x", long)]).tobytes()


def test_no_progress_bar_updates_into_a_log_file(capsys):
    """stderr redirected to a file: one closing line, not a carriage-return redraw per game."""
    assert main(["--players", "2", "--ai", "random", "--games", "6", "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "#" not in err
    assert err.count("\n") == 1 and "6 games" in err


def test_a_setup_variant_reaches_every_game_and_the_json(tmp_path):
    """`--option` plays the daily's modifiers (here R7's opening summon with a Golem in it)
    so a level built from them is measured by the same command as the rulebook's levels."""
    from engine import Game
    args = ["--ai", "random", "--games", "2", "--quiet", "--workers", "1",
            "--difficulty", "hard", "--option", "opening_monster=golem",
            "--option", "start_gold=0", "--json", str(tmp_path / "v.json")]
    assert main(args) == 0
    config = json.loads((tmp_path / "v.json").read_text())["config"]
    assert config["options"] == {"opening_monster": "golem", "start_gold": 0}
    cfg = Config(difficulty="hard", variants=(("opening_monster", "golem"),))
    g = Game.new(["P1"], seed=1, options=cfg.options())
    summoned = [sq["card"] for sq in g.state["players"][0]["board"] if sq and "owner" not in sq]
    assert "golem" in summoned  # R7: the opening summon brought it onto the board
    plain = Game.new(["P1"], seed=1, options=Config(difficulty="hard").options())
    assert "golem" not in [sq["card"] for sq in plain.state["players"][0]["board"]
                           if sq and "owner" not in sq]
