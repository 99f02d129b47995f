"""Post-game analysis through the API: request, progress, result; the queue in the database; who may ask."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from nardy.notation import transcript_from_mat, transcript_from_sgf
from nardy.notation.transcript import replay, transcript_from_record
from nardy.store import analyses_repo
from nardy.store.analyses_repo import JobKey
from tests.server.game_server import GameServer, Player, racing_play

WAIT = 120.0
"""Seconds a worker process may take to start (spawn), load its engines and analyse a short match."""


def _finished_match(server: GameServer, variant: str = "backgammon", **body: Any) -> tuple[str, list[Player]]:
    alice, bob = server.player(), server.player()
    table, players = server.match(variant, 1, players=[alice, bob], **body)
    server.play_out(table, players, choose=racing_play)
    assert players[0].client.get(f"/api/tables/{table}").json()["status"] == "finished"
    return table, players


def _wait_done(player: Player, table: str) -> dict[str, Any]:
    end = time.monotonic() + WAIT
    seen: list[float] = []
    while time.monotonic() < end:
        answer: dict[str, Any] = player.client.get(f"/api/tables/{table}/analysis").json()
        seen.append(answer["progress"])
        if answer["status"] in ("done", "failed"):
            assert seen == sorted(seen), "progress went backwards"
            return answer
        time.sleep(0.2)
    raise AssertionError(f"the analysis did not finish within {WAIT} s: {answer}")


def test_a_finished_match_is_analysed_in_a_worker_process(make_game_server: Callable[..., GameServer]) -> None:
    game_server = make_game_server(metrics="open")
    table, (alice, bob) = _finished_match(game_server)
    assert alice.client.get(f"/api/tables/{table}/analysis").status_code == 404

    queued = alice.post(f"/api/tables/{table}/analysis", {"level": "advanced"})
    assert queued.status_code == 202, queued.text
    assert queued.json()["status"] in ("queued", "running") and queued.json()["level"] == "advanced"
    again = bob.post(f"/api/tables/{table}/analysis")
    assert again.status_code == 200 and again.json()["level"] == "advanced", "asked again: the same job"

    done = _wait_done(alice, table)
    assert done["status"] == "done", done
    assert done["progress"] == 1.0 and done["variant"] == "backgammon"
    (game,) = done["games"]
    record = game_server.record(table)
    moves = [e for e in record["events"] if e["kind"] == "moved"]
    decisions = [d for d in game["decisions"] if d["kind"] == "move"]
    assert len(decisions) == len(moves)
    assert {d["source"] for d in decisions} == {e["version"] for e in moves}, "each decision names its event"
    assert all(d["equity_loss"] >= 0 for d in decisions)
    assert len(game["equity"]) == len(game["decisions"])
    names = [s["name"] for s in done["summaries"]]
    assert names == [alice.name, bob.name]
    metrics = game_server.client.get("/metrics").text
    assert 'nardy_analysis_seconds_count{outcome="stored"} 1.0' in metrics


def test_a_process_without_workers_leaves_the_jobs_queued(make_game_server: Callable[..., GameServer]) -> None:
    """``NARDY_ANALYSIS_WORKERS=0``: a process for play only; it counts the queue for its metrics."""
    server = make_game_server(analysis_workers=0, analysis_poll_seconds=0.05, metrics="open")
    table, (alice, _) = _finished_match(server)
    assert alice.post(f"/api/tables/{table}/analysis").status_code == 202
    end = time.monotonic() + 10
    while 'nardy_analysis_queue_depth 1.0' not in server.client.get("/metrics").text:
        assert time.monotonic() < end, "the queue's depth was not counted"
        time.sleep(0.05)
    assert alice.client.get(f"/api/tables/{table}/analysis").json()["status"] == "queued"


def test_only_a_finished_match_and_only_a_signed_in_user(game_server: GameServer) -> None:
    alice, bob = game_server.player(), game_server.player()
    table, players = game_server.match("georgian", 1, players=[alice, bob])
    assert alice.post(f"/api/tables/{table}/analysis").status_code == 409
    stranger = game_server.player(sign_up=False, connect=False)
    assert stranger.post(f"/api/tables/{table}/analysis").status_code == 401
    assert alice.post("/api/tables/nosuchtable/analysis").status_code == 404
    refused = alice.post(f"/api/tables/{table}/analysis", {"level": "grandmaster"})
    assert refused.status_code == 422
    assert alice.client.get(f"/api/tables/{table}/analysis").status_code == 404, "a refusal queued nothing"


def test_a_private_match_is_analysed_for_its_players_only(game_server: GameServer) -> None:
    table, (alice, _bob) = _finished_match(game_server, private=True)
    outsider = game_server.player()
    assert outsider.post(f"/api/tables/{table}/analysis").status_code == 403
    assert outsider.client.get(f"/api/tables/{table}/analysis").status_code == 403
    assert alice.post(f"/api/tables/{table}/analysis", {"level": "advanced"}).status_code == 202


def test_requests_are_rate_limited_per_user(make_game_server: Callable[..., GameServer]) -> None:
    server = make_game_server(rate_limits=True, analyses_per_user="2 per hour", guests_per_address="100 per hour",
                         signups_per_address="100 per hour")
    tables = [_finished_match(server, "georgian")[0] for _ in range(3)]
    alice = server.player()
    for table in tables[:2]:
        assert alice.post(f"/api/tables/{table}/analysis", {"level": "advanced"}).status_code == 202
    refused = alice.post(f"/api/tables/{tables[2]}/analysis", {"level": "advanced"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert alice.client.get(f"/api/tables/{tables[2]}/analysis").status_code == 404


def test_two_processes_claiming_one_job_never_both_win(make_game_server: Callable[..., GameServer]) -> None:
    """The claim is a conditional UPDATE: of two processes one takes a queued job; a job whose heartbeat
    went stale (its process died) is taken again, once, and the process that lost it stores nothing."""
    server = make_game_server(analysis_poll_seconds=3600.0)  # the app's own queue stays out of the way
    table, _ = _finished_match(server, "georgian")
    sessions = server.client.app.state.db  # type: ignore[attr-defined]
    now = datetime.now(UTC)
    minute = timedelta(seconds=60)
    with sessions() as db:
        analyses_repo.request(db, table_id=table, level="advanced", user_id=None, now=now)
    with sessions() as first, sessions() as second:
        wins = [analyses_repo.claim(first, me="a", now=now, stale_before=now - minute),
                analyses_repo.claim(second, me="b", now=now, stale_before=now - minute)]
    assert wins == [(JobKey("table", table), "advanced"), None]
    soon = now + timedelta(seconds=30)
    with sessions() as db:
        assert analyses_repo.claim(db, me="c", now=soon, stale_before=soon - minute) is None, "a live job stays"
    later = now + timedelta(minutes=5)
    with sessions() as db:
        won = analyses_repo.claim(db, me="c", now=later, stale_before=later - minute)
        assert won == (JobKey("table", table), "advanced")
    with sessions() as db:
        assert analyses_repo.claim(db, me="d", now=later, stale_before=later - minute) is None
    with sessions() as db:
        assert not analyses_repo.progress(db, job=JobKey("table", table), me="a", done=0.5, now=later)
        assert not analyses_repo.finish(db, job=JobKey("table", table), me="a", result={"games": []}, now=later)
        assert analyses_repo.finish(db, job=JobKey("table", table), me="c", result={"games": []}, now=later)
        job = analyses_repo.get(db, table)
        assert job is not None and job.status == "done" and job.claimed_by == "c"


def test_a_match_downloads_as_mat_and_sgf_that_read_back(game_server: GameServer) -> None:
    table, (alice, _bob) = _finished_match(game_server)
    mat = alice.client.get(f"/api/tables/{table}/export.mat")
    assert mat.status_code == 200 and "attachment" in mat.headers["content-disposition"]
    sgf = alice.client.get(f"/api/tables/{table}/export.sgf")
    assert sgf.status_code == 200 and sgf.text.startswith("(;")
    played = list(replay(transcript_from_record(game_server.record(table))))[-1].match
    for text, reader in ((mat.text, transcript_from_mat), (sgf.text, transcript_from_sgf)):
        back = list(replay(reader(text)))[-1].match
        assert (back.score, back.winner) == (played.score, played.winner)
    long_table, _ = _finished_match(game_server, "long-bolshie")
    assert alice.client.get(f"/api/tables/{long_table}/export.mat").text.count('[Variant "long-bolshie"]') == 1
    assert alice.client.get(f"/api/tables/{long_table}/export.sgf").status_code == 422
    assert alice.client.get(f"/api/tables/{table}/export.pdf").status_code == 422
    assert alice.client.get("/api/tables/nosuchtable/export.mat").status_code == 404
