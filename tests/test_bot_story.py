"""What the bot posts reads right for everyone: every image has alt text in the reader's
language, display names are printed as typed (no markdown, no mentions), and each message may
ping only the players it means to (issue 7)."""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

from bot_driver import Clock, Table, make_bot
from harness import Harness, Request

EVIL = "**@everyone** <@123456789012345678> _x_"


def _body(r: Request) -> dict[str, Any] | None:
    """The message part of a request: interaction callbacks nest it in `data`."""
    body = r.json
    if not isinstance(body, dict):
        return None
    if r.route.endswith("/callback"):
        body = body.get("data") if isinstance(body.get("data"), dict) else None
    return body


def _sends(h: Harness) -> list[tuple[Request, dict[str, Any]]]:
    """Every request that created or edited a message with text or files."""
    out = []
    for r in h.requests:
        body = _body(r)
        if r.method in ("POST", "PATCH") and body is not None and (
                "content" in body or r.files):
            out.append((r, body))
    return out


def test_names_are_escaped_images_described_and_pings_limited_over_a_full_game(tmp_path):
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=11)) as h:
            evil, bob = h.user(EVIL), h.user("bob")
            table = Table(h)
            await table.open(evil, [bob], players=2)
            rng = random.Random(5)
            for k in range(600):
                step = await table.step(rng)
                if step is None:
                    break
                if k % 40 == 0:  # the players' own images, during the game
                    await table.slash(bob, "rr board")
                    await table.slash(evil, "rr board", player=bob)
                    row, g = await table.game()
                    own = [i for i, p in enumerate(g.state["players"][1]["board"])
                           if p and "owner" in p]
                    if own:
                        from engine.board import NAMES
                        await table.slash(bob, "rr reach", unit=NAMES[own[0]])
                    await table.slash(bob, "rr card", name="goblin")
                    await table.slash(evil, "rr status")
            row, g = await table.game()
            assert g.over
            kenji = h.user("kenji", locale="ja")  # alt text in the reader's language
            res = await table.slash(kenji, "rr card", name="goblin")
            assert res.files and (res.files[0].description or "").startswith("カード「ゴブリン」: HP")
            res = await table.slash(kenji, "rr board", player=bob)
            assert res.files and "のボード（ラウンド" in (res.files[0].description or "")
            sends = _sends(h)
            files = [f for r, _ in sends for f in r.files]
            kinds = {f.filename.split("-")[0] for f in files}
            assert {"table", "board", "reach", "card"} <= kinds, kinds
            # every attachment has alt text
            missing = [f.filename for f in files if not (f.description or "").strip()]
            assert not missing, f"{len(missing)} of {len(files)} images without alt text"
            # a phase's image says which phase ended (R5), and whose boards it shows
            alts = [f.description or "" for f in files if f.filename.startswith("table")]
            for phase in ("⑤ Invasion", "⑥ Summon", "⑦ End phase"):
                assert any(a.startswith(f"The table after {phase}, round") for a in alts)
            assert all("Bob" in a for a in alts)
            assert any(a.startswith("Bob's board") for a in (f.description or "" for f in files))
            players = {evil.id, bob.id}
            named = 0
            for r, body in sends:
                text = (body.get("content") or "").lower()
                # the name never reaches Discord as markup or as a mention
                assert "**@everyone**" not in text and "<@123456789012345678>" not in text, text
                assert "@\u200b123456789012345678" in text or "123456789012345678" not in text
                assert "@everyone" not in text.replace("@\u200beveryone", ""), text
                named += "\\*\\*@\u200beveryone\\*\\*" in text
                am = body.get("allowed_mentions")
                assert am is not None, (r.route, text[:80])
                assert not set(am.get("parse", [])) & {"everyone", "roles", "users"}, am
                pinged = {int(u) for u in am.get("users", [])}
                assert pinged <= players
                # only users the text itself mentions may be pinged
                assert pinged <= {int(u) for u in re.findall(r"<@!?(\d+)>", text)}, (text, am)
            assert named > 5  # the name did appear, escaped, in the story of the game
            # each ping pings exactly its player
            for _r, body in sends:
                text = body.get("content") or ""
                m = re.match(r"<@(\d+)>", text)
                if m and int(m.group(1)) in players:
                    assert body["allowed_mentions"].get("users") == [m.group(1)] or \
                        body["allowed_mentions"].get("users") == [int(m.group(1))]
    asyncio.run(scenario())
