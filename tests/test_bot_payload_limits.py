"""Discord's documented limits, checked on worst-case inputs (the limits audit).

The harness refuses every payload over a limit as Discord does (tests/harness/checks.py)
and fails the test even when the bot swallows the refusal (`OverLimit`), or when a message's
text would ping @everyone, @here or a role (`UnsafePing`). Here the longest inputs a player
can make — four 32-character display names with markdown, mentions, wide scripts and bidi
overrides, a whole game's log, Japanese — go through every read command, and a shortened
message is checked to be cut where a player can still read it.
"""

from __future__ import annotations

import asyncio
import re

import discord
import pytest
from bot_driver import Clock, finished_solo, long_named_game, make_bot
from harness import Harness, OverLimit, UnsafePing
from test_bot_daily_review import NEXT_NOON, NOON, play_ranked

import service.review_looks
from cogs.announce import MAX_CONTENT, clip
from cogs.daily_job import day_once
from cogs.text import cut
from service import rules as rules_ref

# ---------------------------------------------------------------------------- cutting


def _balanced(text: str) -> bool:
    """No markdown pair left open, no tag cut: what a shortened message must keep."""
    body = re.sub(r"\\.", "", text)
    body = re.sub(r"`[^`]*`", "", body)
    if body.count("`") or re.search(r"<[^>]*$", body):
        return False
    return all(body.count(mark) % 2 == 0 for mark in ("**", "~~", "||"))


@pytest.mark.parametrize("limit", range(40, 200, 3))
def test_a_shortened_message_never_cuts_a_mention_or_a_markdown_pair(limit: int) -> None:
    """Discord refuses a message over 2,000 characters, so a long answer is shortened; a
    plain slice left `**Mar` (the rest of the message bold) or `<@12` (a broken mention).
    `cut` ends at a line's end or a space outside every pair and tag, and says "…"."""
    text = ("**Marie\\_Claire** raided <@123456789012345678> with `/rr place 2B` "
            "||a secret|| and ~~struck~~ **Ōtsuki さくら 🌸** then\n" * 4)
    out = cut(text, limit)
    assert len(out) <= limit and out.endswith("…")
    assert _balanced(out[:-1]), out
    assert text.startswith(out[:-1].rstrip())


def test_a_lone_underscore_or_asterisk_inside_a_word_still_lets_a_message_be_cut_at_a_space(
        ) -> None:
    """Discord reads `_` as markdown only at a word's edges (`snake_case` shows as typed),
    and a `*` or `_` that nothing closes as itself. `cut` took each for an open pair, so
    a line with `snake_case` (or `2*3`) had no safe place left after it and was sliced
    mid-word ("… the unit_ca…"). It now ends at a space, and still never inside a pair
    Discord does read (`_em_`, `*em*`, `a*b*c`, `__init__`)."""
    text = "ran snake_case and 2*3 then " + "word " * 30
    out = cut(text, 60)
    assert len(out) <= 60 and out.endswith(" word…"), out
    for paired in ("_em phasis_", "*em phasis*", "a*b c*d", "__in it__"):
        text = f"{'x ' * 20}{paired} tail"
        for limit in range(len(text) - 12, len(text)):
            out = cut(text, limit)
            assert len(out) <= limit and out.endswith("…"), out
            assert paired in out or paired.split(" ")[0] not in out, (limit, out)


def test_clip_keeps_whole_lines_when_they_fit() -> None:
    """A reply too long for one message keeps its first lines whole."""
    lines = [f"**line {k}** <@{10**17 + k}>" for k in range(200)]
    out = clip(lines)
    assert len(out) <= MAX_CONTENT and out.endswith("…")
    assert all(line in lines for line in out[:-1].rstrip().split("\n"))


# ---------------------------------------------------------------------------- the sweep

WORST_NAMES = ["@everyone <@&1> ‮RTL‭override", "さくら🌸さくら🌸さくら🌸さくら🌸さくら🌸さくら🌸さ"]


def test_the_harness_fails_a_swallowed_overflow_and_a_ping_of_everyone(tmp_path) -> None:
    """The checker itself: a 2001-character post or a post that would ping @everyone is a
    test failure even when the bot catches Discord's refusal and only logs it."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            channel = h.bot.get_partial_messageable(h.channel.id)
            with pytest.raises(discord.HTTPException) as refused:
                await channel.send("x" * 2001)
            assert refused.value.code == 50035
            assert h.raise_errors(expect_error=OverLimit)
            await channel.send("@everyone look", allowed_mentions=discord.AllowedMentions.all())
            assert h.raise_errors(expect_error=UnsafePing)
            await channel.send("@everyone look")  # the bot's default pings nobody
            assert not h.raise_errors()
    asyncio.run(scenario())


def test_the_checker_knows_modal_and_select_limits() -> None:
    """Limits the checker did not know: a modal's title and a text input's label (45
    characters each), and a select's max_values above its options' count."""
    from harness import _validate_message_payload
    from harness.checks import modal_problems

    row = {"type": 1, "components": [{"type": 4, "custom_id": "t", "label": "L" * 46,
                                      "style": 1}]}
    assert len(modal_problems({"title": "T" * 46, "custom_id": "m", "components": [row]})) == 2
    assert not modal_problems({"title": "T" * 45, "custom_id": "m", "components": [
        {"type": 1, "components": [{"type": 4, "custom_id": "t", "label": "ok", "style": 1}]}]})
    select = {"type": 3, "custom_id": "s", "max_values": 3,
              "options": [{"label": "a", "value": "a"}, {"label": "b", "value": "b"}]}
    errors = _validate_message_payload(
        {"components": [{"type": 1, "components": [select]}]}, [], creating=True)
    assert "components.max_values" in errors


def test_every_read_command_fits_discord_limits_for_four_long_names_in_japanese(tmp_path):
    """A whole 4-player game of the longest display names (markdown, mentions, wide
    scripts), read back in Japanese: status, log, board, every rules section, stats
    profile, history and its viewer, the leaderboard. Every payload is checked by the
    harness; a post over a limit or pinging @everyone fails here."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=11),
                           settle_timeout=600) as h:
            h.server.guild_locale = "ja"
            users, row, _g = await long_named_game(h, 5)
            for user in users:
                user.locale = "ja"
            for user, name in zip(users, WORST_NAMES, strict=False):  # names change later
                user.global_name = user.nick = name
            for command in ("rr status", "rr log", "rr board", "rr-stats profile",
                            "rr-stats leaderboard", "rr-stats history"):
                res = await h.slash(users[0], command)
                assert res.messages, command
                assert "@everyone" not in res.text, res.text  # defused: "@\u200beveryone"
            for key in rules_ref.sections("ja"):
                res = await h.slash(users[2], "rr rules", topic=key)
                assert res.messages and res.messages[-1].embeds, key
            hist = await h.slash(users[1], "rr-stats history")
            assert hist.last is not None
            await h.click(users[1], message=hist.last, label=f"🎬 #{row.id}")
            for _ in range(200):  # every frame of the game, phase by phase
                msg = hist.last
                if not any(b.get("label") == "▶" and not b.get("disabled")
                           for r in msg.components for b in r.get("components", [])):
                    break
                await h.click(users[1], message=msg, label="▶")
    asyncio.run(scenario())


def test_an_image_over_the_servers_upload_limit_leaves_the_words_and_says_so(tmp_path):
    """Discord answers 413 / 40005 "Request entity too large" to an upload over the server's
    limit (10 MiB by default, smaller on some servers). `/rr-recap` left the player's
    "thinking…" up for ever and `/rr board` never answered ("The application did not
    respond"): now the words come without the image, saying it was left out."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3),
                           settle_timeout=60) as h:
            ann, yui = h.user("ann"), h.user("yui", locale="ja")
            await finished_solo(h, ann)
            h.http.fail("*", "*", status=413, code=40005, message="Request entity too large",
                        times=None, when=lambda r: bool(r.files))
            recap = await h.slash(ann, "rr-recap")
            assert recap.ephemeral and not recap.files
            assert "The recap of game" in recap.text and "upload limit" in recap.text
            assert not any(m.flags & 128 for m in recap.messages)  # no "thinking…" left
            board = await h.slash(yui, "rr board")
            assert board.ephemeral and not board.files and board.response_type == 4
            assert "アップロード上限" in board.text, board.text
    asyncio.run(scenario())


def test_a_channel_post_whose_image_is_over_the_upload_limit_keeps_its_words(tmp_path):
    """A game's channel post carries its last lines with the table's image; Discord's 413 /
    40005 to the image lost those lines for the whole table (a 4xx is not retried). Now
    they are posted without the image, saying it was left out, and the game goes on."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3),
                           settle_timeout=60) as h:  # a loaded machine draws slowly
            ann = h.user("ann")
            h.http.fail("POST", "/channels/{channel_id}/messages", status=413, code=40005,
                        message="Request entity too large", times=None,
                        when=lambda r: bool(r.files))
            _table, _row, g = await finished_solo(h, ann)
            assert g.over
            posts = [m for m in h.messages() if not m.ephemeral and m.dm_user_id is None]
            assert not any(m.files for m in posts)
            noted = [m for m in posts if "over this server's upload limit" in m.text]
            assert noted and all(m.text.strip() != "" for m in noted)
            assert any(len(m.text.split("\n")) > 1 for m in noted)  # the words, then the note
    asyncio.run(scenario())


def _refuse_uploads(h: Harness) -> None:
    """Discord's answer to any upload from now on: 413 / 40005 (a server whose upload
    limit is below the bot's images)."""
    h.http.fail("*", "*", status=413, code=40005, message="Request entity too large",
                times=None, when=lambda r: bool(r.files))


def test_a_viewer_step_and_a_review_over_the_upload_limit_keep_their_words(tmp_path,
                                                                           monkeypatch):
    """The edited answers with an image — a viewer's next phase, the review with its chart
    — were lost whole on 413 / 40005 (the viewer kept showing the previous phase, the
    review its progress line); now the words come, the image said left out."""
    monkeypatch.setattr(service.review_looks, "SAMPLES", 1)
    monkeypatch.setattr(service.review_looks, "RECHECK", 1)
    monkeypatch.setattr(service.review_looks, "DECIDED_FACTOR", 1)
    monkeypatch.setattr(service.review_looks, "LATE", 0)

    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3),
                           settle_timeout=600) as h:
            ann = h.user("ann")
            _table, row, _g = await finished_solo(h, ann)
            hist = await h.slash(ann, "rr-stats history")
            assert hist.last is not None
            await h.click(ann, message=hist.last, label=f"🎬 #{row.id}")
            _refuse_uploads(h)
            await h.click(ann, message=hist.last, label="▶")
            assert "step 2 of" in hist.last.text and "upload limit" in hist.last.text
            assert not hist.last.files
            review = await h.slash(ann, "rr-learn review", game=row.id)
            assert "the expert's review" in review.text and "upload limit" in review.text
            assert not review.files
    asyncio.run(scenario())


def test_a_tutorial_step_over_the_upload_limit_keeps_its_words(tmp_path):
    """The tutorial's next screen (an edit with its picture) was lost on 413 / 40005: the
    learner saw the old step. Now the words and buttons come, the picture said left out."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock()),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            res = await h.slash(ann, "rr-learn tutorial")
            msg = res.message
            assert msg is not None
            _refuse_uploads(h)
            await h.click(ann, message=msg, label="place Thief★ 2B")
            assert "✅ Well done." in msg.text and "upload limit" in msg.text, msg.text
            assert not msg.files
    asyncio.run(scenario())


def test_a_daily_recap_over_the_upload_limit_still_tells_the_day_closed(tmp_path):
    """The day's recap DM (the closed day's words with the animation): Discord's 413 /
    40005 to the animation dropped the whole notice, so the player never heard the day had
    closed. Now the words come, the animation said left out, once."""
    async def scenario() -> None:
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            await play_ranked(h, ann)
            _refuse_uploads(h)
            clock.now = NEXT_NOON  # the day has closed
            await day_once(h.bot)
            await day_once(h.bot)  # another pass: told already
            dms = [m for m in h.messages() if not m.ephemeral and m.dm_user_id == ann.id
                   and "has closed" in m.text]
            assert len(dms) == 1 and not dms[0].files
            assert "upload limit" in dms[0].text, dms[0].text
    asyncio.run(scenario())
