"""GNU Backgammon's legal plays in its own variations, read inside Debian's ``gnubg``.

What: a script that ``gnubg -t -q -r -p`` runs in gnubg's embedded Python (the
``gnubg`` module exists only there). It reads requests from the JSON file named
by ``NARDY_GNUBG_REQUESTS``: ``{"variation": "nackgammon", "requests": [{"id":
Position ID, "dice": [d1, d2]}, ...]}``, and writes to ``NARDY_GNUBG_ANSWERS``,
per request, ``{"board": gnubg.board(), "moves": [...]}``: the board gnubg set
(its own ``(opponent, on roll)`` arrays, to check the ID) and the text of every
legal play, from ``hint`` at 0-ply with room for all of them (gnubg lists one
entry per distinct resulting position).

Why a file and a subprocess: GNU Backgammon is GPL-3.0; the ``nardy`` package
never imports it, and this script is never imported by a test, only handed to
the ``gnubg`` program (tests/oracles/test_gnubg_variations.py).
"""

import json
import os

import gnubg  # type: ignore[import-not-found]  # present only inside gnubg's embedded Python


def main() -> None:
    with open(os.environ["NARDY_GNUBG_REQUESTS"]) as handle:
        job = json.load(handle)
    for command in (
        "set player 0 human", "set player 1 human", "set display off", "set threads 1",
        f"set variation {job['variation']}",
        "set evaluation chequerplay evaluation plies 0", "new session",
    ):
        gnubg.command(command)
    answers = []
    for request in job["requests"]:
        gnubg.command(f"set board {request['id']}")
        gnubg.command("set dice {} {}".format(*request["dice"]))
        hint = gnubg.hint(100000)
        answers.append({"board": gnubg.board(), "moves": [entry["move"] for entry in hint.get("hint", [])]})
    with open(os.environ["NARDY_GNUBG_ANSWERS"], "w") as handle:
        json.dump(answers, handle)


main()
