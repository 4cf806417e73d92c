"""One outbox notice, delivered message by message: when Discord cannot take a message,
the notice is kept and retried from that message — the ones before are not sent twice, the
ones after wait their turn — and a bug in the middle never skips a message."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import cogs.delivery
from cogs.announce import Announcer, deliver, hold_slot
from store import Store


def test_a_notice_resumes_at_the_message_discord_did_not_take(tmp_path, monkeypatch):
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))

    async def main():
        store = await Store(str(tmp_path / "t.db")).open()
        row = await store.create_lobby(1, 1, 1, "Ann", {"players": 1})
        done = await store.start(row.id, row.seats, {"seed": 1}, "{}", notice={"kind": "x"})
        teller = Announcer(SimpleNamespace(store=store))  # type: ignore[arg-type]
        sent: list[str] = []
        down = {"m2": 3}  # Discord refuses m2 on the first attempt (deliver tries 3 times)
        broken = {"m3": True}  # and a bug breaks m3 once

        def message(name: str):
            async def call() -> str:
                if down.get(name, 0) > 0:
                    down[name] -= 1
                    raise TimeoutError("Discord unreachable")
                if broken.pop(name, False):
                    raise ValueError("a bug while sending")
                sent.append(name)
                return name
            return call

        async def notice() -> None:
            await deliver("m0", message("m0"))
            if await deliver("dm", message("dm")) is None:  # a DM, else its fallback
                await deliver("fallback", message("fallback"))
            else:
                hold_slot()
            for name in ("m2", "m3", "m4"):
                await deliver(name, message(name))

        assert not await teller.tell(done.notice, notice)
        (pending,) = await store.notices()
        assert sent == ["m0", "dm"] and pending.parts_done == 3 and pending.attempts == 1
        assert not await teller.tell(done.notice, notice, parts_done=3, attempts=1)
        (pending,) = await store.notices()
        assert sent == ["m0", "dm", "m2"] and pending.parts_done == 4  # m3: the bug
        assert await teller.tell(done.notice, notice, parts_done=4, attempts=2)
        assert sent == ["m0", "dm", "m2", "m3", "m4"]  # each once, in order
        assert await store.notices() == []
        await store.close()
    asyncio.run(main())
