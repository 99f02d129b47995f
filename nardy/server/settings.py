"""Typed configuration, read from ``NARDY_*`` environment variables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from limits import parse_many as parse_rates
from pydantic import AfterValidator, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

Environment = Literal["development", "testing", "production"]
PasswordHashProfile = Literal["rfc9106-low-memory", "cheapest"]

MOVE_SECONDS_CHOICES = (30, 60, 90, 120)
"""Per-move time controls offered to players (004); ``None`` means untimed."""

CORRESPONDENCE_DAYS_CHOICES = (1, 3, 7)
"""Correspondence time controls, days per move (003)."""

BANK_CLOCK_CHOICES = ((8, 30), (12, 60), (15, 120))
"""Bank clocks offered to players, ``(delay seconds, bank seconds per match point)``: fast, standard and slow.
Rated tables and rated matchmaking use one of these."""

DEFAULT_BANK_CLOCK = (12, 60)
"""The bank clock rated matchmaking uses when none is asked for: 12 s per decision, then 1 minute per point."""

SITE_STATISTICS_SECONDS = 300.0
"""How long a process serves the site's dice statistics (a scan of every roll ever made) before it scans again."""

COMPUTER_PAUSE_SECONDS = 0.6
"""The least pause before each action of a computer player unless ``NARDY_BOT_DELAY_SECONDS`` says otherwise:
its roll stays on the board a moment before its checkers move, and a person can follow both."""

STARTING_GRANT = 1000
"""Virtual coins every account starts with, unless ``NARDY_COINS_STARTING_GRANT`` says otherwise."""

DAILY_TOP_UP = 100
"""Virtual coins added once per UTC day, unless ``NARDY_COINS_DAILY_TOP_UP`` says otherwise."""


METRICS_TOKEN_PREFIX = "token:"
METRICS_TOKEN_MIN_LENGTH = 16
"""The fewest characters of a ``/metrics`` token: a guessable one would open the figures to anyone."""


def _metrics_access(text: str) -> str:
    """``off``, ``open`` or ``token:SECRET`` (a secret of at least 16 characters)."""
    if text in ("off", "open"):
        return text
    if text.startswith(METRICS_TOKEN_PREFIX) and len(text) - len(METRICS_TOKEN_PREFIX) >= METRICS_TOKEN_MIN_LENGTH:
        return text
    raise ValueError(f"give off, open or token:SECRET with a secret of at least {METRICS_TOKEN_MIN_LENGTH} characters")


MetricsAccess = Annotated[str, AfterValidator(_metrics_access)]
"""Who may read ``GET /metrics``, checked when the settings are read so a typo stops the server at start."""


def _rate_limit(text: str) -> str:
    """One rate in the notation of the ``limits`` library (``"10 per 15 minutes"``, ``"30/minute"``), at least 1."""
    rates = parse_rates(text)
    if len(rates) != 1:
        raise ValueError("give one rate limit, such as '10 per 15 minutes'")
    if rates[0].amount < 1:
        raise ValueError("a rate limit must allow at least one request")
    return text


RateLimit = Annotated[str, AfterValidator(_rate_limit)]
"""A rate limit setting, checked when the settings are read so a typo stops the server at start."""


def _smtp_url(text: str) -> str:
    """A URL of a mail server that :mod:`nardy.server.services.mail` understands."""
    parts = urlsplit(text)
    if parts.scheme not in ("smtp", "smtp+starttls", "smtps") or not parts.hostname:
        raise ValueError("give the mail server as smtp://host:port, smtp+starttls://host:port or smtps://host")
    return text


def _http_url(text: str) -> str:
    """An http(s) URL with a host, without a trailing slash."""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("give the site's address as https://host (or http://host:port)")
    return text.rstrip("/")


SmtpUrl = Annotated[str, AfterValidator(_smtp_url)]
HttpUrl = Annotated[str, AfterValidator(_http_url)]


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
    password_hash_profile: PasswordHashProfile | None = Field(
        default=None,
        description="argon2id's parameters for new password hashes: RFC 9106's low-memory profile; 'cheapest' "
                    "only in testing, where it is the default (a suite signs up thousands of players)",
    )
    max_message_bytes: int = 4096
    messages_per_second: float = 20.0
    message_burst: int = 40
    message_overrun: int = Field(
        default=40, ge=0, description="frames a WebSocket may send beyond its rate (each dropped) before it is closed",
    )
    max_sockets_per_address: int = Field(
        default=30, ge=1, description="open WebSockets one client address may hold in one server process",
    )
    max_subscriptions: int = Field(default=20, ge=1, description="tables one WebSocket may watch at once")
    request_header_timeout: float = Field(
        default=10.0, gt=0, description="seconds a connection has to send a request's headers before it is closed",
    )
    keep_alive_timeout: int = Field(default=5, ge=1, description="seconds an idle HTTP keep-alive connection stays open")
    ws_ping_interval: float = Field(default=20.0, gt=0, description="seconds between the server's WebSocket pings")
    ws_ping_timeout: float = Field(
        default=20.0, gt=0, description="seconds a WebSocket has to answer a ping before it is closed",
    )
    ws_compression: bool = Field(
        default=True,
        description="accept permessage-deflate on WebSockets: fewer bytes to each client for some 8-16 % more "
                    "server CPU per action and about 50 KiB of memory per connection (benchmarks/RESULTS.md)",
    )
    max_connections: int = Field(
        default=2048, ge=1, description="connections or requests in progress beyond which HTTP requests get 503",
    )
    resync_event_limit: int = 500
    table_idle_seconds: float = Field(
        default=1800.0, gt=0, description="a table unused this long leaves memory (reloaded from its log on use)",
    )
    finished_table_seconds: float = Field(
        default=60.0, ge=0, description="a finished table leaves memory this long after its last use",
    )
    database_pool_size: int = Field(
        default=20, ge=1, description="database connections each process keeps open",
    )
    database_pool_overflow: int = Field(
        default=40, ge=0,
        description="connections opened beyond the pool at peaks (pool + overflow should cover 40 request threads "
                    "and the database threads; with PostgreSQL, every process's total within max_connections)",
    )
    database_threads: int = Field(
        default=8, ge=1, description="worker threads running the table services' queries off the event loop",
    )
    heartbeat_seconds: float = Field(
        default=1.0, gt=0, description="how often a server process records that it is alive",
    )
    peer_timeout_seconds: float = Field(
        default=4.0, gt=0,
        description="a process unseen this long counts as dead: a live one takes over its clocks and bots",
    )
    takeover_sweep_seconds: float = Field(
        default=1.0, gt=0, description="how often a process looks for tables whose owner is dead",
    )
    computer_game_idle_seconds: float = Field(
        default=3600.0, gt=0,
        description="an untimed game against the computer whose human has not acted this long is forfeited by them",
    )
    bot_delay_seconds: float | None = Field(
        default=None, ge=0,
        description="the least pause before each computer action, so people can follow it; "
                    f"{COMPUTER_PAUSE_SECONDS} s unless set, 0 in testing",
    )
    statistics_seconds: float | None = Field(
        default=None, ge=0,
        description="how long a process serves the site's dice statistics before it reads every roll again; "
                    f"{SITE_STATISTICS_SECONDS} s unless set, 0 in testing",
    )
    redis_start_timeout: float = Field(
        default=10.0, ge=0, description="seconds a process waits for its Redis at start before it refuses to start",
    )
    analysis_workers: int = Field(
        default=1, ge=0,
        description="worker processes analysing finished matches (each takes one CPU core while busy); "
                    "0: this process analyses nothing and leaves the queue to processes that do",
    )
    fair_play_analysis: bool = Field(
        default=True,
        description="queue the background fair-play analysis of every finished rated match (docs/fair-play.md)",
    )
    analysis_poll_seconds: float = Field(
        default=2.0, gt=0, description="how often a process looks for queued analyses another process accepted",
    )
    analysis_stale_seconds: float = Field(
        default=120.0, gt=0, description="an analysis whose worker wrote no progress this long is taken again",
    )
    # operations: metrics and logs (docs/operations.md, Metrics and Logs)
    metrics: MetricsAccess = Field(
        default="off",
        description="GET /metrics in Prometheus' text format: off (404), open, or token:SECRET "
                    "(an 'Authorization: Bearer SECRET' header required)",
    )
    log_format: Literal["text", "json"] = Field(
        default="text", description="json: one JSON object a line, naming the request, user and table it is about",
    )
    gc_young_only: bool = Field(
        default=True,
        description="keep automatic garbage collections to the young generations, so none walks every live game "
                    "(off: CPython's own schedule; start-up's objects are frozen either way)",
    )
    gc_full_seconds: float = Field(
        default=86400.0, ge=0,
        description="after this long without a collection of the old generation (made whenever the process holds "
                    "at most 50 WebSockets), one is made at its quietest minute, at the latest after twice this "
                    "long (0: only when quiet)",
    )
    allowed_origins: list[str] = Field(default_factory=list)
    rate_limits: bool | None = Field(
        default=None, description="the HTTP rate limits below; on outside testing, whose harnesses sign many users up",
    )
    logins_per_address: RateLimit = "30 per minute"
    signups_per_account: RateLimit = "10 per hour"
    signups_per_address: RateLimit = "10 per hour"
    guests_per_address: RateLimit = "20 per hour"
    analyses_per_user: RateLimit = "20 per hour"
    board_requests_per_address: RateLimit = "60 per minute"
    reports_per_user: RateLimit = "10 per hour"
    trusted_proxies: list[str] = Field(
        default_factory=list, description="proxy addresses or networks whose X-Forwarded-For and -Proto are believed",
    )
    max_body_bytes: int = Field(default=65536, ge=0, description="larger HTTP request bodies are refused with 413")
    max_import_bytes: int = Field(
        default=2_097_152, ge=0, description="the cap of max_body_bytes for a match file read in (POST /api/imports)",
    )
    imports_per_user: int = Field(default=100, ge=0, description="imported matches one user may keep")
    max_waiting_tables: int = Field(
        default=5, ge=1, description="tables waiting for players (the lobby's rows) one player may hold at once",
    )
    tournament_sweep_seconds: float = Field(
        default=2.0, gt=0, description="how often a process starts, pairs and ends the tournaments it can claim",
    )
    max_open_tournaments: int = Field(
        default=3, ge=1, description="tournaments not yet started one account may organise at once",
    )
    chat_max_length: int = Field(default=200, ge=1, description="characters in one chat message (free text)")
    chat_messages_per_minute: float = Field(
        default=10.0, gt=0, description="the rate one player's chat messages at one table refill at, after a burst",
    )
    chat_burst: int = Field(default=5, ge=1, description="chat messages one player may send at once at one table")
    chat_history: int = Field(
        default=100, ge=0, description="the last chat messages a client gets when it subscribes to a table",
    )

    coins_starting_grant: int = Field(
        default=STARTING_GRANT, ge=0, description="virtual coins (not money) every account starts with",
    )
    coins_daily_top_up: int = Field(
        default=DAILY_TOP_UP, ge=0,
        description="virtual coins added once per UTC day, the first time the player's coins are used or looked at",
    )

    # The account's life: the login lockout, mail, e-mail verification and password resets.
    login_failures_per_account_address: RateLimit = Field(
        default="10 per 15 minutes",
        description="wrong passwords for one account from one address (or one signed-in device) before it waits",
    )
    login_failures_per_address: RateLimit = Field(
        default="50 per 15 minutes", description="wrong passwords from one address, for any accounts, before it waits",
    )
    smtp_url: SmtpUrl | None = Field(
        default=None,
        description="the mail server: smtp://host:port, smtp+starttls://user:pass@host:port or smtps://user:pass@host; "
                    "without it (or public_url) password resets and e-mail verification are unavailable",
    )
    public_url: HttpUrl | None = Field(
        default=None, description="the site's address as players reach it (https://nardy.example), for mailed links",
    )
    mail_from: str | None = Field(
        default=None, max_length=254, description="the sender of mail; no-reply@ the public URL's host unless set",
    )
    mails_per_account: RateLimit = Field(
        default="3 per hour", description="password-reset or verification mails one account is sent",
    )
    password_resets_per_address: RateLimit = Field(
        default="10 per hour", description="password-reset requests from one address",
    )

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to a SQLite file under ``data_dir``."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'nardy.sqlite3').resolve()}"

    @property
    def metrics_token(self) -> str | None:
        """The bearer token ``GET /metrics`` asks for, or ``None`` (metrics off, or open to anyone)."""
        if self.metrics.startswith(METRICS_TOKEN_PREFIX):
            return self.metrics[len(METRICS_TOKEN_PREFIX):]
        return None

    @property
    def secure_cookies(self) -> bool:
        """Whether cookies carry the Secure flag."""
        if self.cookie_secure is not None:
            return self.cookie_secure
        return self.environment == "production"

    @property
    def rate_limited(self) -> bool:
        """Whether the HTTP rate limits apply."""
        if self.rate_limits is not None:
            return self.rate_limits
        return self.environment != "testing"

    @property
    def computer_pause_seconds(self) -> float:
        """The least pause before each action of a computer player (a roll, a move, a cube action): the
        setting, else :data:`COMPUTER_PAUSE_SECONDS`, or none in testing, where nobody watches."""
        if self.bot_delay_seconds is not None:
            return self.bot_delay_seconds
        return 0.0 if self.testing else COMPUTER_PAUSE_SECONDS

    @property
    def site_statistics_seconds(self) -> float:
        """How long the site's dice statistics are served before every roll is read again: the setting, else
        :data:`SITE_STATISTICS_SECONDS`, or none in testing, where each test reads its own rolls."""
        if self.statistics_seconds is not None:
            return self.statistics_seconds
        return 0.0 if self.testing else SITE_STATISTICS_SECONDS

    @model_validator(mode="after")
    def _cheap_hashes_only_in_testing(self) -> Settings:
        if self.password_hash_profile == "cheapest" and not self.testing:
            raise ValueError("password_hash_profile 'cheapest' is for the testing environment only")
        return self

    @property
    def password_hashing(self) -> PasswordHashProfile:
        """The argon2id profile of new password hashes: the setting, else the cheapest in testing, RFC 9106's
        low-memory profile everywhere else."""
        if self.password_hash_profile is not None:
            return self.password_hash_profile
        return "cheapest" if self.testing else "rfc9106-low-memory"

    @property
    def mail_available(self) -> bool:
        """Whether mail can be sent with links in it: both ``smtp_url`` and ``public_url`` are set."""
        return self.smtp_url is not None and self.public_url is not None

    @property
    def mail_sender(self) -> str:
        """The sender of mail: ``mail_from``, else ``no-reply@`` the public URL's host."""
        return self.mail_from or f"no-reply@{urlsplit(self.public_url or '').hostname or 'localhost'}"

    @property
    def testing(self) -> bool:
        """Testing mode: short clocks and the scripted-dice route are allowed."""
        return self.environment == "testing"
