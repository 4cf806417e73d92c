"""A channel game's hidden parts cannot be searched from its table (R3, R15; docs/state.md).

A game dealt with splitmix64 from a 31-bit seed gave its seed away to a search over 2³¹
seeds checked against the first rounds' public table and log (the permissions audit: three
minutes on one core), and with it every deck order, face-down summon chip, secret medal and
die to come. A game nobody chose a seed for now draws with the keyed generator from a fresh
256-bit key, which no number of observed draws narrows; the key stays out of every view.
"""

from __future__ import annotations

import asyncio
import json

from engine import Game
from service import GameService
from store import Store


def test_a_game_nobody_chose_a_seed_for_draws_with_a_secret_key(tmp_path):
    async def main() -> None:
        store = await Store(str(tmp_path / "g.db")).open()
        svc = GameService(store)  # as the bot runs: no seed source
        try:
            keys = []
            for channel in (1, 2):
                await svc.lobby.new_lobby(1, channel, 11, "Ann", players=2, time_limit_s=3600)
                await svc.lobby.join(channel, 22, "Bob")
                out = await svc.lobby.start(channel, 11)
                row = await store.get(out.row.id)
                assert row is not None and row.setup is not None
                assert row.setup.get("rng") == "hmac-ctr", row.setup
                key = row.setup["key"]
                assert len(bytes.fromhex(key)) == 32
                keys.append(key)
                g = Game.from_json(row.state)
                # nobody's view, a spectator's included, carries the key or a stream
                for seat in (0, 1, None):
                    seen = json.dumps(g.view(seat))
                    assert key not in seen and "rng" not in json.loads(seen)
                # the stored game replays from its setup and log with that key
                replayed = Game.start(row.setup)
                for seat, text in await store.log(row.id):
                    replayed.apply(int(seat), str(text))
                assert replayed.state["monster_deck"] == g.state["monster_deck"]
            assert keys[0] != keys[1]  # a fresh key for every game
        finally:
            svc.ai.close()
            await store.close()
    asyncio.run(main())


def test_a_chosen_seed_still_deals_the_same_game(tmp_path):
    """Tests and the console's --seed choose a seed: it is public, so the game is dealt from
    it as before (splitmix64), the same game every time."""
    async def main() -> list[object]:
        store = await Store(str(tmp_path / "s.db")).open()
        svc = GameService(store, seed_source=lambda: 5)
        try:
            decks = []
            for channel in (1, 2):
                await svc.lobby.new_lobby(1, channel, 11, "Ann", players=1)
                out = await svc.lobby.start(channel, 11)
                assert out.row.setup is not None and "rng" not in out.row.setup
                decks.append(out.game.state["monster_deck"])
            return decks
        finally:
            svc.ai.close()
            await store.close()
    first, second = asyncio.run(main())
    assert first == second
