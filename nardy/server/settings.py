"""Typed configuration, read from ``NARDY_*`` environment variables."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

Environment = Literal["development", "testing", "production"]

MOVE_SECONDS_CHOICES = (30, 60, 90, 120)
"""Per-move time controls offered to players (004); ``None`` means untimed."""

CORRESPONDENCE_DAYS_CHOICES = (1, 3, 7)
"""Correspondence time controls, days per move (003)."""


class Settings(BaseSettings):
    """Everything the server can be told. Built explicitly by ``create_app``; nothing at import time."""

    model_config = SettingsConfigDict(env_prefix="NARDY_", extra="ignore")

    environment: Environment = "development"
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("data")
    database_url: str | None = Field(default=None, description="SQLAlchemy URL; SQLite under data_dir by default")
    redis_url: str | None = Field(default=None, description="publish/subscribe across server processes")
    cookie_secure: bool | None = Field(default=None, description="Secure cookies; on outside development")
    session_days: int = 30
    max_message_bytes: int = 4096
    messages_per_second: float = 20.0
    message_burst: int = 40
    resync_event_limit: int = 500
    table_idle_seconds: float = Field(
        default=1800.0, gt=0, description="a table unused this long leaves memory (reloaded from its log on use)",
    )
    finished_table_seconds: float = Field(
        default=60.0, ge=0, description="a finished table leaves memory this long after its last use",
    )
    allowed_origins: list[str] = Field(default_factory=list)
    max_waiting_tables: int = Field(
        default=5, ge=1, description="tables waiting for players (the lobby's rows) one player may hold at once",
    )

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to a SQLite file under ``data_dir``."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'nardy.sqlite3').resolve()}"

    @property
    def secure_cookies(self) -> bool:
        """Whether cookies carry the Secure flag."""
        if self.cookie_secure is not None:
            return self.cookie_secure
        return self.environment == "production"

    @property
    def testing(self) -> bool:
        """Testing mode: short clocks and the scripted-dice route are allowed."""
        return self.environment == "testing"
