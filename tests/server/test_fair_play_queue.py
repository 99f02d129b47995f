"""The fair-play flags in the moderators' console (``docs/fair-play.md``, ``docs/moderation.md``).

«accounts far outside it ... go into the moderators' queue with the evidence.
Never an automatic ban.» A moderator reviews a flag once, with a reason, in
the audit log (the entry names the account and the flag); only moderators see or review flags; bad input gets a clear
4xx and changes nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from nardy.cli import main
from nardy.store import fair_play_repo, users_repo

EVIDENCE = {"games": 12, "pr": 1.2, "match_rate": 0.93, "z_pr": -3.4, "z_match": 3.1,
            "reference": {"accounts": 15}, "tables": ["t1", "t2"]}


def make_moderator(game_server: Any, player: Any) -> None:
    """Grant ``player`` the role with ``nardy admin grant-moderator``, in the server's database."""
    database = game_server.app.state.settings.resolved_database_url
    assert main(["admin", "grant-moderator", player.name, "--database-url", database]) == 0


def flag(game_server: Any, player: Any) -> int:
    """Write a flag on ``player`` as the detector does; its id."""
    with game_server.app.state.db() as db:
        user = users_repo.by_name(db, player.name)
        assert user is not None
        row = fair_play_repo.add_flag(
            db, user_id=user.id, variant="long", statistic="min_robust_z", value=3.1, threshold=3.0, games=12,
            evidence=EVIDENCE, now=datetime(2026, 1, 2, tzinfo=UTC),
        )
        db.commit()
        return row.id


def test_a_flag_shows_in_the_queue_and_the_user_view_and_is_reviewed_once(game_server) -> None:
    bob, mod = game_server.player(connect=False), game_server.player(connect=False)
    flag_id = flag(game_server, bob)
    review = f"/api/mod/fair-play/{flag_id}/review"
    assert mod.client.get("/api/mod/reports").status_code == 403
    assert mod.post(review, {"reason": "looked"}).status_code == 403, "only moderators"

    make_moderator(game_server, mod)
    (queued,) = mod.client.get("/api/mod/reports").json()["fair_play"]
    assert {k: queued[k] for k in ("id", "username", "variant", "statistic", "value", "threshold", "games")} == {
        "id": flag_id, "username": bob.name, "variant": "long", "statistic": "min_robust_z", "value": 3.1,
        "threshold": 3.0, "games": 12}
    assert queued["evidence"] == EVIDENCE and queued["reviewed_at"] is None and queued["created_at"]

    for url, body, code in [
        (review, {"reason": ""}, 422),
        (review, {"reason": "   "}, 422),
        (review, {"reason": "x" * 501}, 422),
        (review, {"reason": "x", "ban": True}, 422),
        ("/api/mod/fair-play/999999/review", {"reason": "x"}, 404),
        ("/api/mod/fair-play/0/review", {"reason": "x"}, 422),
    ]:
        assert mod.post(url, body).status_code == code, (url, body)
    assert len(mod.client.get("/api/mod/reports").json()["fair_play"]) == 1, "a refusal changes nothing"

    answer = mod.post(review, {"reason": "a strong player, games look human"})
    assert answer.status_code == 200
    assert answer.json()["flag"]["reviewed_by"] == mod.name
    assert mod.post(review, {"reason": "again"}).status_code == 409
    assert mod.client.get("/api/mod/reports").json()["fair_play"] == []

    (entry,) = [e for e in mod.client.get("/api/mod/log").json()["entries"] if e["action"] == "review_fair_play"]
    assert (entry["target"], entry["moderator"], entry["reason"], entry["flag"]) == (
        bob.name, mod.name, "a strong player, games look human", flag_id), "the entry names the account and the flag"
    assert answer.json()["entry"] == entry
    view = mod.client.get(f"/api/mod/users/{bob.name}").json()
    assert [e["flag"] for e in view["log"] if e["action"] == "review_fair_play"] == [flag_id]
    assert [(f["id"], f["reviewed_by"]) for f in view["fair_play"]] == [(flag_id, mod.name)]
    standing = bob.client.get("/api/me/moderation").json()
    assert standing["banned"] is None and standing["engine_assisted"] is False, "never an automatic ban"


def test_a_moderator_does_not_review_a_flag_on_their_own_account(game_server) -> None:
    mod = game_server.player(connect=False)
    make_moderator(game_server, mod)
    flag_id = flag(game_server, mod)
    assert mod.post(f"/api/mod/fair-play/{flag_id}/review", {"reason": "fine"}).status_code == 422
    assert len(mod.client.get("/api/mod/reports").json()["fair_play"]) == 1
