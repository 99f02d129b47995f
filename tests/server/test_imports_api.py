"""Matches played elsewhere, read in from .mat, SGF and record files: kept for their owner, analysed, replayed."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sqlalchemy import select

from nardy.notation import transcript_from_mat, transcript_from_sgf
from nardy.notation.transcript import record_from_transcript, transcript_from_record
from nardy.rules import GameOptions
from nardy.server.services.records import transcript_replay
from nardy.store import analyses_repo
from nardy.store.analyses_repo import JobKey
from nardy.store.models import ImportedMatch, User
from tests.match_records import random_record
from tests.server.game_server import GameServer, Player, racing_play

WAIT = 120.0
"""Seconds a worker process may take to start (spawn), load its engines and analyse a short match."""


@pytest.mark.parametrize(("variant", "length", "options"), [
    ("backgammon", 0, GameOptions(cube=True)), ("dave", 3, GameOptions(cube=True)), ("georgian", 3, GameOptions()),
    ("long-traditional", 1, GameOptions()),
])
def test_replay_frames_of_a_kept_match_in_every_variant(variant: str, length: int, options: GameOptions) -> None:
    """A frame per action, numbered 1..N in order, then a frame for each game's end with its result (and the
    match's end, when it has one): a money session's games and a match ended by timeouts too."""
    for seed in range(3):
        record, played = random_record(variant, seed, length=length, options=options)
        kept = transcript_from_record(record_from_transcript(transcript_from_record(record)))
        frames = transcript_replay(kept)["frames"]
        numbered = [f["version"] for f in frames if f["kind"] not in ("game_ended", "match_ended")]
        assert numbered == list(range(1, sum(len(game.actions) for game in kept.games) + 1))
        results = [f["result"] for f in frames if f["kind"] == "game_ended"]
        assert [(r["winner"], r["points"]) for r in results] == [(r.winner, r.points) for r in played.results]
        assert (frames[-1]["kind"] == "match_ended") == played.is_over
        assert frames[-1]["score"] == list(played.score)


def _exported(server: GameServer, variant: str = "backgammon", kind: str = "mat") -> tuple[str, str]:
    """A finished match of ``variant`` as its .mat (or SGF) download, and its table."""
    alice, bob = server.player(), server.player()
    table, players = server.match(variant, 1, players=[alice, bob])
    server.play_out(table, players, choose=racing_play)
    return alice.client.get(f"/api/tables/{table}/export.{kind}").text, table


def _wait_done(player: Player, import_id: str) -> dict[str, Any]:
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        answer: dict[str, Any] = player.client.get(f"/api/imports/{import_id}/analysis").json()
        if answer["status"] in ("done", "failed"):
            return answer
        time.sleep(0.2)
    raise AssertionError(f"the analysis did not finish within {WAIT} s: {answer}")


def test_a_mat_file_is_read_in_analysed_and_replayed(game_server: GameServer) -> None:
    mat, table = _exported(game_server)
    carol = game_server.player(connect=False)
    answer = carol.post("/api/imports", {"name": "club-night.mat", "text": mat, "level": "advanced"})
    assert answer.status_code == 201, answer.text
    imported = answer.json()
    assert (imported["name"], imported["variant"], imported["match_length"], imported["games"]) == (
        "club-night.mat", "backgammon", 1, 1)
    assert imported["analysis"]["status"] in ("queued", "running") and imported["analysis"]["level"] == "advanced"
    (listed,) = carol.client.get("/api/imports").json()["imports"]
    assert {**listed, "analysis": None} == {**imported, "analysis": None}

    done = _wait_done(carol, imported["id"])
    assert done["status"] == "done", done
    assert done["import"] == imported["id"] and done["variant"] == "backgammon"
    assert [s["name"] for s in done["summaries"]] == imported["players"]

    shown = carol.client.get(f"/api/imports/{imported['id']}/replay").json()
    played = game_server.record(table)
    moves = [f for f in shown["frames"] if f["kind"] == "moved"]
    assert len(moves) == sum(1 for e in played["events"] if e["kind"] == "moved")
    (game,) = done["games"]
    judged = {d["source"] for d in game["decisions"] if d["kind"] == "move"}
    assert judged == {f["version"] for f in moves}, "each decision names the frame of its move"
    table_frames = [f for f in game_server.client.get(f"/api/tables/{table}/replay").json()["frames"]
                    if f["kind"] == "moved"]
    assert [(f["board"], f["text"], f["score"]) for f in moves] == [
        (f["board"], f["text"], f["score"]) for f in table_frames], "the same boards as the table's own replay"
    ended = [f for f in shown["frames"] if f["kind"] == "game_ended"]
    assert len(ended) == 1 and ended[0]["result"]["winner"] in (0, 1) and ended[0]["version"] is None
    assert shown["frames"][-1]["kind"] == "match_ended" and set(shown["whites"]) == {"1"}
    assert carol.client.get(f"/api/imports/{imported['id']}").json()["analysis"]["status"] == "done"


def test_sgf_and_record_files_are_read_too(game_server: GameServer) -> None:
    sgf, table = _exported(game_server, kind="sgf")
    dave = game_server.player(connect=False)
    from_sgf = dave.post("/api/imports", {"name": "game.sgf", "text": sgf, "level": "advanced"})
    assert from_sgf.status_code == 201, from_sgf.text
    record = dave.client.get(f"/api/tables/{table}/record").text
    from_record = dave.post("/api/imports", {"name": "download", "text": record, "level": "advanced"})
    assert from_record.status_code == 201, from_record.text
    frames = [dave.client.get(f"/api/imports/{answer.json()['id']}/replay").json()["frames"]
              for answer in (from_sgf, from_record)]
    assert [f["board"] for f in frames[0]] == [f["board"] for f in frames[1]]
    converted = dave.client.get(f"/api/imports/{from_sgf.json()['id']}/export.mat")
    assert converted.status_code == 200 and "attachment" in converted.headers["content-disposition"]
    assert transcript_from_mat(converted.text).games == transcript_from_sgf(sgf).games, "SGF in, the same .mat out"
    stranger = game_server.player(connect=False)
    assert stranger.client.get(f"/api/imports/{from_sgf.json()['id']}/export.sgf").status_code == 404


def test_what_cannot_be_read_or_replayed_is_refused_and_nothing_is_kept(game_server: GameServer) -> None:
    mat, table = _exported(game_server)
    erin = game_server.player(connect=False)
    garbage = erin.post("/api/imports", {"name": "notes.txt", "text": "hello"})
    assert garbage.status_code == 422 and garbage.json()["detail"].startswith("notes.txt: ")
    unreadable = erin.post("/api/imports", {"name": "broken.mat", "text": mat.replace("/", "/28", 1)})
    assert unreadable.status_code == 422 and "line " in unreadable.json()["detail"], unreadable.text
    record = game_server.record(table)
    moved = next(e for e in record["events"] if e["kind"] == "moved")
    moved["payload"]["steps"] = [{"source": 24, "target": 1, "die": 6}]
    illegal = erin.post("/api/imports", {"name": "illegal.json", "text": json.dumps(record)})
    assert illegal.status_code == 422, illegal.text
    assert illegal.json()["detail"].startswith("illegal.json: game 1, action "), "the rules refuse the move"
    assert erin.post("/api/imports", {"name": "x.mat", "text": mat, "level": "grandmaster"}).status_code == 422
    assert erin.client.get("/api/imports").json() == {"imports": []}


def test_only_its_owner_sees_an_import_and_may_remove_it(game_server: GameServer) -> None:
    mat, _ = _exported(game_server)
    frank, grace = game_server.player(connect=False), game_server.player(connect=False)
    made = frank.post("/api/imports", {"name": "m.mat", "text": mat, "level": "advanced"}).json()
    address = f"/api/imports/{made['id']}"
    for path in (address, f"{address}/replay", f"{address}/analysis"):
        assert grace.client.get(path).status_code == 404, path
    assert grace.client.delete(address, headers=grace.csrf()).status_code == 404
    assert grace.post(f"{address}/analysis").status_code == 404
    stranger = game_server.player(sign_up=False, connect=False)
    assert stranger.client.get("/api/imports").status_code == 401
    assert stranger.post("/api/imports", {"name": "m.mat", "text": mat}).status_code == 401
    assert frank.client.delete(address, headers=frank.csrf()).status_code == 204
    assert frank.client.get(address).status_code == 404
    assert frank.client.get("/api/imports").json() == {"imports": []}


def test_a_failed_analysis_may_be_asked_for_again(game_server: GameServer) -> None:
    mat, _ = _exported(game_server)
    heidi = game_server.player(connect=False)
    made = heidi.post("/api/imports", {"name": "m.mat", "text": mat, "level": "advanced"}).json()
    address = f"/api/imports/{made['id']}/analysis"
    assert heidi.post(address).status_code == 200, "queued, running or done: answered as it stands"
    _wait_done(heidi, made["id"])
    with game_server.client.app.state.db() as db:  # type: ignore[attr-defined]
        row = db.get(ImportedMatch, made["id"])
        row.status, row.error = "failed", "RuntimeError: the worker died"
        db.commit()
    assert heidi.client.get(address).json()["error"] == "RuntimeError: the worker died"
    again = heidi.post(address, {"level": "advanced"})
    assert again.status_code == 202 and again.json()["status"] in ("queued", "running", "done")
    assert _wait_done(heidi, made["id"])["status"] == "done"


def test_how_many_a_user_keeps_and_asks_for(make_game_server: Callable[..., GameServer]) -> None:
    server = make_game_server(rate_limits=True, analyses_per_user="3 per hour", imports_per_user=2,
                         guests_per_address="100 per hour", signups_per_address="100 per hour")
    mat, _ = _exported(server)
    ivan = server.player(connect=False)
    made = [ivan.post("/api/imports", {"name": f"m{i}.mat", "text": mat, "level": "advanced"}) for i in range(2)]
    assert [answer.status_code for answer in made] == [201, 201]
    for answer in made:
        _wait_done(ivan, answer.json()["id"])
    kept = ivan.post("/api/imports", {"name": "m.mat", "text": mat})
    assert kept.status_code == 409 and "remove some first" in kept.json()["detail"]
    assert ivan.client.delete(f"/api/imports/{made[0].json()['id']}", headers=ivan.csrf()).status_code == 204
    third = ivan.post("/api/imports", {"name": "m2.mat", "text": mat, "level": "advanced"})
    assert third.status_code == 201
    assert ivan.client.delete(f"/api/imports/{made[1].json()['id']}", headers=ivan.csrf()).status_code == 204
    limited = ivan.post("/api/imports", {"name": "m3.mat", "text": mat})
    assert limited.status_code == 429, "each import queues an analysis: the hourly limit counts it"
    assert [item["name"] for item in ivan.client.get("/api/imports").json()["imports"]] == ["m2.mat"]


def test_a_user_waits_for_two_analyses_before_a_third(make_game_server: Callable[..., GameServer]) -> None:
    """Nobody fills the queue the tables' analyses share: two unfinished imports, then 409 until one is done."""
    server = make_game_server(analysis_poll_seconds=3600.0)  # the app's own queue is never woken: the rows stay queued
    mat, _ = _exported(server)
    judy = server.player(connect=False)
    sessions = server.client.app.state.db  # type: ignore[attr-defined]
    with sessions() as db:
        owner = db.scalar(select(User.id).where(User.username == judy.name))
        db.add_all(_queued(name, owner, mat) for name in ("first", "second"))
        db.commit()
    waiting = judy.post("/api/imports", {"name": "third.mat", "text": mat})
    assert waiting.status_code == 409 and "wait for one to finish" in waiting.json()["detail"]
    with sessions() as db:
        row = db.get(ImportedMatch, "first")
        row.status = "done"
        db.commit()
    assert judy.post("/api/imports", {"name": "third.mat", "text": mat}).status_code == 201


def test_a_match_too_long_to_analyse_is_refused(game_server: GameServer, monkeypatch: pytest.MonkeyPatch) -> None:
    mat, _ = _exported(game_server)
    actions = sum(len(game.actions) for game in transcript_from_mat(mat).games)
    monkeypatch.setattr("nardy.server.api.imports.MAX_ACTIONS", actions - 1)
    kim = game_server.player(connect=False)
    refused = kim.post("/api/imports", {"name": "long.mat", "text": mat})
    assert refused.status_code == 422
    assert refused.json()["detail"] == f"long.mat: {actions} actions; at most {actions - 1} are analysed"
    monkeypatch.setattr("nardy.server.api.imports.MAX_ACTIONS", actions)
    assert kim.post("/api/imports", {"name": "long.mat", "text": mat}).status_code == 201


def _queued(import_id: str, owner: int, mat: str) -> ImportedMatch:
    """An import of ``mat`` written straight to the database, its analysis queued (nothing wakes the queue)."""
    transcript = transcript_from_mat(mat)
    now = datetime.now(UTC)
    return ImportedMatch(
        id=import_id, owner_id=owner, name=f"{import_id}.mat", variant=transcript.variant,
        match_length=transcript.length, players=list(transcript.players), games=len(transcript.games),
        record=record_from_transcript(transcript), created_at=now, level="expert", status="queued", progress=0.0,
        requested_at=now,
    )


def test_a_match_file_may_be_larger_than_other_bodies(make_game_server: Callable[..., GameServer]) -> None:
    server = make_game_server(max_body_bytes=1024, max_import_bytes=200_000)
    judy = server.player(connect=False)
    large = "x" * 100_000
    assert judy.post("/api/imports", {"name": "big.mat", "text": large}).status_code == 422, "read, not refused"
    assert judy.post("/api/guest", {"name": large}).status_code == 413
    assert judy.post("/api/imports", {"name": "big.mat", "text": large * 3}).status_code == 413


def test_jobs_of_both_kinds_are_claimed_oldest_first(make_game_server: Callable[..., GameServer]) -> None:
    """Written straight to the database, so that the app's own queue (never woken) leaves them to the test."""
    server = make_game_server(analysis_poll_seconds=3600.0)
    mat, table = _exported(server)
    sessions = server.client.app.state.db  # type: ignore[attr-defined]
    now = datetime.now(UTC)
    with sessions() as db:
        analyses_repo.request(db, table_id=table, level="advanced", user_id=None, now=now)
        older = _queued("older", db.scalar(select(User.id).limit(1)), mat)
        older.requested_at = now - timedelta(seconds=1)
        db.add(older)
        db.commit()
    minute = timedelta(seconds=60)
    with sessions() as db:
        claims = [analyses_repo.claim(db, me="a", now=now, stale_before=now - minute) for _ in range(3)]
    assert claims == [(JobKey("import", "older"), "expert"), (JobKey("table", table), "advanced"), None]
    with sessions() as db:
        assert analyses_repo.progress(db, job=JobKey("import", "older"), me="a", done=0.5, now=now)
        assert analyses_repo.finish(db, job=JobKey("import", "older"), me="a", result={"games": []}, now=now)
        assert not analyses_repo.finish(db, job=JobKey("import", "older"), me="a", result={"games": []}, now=now)
        row = db.get(ImportedMatch, "older")
        assert row is not None and (row.status, row.progress, row.result) == ("done", 1.0, {"games": []})
