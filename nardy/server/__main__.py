"""``python -m nardy.server``: serve the platform with uvicorn on the configured host and port.

``NARDY_SCRIPTED_DICE=1`` (testing only) builds the app with scripted dice,
which end-to-end tests queue through ``POST /api/testing/dice``.
"""

from __future__ import annotations

import os

import uvicorn

from nardy.server.app import create_app
from nardy.server.services.dice import DiceSource, ScriptedDice
from nardy.server.settings import Settings


def main() -> None:
    """Build the app from the environment and serve it."""
    settings = Settings()
    dice: DiceSource | None = None
    if os.environ.get("NARDY_SCRIPTED_DICE", "") not in ("", "0"):
        if not settings.testing:
            raise SystemExit("NARDY_SCRIPTED_DICE needs NARDY_ENVIRONMENT=testing: scripted dice are for tests only")
        dice = ScriptedDice()
    uvicorn.run(create_app(settings, dice=dice), host=settings.host, port=settings.port, ws_max_size=65536,
                log_level="info")


if __name__ == "__main__":
    main()
