"""The database tables. Only :mod:`nardy.store` speaks SQL.

A table (one match between two seats) is its settings plus an append-only
event log; everything else (the position, the score, the clocks) is a fold of
that log through :mod:`nardy.rules`, so replay, history and a restart all
come from the same rows. A few columns are kept beside the log because
queries need them without folding: the status, the deadline of the running
clock, the players, the result and when it last changed; and, beside those, which server process
serves the table's clock and computer player (``owner``, see
``server_processes``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    and_,
    false,
    func,
    literal_column,
    or_,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is always an aware UTC datetime, also on SQLite (which stores no offset)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("timestamps must carry a timezone")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is not None:
            return value
        return value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    """Declarative base of every nardy table; constraints get predictable names for migrations."""

    metadata = MetaData(naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    })
    type_annotation_map = {dict[str, Any]: JSON, datetime: UTCDateTime()}


class User(Base):
    """A person with an account, or a guest who plays the computer without one."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(32), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200))
    is_guest: Mapped[bool] = mapped_column(Boolean, default=False)
    language: Mapped[str] = mapped_column(String(8), default="")
    preferences: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime]
    email: Mapped[str | None] = mapped_column(String(254))
    """An address the owner gave for password resets; ``email_verified`` once they followed the link mailed to it."""
    email_verified: Mapped[bool] = mapped_column(Boolean, server_default=false())
    deleted_at: Mapped[datetime | None]
    """When the owner deleted the account: the row stays, renamed, so that the games it played keep a player."""
    moderator: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """May read reports and act on accounts (``docs/moderation.md``); granted by the operator's ``nardy admin``."""
    engine_assisted: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """Marked by a moderator as playing with an engine's help: off the leaderboards, rating frozen."""


Index("uq_users_username_lower", func.lower(User.username), unique=True)
"""Usernames are unique in any letter case ("Bob" and "bob" are one name), also when two sign-ups race."""

Index("ix_users_email_lower", func.lower(User.email))
"""A password reset finds accounts by their e-mail address in any letter case (several accounts may share one)."""


class AccountToken(Base):
    """A single-use link mailed to an account's owner: verify an e-mail address, or reset the password.

    Like a session, only the SHA-256 of the token is stored; using the link deletes the row.
    """

    __tablename__ = "account_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    purpose: Mapped[str] = mapped_column(String(16))
    """``verify_email`` or ``reset_password``."""
    email: Mapped[str | None] = mapped_column(String(254))
    """The address a ``verify_email`` link was mailed to: it verifies that address only, if still the account's."""
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]


class LoginSession(Base):
    """A signed-in browser: the cookie holds a random token; only its SHA-256 is stored."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]


class GameTable(Base):
    """A table: one match between two seats, or a chouette (``kind``), with its settings and its derived summary.

    A chouette's players are not in the seat columns (``player0_id`` and
    ``player1_id`` stay null); its summary (``score``) lists them for the lobby.
    """

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), default="match", server_default="match")
    """``match`` (two seats) or ``chouette`` (three to eight players, ``docs/chouette.md``)."""
    max_players: Mapped[int | None] = mapped_column(Integer)
    """A chouette's number of places; null for a match."""
    variant: Mapped[str] = mapped_column(String(32))
    match_length: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]]
    move_seconds: Mapped[int | None] = mapped_column(Integer)
    """The time limit of each decision, or null (no limit, or a bank clock)."""
    delay_seconds: Mapped[int | None] = mapped_column(Integer)
    """A bank clock's delay: each decision's first seconds, which cost no bank."""
    bank_seconds_per_point: Mapped[int | None] = mapped_column(Integer)
    """A bank clock's bank per match point, each player's at the start."""
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    invite_token: Mapped[str | None] = mapped_column(String(64), unique=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(16), index=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    deadline_at: Mapped[datetime | None]
    player0_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    player1_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    bot_seat: Mapped[int | None] = mapped_column(Integer)
    bot_level: Mapped[str | None] = mapped_column(String(16))
    winner: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[dict[str, Any] | None]
    finished_at: Mapped[datetime | None]
    rematch_of: Mapped[str | None] = mapped_column(String(32))
    active_at: Mapped[datetime | None]
    """When the table's last event was appended (an untimed game against the computer idle too long is ended)."""
    owner: Mapped[str | None] = mapped_column(String(64))
    """The server process (``server_processes.id``) that serves the table's clock and computer player: the one
    that made its last change, or took it over when that one stopped answering. Null: nobody yet."""
    stake: Mapped[int] = mapped_column(Integer, server_default="0")
    """Virtual coins per match point (0: not played for coins); a match to N points moves N × stake."""


ATTENTION = and_(
    GameTable.status == literal_column("'playing'"),
    or_(GameTable.deadline_at.is_not(None), GameTable.bot_seat.is_not(None)),
)
"""The running tables some process must serve: a move clock is set, or a computer player sits at the table."""

Index("ix_tables_attention", GameTable.status, GameTable.owner, sqlite_where=ATTENTION, postgresql_where=ATTENTION)
"""The takeover sweep's index: the tables needing attention alone, with their owners (migration 0006 writes the
same; the status leads so that SQLite's planner prefers it to ``ix_tables_status``)."""


class ChouettePlayer(Base):
    """Someone who has sat at a chouette: its players are in no seat column, and this is how a player finds the
    chouettes they play in (their own list of games). Written once, when they first sit down."""

    __tablename__ = "chouette_players"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True)


class TableEvent(Base):
    """One accepted action or server decision, numbered per table from 1 without gaps."""

    __tablename__ = "table_events"
    __table_args__ = (
        UniqueConstraint("table_id", "version", name="uq_table_event_version"),
        UniqueConstraint("table_id", "action_id", name="uq_table_event_action"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    seat: Mapped[int | None] = mapped_column(Integer)
    action_id: Mapped[str | None] = mapped_column(String(64))
    payload: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class FinishedGame(Base):
    """One finished game of a table, for history, replay lists and statistics."""

    __tablename__ = "finished_games"
    __table_args__ = (UniqueConstraint("table_id", "number", name="uq_finished_game"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    variant: Mapped[str] = mapped_column(String(32), index=True)
    white_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    black_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    winner_colour: Mapped[str] = mapped_column(String(8))
    kind: Mapped[str] = mapped_column(String(16))
    points: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(16))
    finished_at: Mapped[datetime]


class GameSeed(Base):
    """The secret server seed of one game's dice, kept apart from the public event log.

    Only its SHA-256 commitment is published while the game runs; the seed
    itself is revealed in the ``game_ended`` event.
    """

    __tablename__ = "game_seeds"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    seed: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))


class Rating(Base):
    """A player's current rating in one variant family (``backgammon``, ``georgian``, ``long``)."""

    __tablename__ = "ratings"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    family: Mapped[str] = mapped_column(String(16), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    experience: Mapped[int] = mapped_column(Integer)
    """The sum of the lengths of the rated matches played (FIBS's experience)."""
    matches: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime]


class RatingChange(Base):
    """One rated match's effect on one player's rating: the rating history."""

    __tablename__ = "rating_changes"
    __table_args__ = (Index("ix_rating_changes_user_family", "user_id", "family"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    family: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[str | None] = mapped_column(ForeignKey("tables.id", ondelete="SET NULL"))
    before: Mapped[float] = mapped_column(Float)
    after: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime]
    reason: Mapped[str | None] = mapped_column(String(16))
    """Null for a rated match's result; ``restored`` for undoing a result against an engine-assisted opponent."""


class MatchmakingRow(Base):
    """The matchmaking pool every server process shares, as one JSON document with a version (004)."""

    __tablename__ = "matchmaking"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    version: Mapped[int] = mapped_column(Integer)
    state: Mapped[dict[str, Any]]
    updated_at: Mapped[datetime]


class ServerProcess(Base):
    """A running server process and when it last said so (its heartbeat): whose tables are served.

    A process unseen for longer than the peer timeout counts as dead, and the
    tables it owned are taken over by a live one.
    """

    __tablename__ = "server_processes"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    started_at: Mapped[datetime]
    seen_at: Mapped[datetime]


class AnalysisJob:
    """The columns of an analysis job, shared by the analysis of a table and of an imported match.

    ``status`` goes ``queued`` → ``running`` → ``done`` (or ``failed``). A
    process claims a queued job (or a running one whose ``heartbeat_at``
    went stale: its process died) by a conditional UPDATE, so two server
    processes never run one job at once.
    """

    level: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    requested_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    requested_at: Mapped[datetime]
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    heartbeat_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    result: Mapped[dict[str, Any] | None]
    error: Mapped[str | None] = mapped_column(String(500))


USER_PRIORITY = 10
"""The queue priority of an analysis a user asked for (an imported match's always): served before the rest."""

BACKGROUND_PRIORITY = 0
"""The queue priority of the analysis the server queues by itself at the end of every rated match (fair play)."""


class Analysis(AnalysisJob, Base):
    """A post-game analysis of a finished table: a job in the queue, then its result. One per table.

    ``priority``: queued jobs are claimed highest first, then oldest first;
    a user's request (:data:`USER_PRIORITY`) passes ahead of the server's
    own background analyses (:data:`BACKGROUND_PRIORITY`).
    """

    __tablename__ = "analyses"

    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("tables.id"), primary_key=True)
    priority: Mapped[int] = mapped_column(Integer, default=USER_PRIORITY, server_default=str(USER_PRIORITY))


class FairPlayGame(Base):
    """One player's fair-play figures in one analysed rated match (``nardy.bots.fair_play.GameFigures``).

    Written once, from the first analysis of the match (normally the
    background one, at the fair-play level, which ``level`` records).
    """

    __tablename__ = "fair_play_games"
    __table_args__ = (Index("ix_fair_play_games_user_variant", "user_id", "variant", "played_at"),)

    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    variant: Mapped[str] = mapped_column(String(32))
    level: Mapped[str] = mapped_column(String(16))
    counted: Mapped[int] = mapped_column(Integer)
    total_loss: Mapped[float] = mapped_column(Float)
    unforced_moves: Mapped[int] = mapped_column(Integer)
    best_moves: Mapped[int] = mapped_column(Integer)
    played_at: Mapped[datetime]


class FairPlayFlag(Base):
    """An account whose play lay far outside that of accounts of its rating: evidence for the moderators' queue.

    ``statistic`` names the statistic (``min_robust_z``, docs/fair-play.md),
    ``value`` is the account's, ``threshold`` the one it reached; ``games``
    the analysed matches it covers; ``evidence`` the figures and the
    reference (``nardy.bots.fair_play.Verdict.evidence``) and the tables.
    ``reviewed_at``/``reviewed_by``: set by a moderator. A flag bans no one.
    """

    __tablename__ = "fair_play_flags"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    variant: Mapped[str] = mapped_column(String(32))
    statistic: Mapped[str] = mapped_column(String(32))
    value: Mapped[float] = mapped_column(Float)
    threshold: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    evidence: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]
    reviewed_at: Mapped[datetime | None]
    reviewed_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class ImportedMatch(AnalysisJob, Base):
    """A match a user read in from a file (.mat, SGF, a table record), kept to be analysed and replayed.

    ``record`` is the match as :func:`nardy.notation.transcript.record_from_transcript`
    writes it (the actions, numbered); the variant, length, names and number
    of games are kept beside it for the user's list. The row is its own
    analysis job (one per import), queued when it is read in.
    """

    __tablename__ = "imported_matches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    variant: Mapped[str] = mapped_column(String(32))
    match_length: Mapped[int]
    players: Mapped[list[str]] = mapped_column(JSON)
    """The two players' names as the file gives them."""
    games: Mapped[int]
    record: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class ChatMessage(Base):
    """One line of a two-seat table's chat: free text or a quick phrase, written by one of its players.

    Kept beside the event log, never in it: a message changes no table
    version. Who may read it follows from the table's state (its players
    always; spectators when the table is unrated or both players allow it,
    ``docs/protocol.md``, *Chat*). ``action_id`` (``u<user id>:<client id>``)
    makes sending the same message again harmless.
    """

    __tablename__ = "chat_messages"
    __table_args__ = (
        UniqueConstraint("table_id", "action_id", name="uq_chat_message_action"),
        Index("ix_chat_messages_table_message", "table_id", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    """The writer's name as their seat showed it then."""
    text: Mapped[str | None] = mapped_column(Text)
    phrase: Mapped[str | None] = mapped_column(String(32))
    """A quick phrase's id (each reader sees it in their own language); null for free text."""
    action_id: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime]


class Tournament(Base):
    """A tournament (``docs/tournaments.md``): its format, the settings of its matches, and where it stands.

    ``status`` goes ``registering`` → ``running`` → ``finished`` (or
    ``cancelled`` when a scheduled one starts with too few players). A
    sit-and-go starts when ``max_players`` have registered; a scheduled one
    at ``starts_at``. One server process at a time advances it: the one whose
    conditional UPDATE set ``lease_owner`` and ``lease_until`` (a process
    that dies holding the lease loses it when ``lease_until`` passes).
    """

    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    season: Mapped[str | None] = mapped_column(String(40))
    """The season the protocol names (001: «номер сезона»), free text; null: none."""
    format: Mapped[str] = mapped_column(String(16))
    """``knockout``, ``swiss`` or ``round_robin``."""
    start_kind: Mapped[str] = mapped_column(String(16))
    """``sit_and_go`` (starts when full) or ``scheduled`` (starts at ``starts_at``)."""
    variant: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]]
    """The game options of every match (``moves_final`` too), as a table stores them."""
    rounds_settings: Mapped[dict[str, Any]]
    """``{"default": {...}, "rounds": [{...}, ...]}``: match length and time control, per round where given."""
    rounds: Mapped[int | None] = mapped_column(Integer)
    """How many rounds: asked for a Swiss, fixed at the start for the others."""
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    max_players: Mapped[int] = mapped_column(Integer)
    min_players: Mapped[int] = mapped_column(Integer)
    registration_opens_at: Mapped[datetime | None]
    starts_at: Mapped[datetime | None]
    bots_fill: Mapped[bool] = mapped_column(Boolean, default=False)
    """A sit-and-go may be filled with computer players ``fill_after_seconds`` after its first registration."""
    bot_level: Mapped[str | None] = mapped_column(String(16))
    fill_after_seconds: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), index=True)
    current_round: Mapped[int] = mapped_column(Integer, default=0)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    standings: Mapped[dict[str, Any] | None]
    """The final standings, written when it finishes."""
    lease_owner: Mapped[str | None] = mapped_column(String(64))
    lease_until: Mapped[datetime | None]


class TournamentEntry(Base):
    """One player registered in a tournament: a person, or a computer player that filled a sit-and-go."""

    __tablename__ = "tournament_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "user_id", name="uq_tournament_entry_user"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    bot_level: Mapped[str | None] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int | None] = mapped_column(Integer)
    """1 for the best: fixed at the start, by rating in the variant's family, then by who registered first."""
    registered_at: Mapped[datetime]
    withdrawn_at: Mapped[datetime | None]


class TournamentPairing(Base):
    """One match of a round (or a bye, ``entry_b`` null), its table and its result."""

    __tablename__ = "tournament_pairings"
    __table_args__ = (UniqueConstraint("tournament_id", "round", "board", name="uq_tournament_pairing_board"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    board: Mapped[int] = mapped_column(Integer)
    entry_a: Mapped[int] = mapped_column(ForeignKey("tournament_entries.id"))
    entry_b: Mapped[int | None] = mapped_column(ForeignKey("tournament_entries.id"))
    table_id: Mapped[str | None] = mapped_column(ForeignKey("tables.id"), index=True)
    """The match's table (entry ``a`` in seat 0); null for a bye or a match decided without play."""
    winner: Mapped[int | None] = mapped_column(Integer)
    """The winning entry's id, once decided; null while playing, and when nobody won."""
    result: Mapped[str | None] = mapped_column(String(16))
    """``played``, ``bye``, ``forfeit`` (a withdrawn player's), ``no_result``; null while undecided."""
    finished_at: Mapped[datetime | None]


class CoinAccount(Base):
    """A player's virtual coins (not money: never bought, sold or exchanged, seed 002).

    ``held`` is the part of ``balance`` set aside for the coin tables the
    player sits at (each table's most the player can lose there). Every
    change is one conditional UPDATE, so two server processes can never
    spend the same coins twice; the CHECK keeps the held coins covered and
    the balance from ever going negative.
    """

    __tablename__ = "coin_accounts"
    __table_args__ = (
        CheckConstraint("held >= 0 AND balance >= held", name="held_covered"),
    )

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    balance: Mapped[int] = mapped_column(Integer)
    held: Mapped[int] = mapped_column(Integer, default=0)
    topped_up_on: Mapped[str] = mapped_column(String(10))
    """The UTC day (ISO ``YYYY-MM-DD``) of the last daily top-up, or of the starting grant."""


class CoinMovement(Base):
    """One change of a player's coin balance: the ledger, newest last."""

    __tablename__ = "coin_movements"
    __table_args__ = (Index("ix_coin_movements_user", "user_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    amount: Mapped[int] = mapped_column(Integer)
    """Coins added (positive) or taken (negative)."""
    reason: Mapped[str] = mapped_column(String(16))
    """``grant`` (a new account's start), ``top_up`` (the daily one), ``match_won`` or ``match_lost``."""
    table_id: Mapped[str | None] = mapped_column(ForeignKey("tables.id", ondelete="SET NULL"))
    balance_after: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime]


class CoinHold(Base):
    """Coins one player has set aside at one coin table: the most they can lose there, until the match ends."""

    __tablename__ = "coin_holds"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    amount: Mapped[int] = mapped_column(Integer)


class UserBlock(Base):
    """One player has blocked another: no chat between them, no sitting together, never paired, tables hidden."""

    __tablename__ = "user_blocks"

    blocker_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True)
    created_at: Mapped[datetime]


class Report(Base):
    """A player's report about another (cheating, abusive chat, stalling, other), waiting in the moderators' queue."""

    __tablename__ = "reports"
    __table_args__ = (Index("ix_reports_status_id", "status", "id"), Index("ix_reports_reported_id", "reported_id"))

    id: Mapped[int] = mapped_column(primary_key=True)
    reporter_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    reported_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    category: Mapped[str] = mapped_column(String(16))
    """``cheating``, ``abuse``, ``stalling`` or ``other``."""
    text: Mapped[str] = mapped_column(Text)
    table_id: Mapped[str | None] = mapped_column(ForeignKey("tables.id", ondelete="SET NULL"))
    status: Mapped[str] = mapped_column(String(16))
    """``open`` until a moderator closes it: ``closed``."""
    created_at: Mapped[datetime]
    closed_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    closed_at: Mapped[datetime | None]


class ModerationAction(Base):
    """One entry of the append-only audit log: a moderator (or the operator) acted on an account, with a reason.

    The account's restrictions are read from it: the latest ``ban``/``unban``
    (``mute``/``unmute``) says whether a ban (mute) holds, until ``until``
    (null: for good). Rows are only ever added.
    """

    __tablename__ = "moderation_actions"
    __table_args__ = (Index("ix_moderation_actions_target", "target_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    moderator_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    """Null: the operator, through ``nardy admin``."""
    target_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    action: Mapped[str] = mapped_column(String(16))
    """``warn``, ``mute``, ``unmute``, ``ban``, ``unban``, ``mark_engine``, ``unmark_engine``, ``close_report``,
    ``review_fair_play`` (a fair-play flag reviewed), ``grant_moderator`` or ``revoke_moderator``."""
    reason: Mapped[str] = mapped_column(Text)
    until: Mapped[datetime | None]
    report_id: Mapped[int | None] = mapped_column(ForeignKey("reports.id", ondelete="SET NULL"))
    flag_id: Mapped[int | None] = mapped_column(ForeignKey("fair_play_flags.id", ondelete="SET NULL"))
    """The fair-play flag a ``review_fair_play`` entry reviewed; null for every other action."""
    created_at: Mapped[datetime]


class LoginAddress(Base):
    """An address an account signed in from, first and last: moderators see which accounts share one."""

    __tablename__ = "login_addresses"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    address: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)
    first_seen: Mapped[datetime]
    last_seen: Mapped[datetime]
