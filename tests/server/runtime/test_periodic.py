"""The background rounds of matchmaking and tournaments: regular, surviving a failure, stopped cleanly."""

from __future__ import annotations

import asyncio

import pytest

from nardy.server.runtime.periodic import Periodic


def test_rounds_come_again_after_a_failure_and_stop_when_asked(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> int:
        rounds = 0

        async def work() -> None:
            nonlocal rounds
            rounds += 1
            if rounds == 1:
                raise RuntimeError("the first round fails")

        periodic = Periodic(work, 0.01, name="test rounds")
        periodic.start()
        while rounds < 3:
            await asyncio.sleep(0.01)
        await periodic.stop()
        stopped_at = rounds
        await asyncio.sleep(0.05)
        assert rounds == stopped_at
        return rounds

    assert asyncio.run(scenario()) >= 3
    assert "test rounds failed" in caplog.text
