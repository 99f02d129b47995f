"""``python -m nardy.server``: serve the platform with uvicorn on the configured host and port."""

from __future__ import annotations

import uvicorn

from nardy.server.app import create_app
from nardy.server.settings import Settings


def main() -> None:
    """Build the app from the environment and serve it."""
    settings = Settings()
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, ws_max_size=65536, log_level="info")


if __name__ == "__main__":
    main()
