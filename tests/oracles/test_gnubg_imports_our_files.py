"""GNU Backgammon reads what we write: our .mat and SGF matches, and our XGIDs.

gnubg (GPL) runs as an outside program, never imported: Debian's ``gnubg``
package (``apt-get install --no-install-recommends gnubg``, 1.07), driven in
text mode, ``gnubg -t -q -r`` with commands on stdin, its home directory a
temporary one so it keeps no settings. The tests are skipped when it is not
installed.

For random 5-point matches with the cube, of backgammon and of gnubg's
two variations nardy plays, nackgammon and hypergammon (named in our files
as gnubg names them: ``; [Variation "NackGammon"]``, ``RU[...:Nackgammon]``):
gnubg imports the file without a complaint (the one line it may print is its
note on our first ``; nardy`` comment line, which it passes over), counts the
same games and the same final score, and what gnubg then writes back
(``export match mat``, ``save match``) reads back into a match of the same
variant with the same results; gnubg is told nothing of the variant but
what the file says. For random
positions, gnubg's ``set xgid`` sets the board whose Position ID we compute.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nardy.notation import position_id
from nardy.notation.matfile import transcript_from_mat, transcript_to_mat
from nardy.notation.sgf import transcript_from_sgf, transcript_to_sgf
from nardy.notation.transcript import Transcript, replay, transcript_from_record
from nardy.notation.xgid import XgidFields, to_xgid
from nardy.rules import GameOptions, Match
from tests.match_records import random_record
from tests.notation.notation_games import SHORT_VARIANTS, walk

GNUBG = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed (apt-get install gnubg)"),
]

MATCHES = [
    ("backgammon", 3), ("backgammon", 4), ("backgammon", 9),
    ("nackgammon", 9), ("nackgammon", 16), ("hypergammon", 5), ("hypergammon", 9),
]
"""Matches that end on the score; backgammon's seed 4, nackgammon's 9 and hypergammon's 5 have timeouts,
written on ``; nardy`` lines."""

SCORE = re.compile(r"The score \(after (\d+) games?\) is: ann (\d+), bob (\d+)")
PROBLEM = re.compile(r"warning|invalid|illegal|not a valid|doesn't follow|unrecognised|error", re.IGNORECASE)
OUR_COMMENT_NOTE = 'Unrecognised move "; nardy '


def gnubg(commands: list[str], home: Path) -> str:
    """What gnubg prints for ``commands``, run in text mode with ``home`` as its home directory."""
    assert GNUBG is not None
    done = subprocess.run(
        [GNUBG, "-t", "-q", "-r"], input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=120,
        env={**os.environ, "HOME": str(home)}, cwd=home, check=False,
    )
    return done.stdout + done.stderr


def played(variant: str, seed: int) -> tuple[Transcript, Match]:
    record, match = random_record(variant, seed, length=5, options=GameOptions(cube=True))
    assert match.ended_by == "score"
    return transcript_from_record(record), match


def check_gnubg_agrees(output: str, match: Match) -> None:
    problems = [line for line in output.splitlines() if PROBLEM.search(line) and OUR_COMMENT_NOTE not in line]
    assert not problems, problems
    score = SCORE.search(output)
    assert score is not None, output[-2000:]
    assert (int(score[1]), (int(score[2]), int(score[3]))) == (len(match.results), match.score)


def results(transcript: Transcript) -> list[tuple[int, int]]:
    return [(r.winner, r.points) for step in replay(transcript) if (r := step.game.result) is not None]


@pytest.mark.parametrize(("variant", "seed"), MATCHES)
def test_gnubg_imports_our_mat(variant: str, seed: int, tmp_path: Path) -> None:
    transcript, match = played(variant, seed)
    ours, theirs = tmp_path / "ours.mat", tmp_path / "theirs.mat"
    ours.write_text(transcript_to_mat(transcript), encoding="utf-8")
    output = gnubg([f"import mat {ours}", "show score", f"export match mat {theirs}"], tmp_path)
    check_gnubg_agrees(output, match)
    back = transcript_from_mat(theirs.read_text(encoding="utf-8"))
    assert back.variant == variant and results(back) == results(transcript)


@pytest.mark.parametrize(("variant", "seed"), MATCHES)
def test_gnubg_loads_our_sgf(variant: str, seed: int, tmp_path: Path) -> None:
    transcript, match = played(variant, seed)
    ours, theirs = tmp_path / "ours.sgf", tmp_path / "theirs.sgf"
    ours.write_text(transcript_to_sgf(transcript), encoding="utf-8")
    output = gnubg([f"load match {ours}", "show score", f"save match {theirs}"], tmp_path)
    check_gnubg_agrees(output, match)
    back = transcript_from_sgf(theirs.read_text(encoding="utf-8"))
    assert back.variant == variant and results(back) == results(transcript)


@pytest.mark.parametrize("seed", range(8))
def test_gnubg_reads_our_xgids(seed: int, tmp_path: Path) -> None:
    position, rng = walk(SHORT_VARIANTS[seed % len(SHORT_VARIANTS)], seed, 10 + 9 * seed)
    fields = XgidFields(
        player_on_roll=rng.randint(0, 1), dice=(rng.randint(1, 6), rng.randint(1, 6)),
        cube_value=2, cube_owner="player0", score=(seed % 3, 2), match_length=5,
    )
    output = gnubg([f"set xgid {to_xgid(position, fields)}", "show board"], tmp_path)
    assert "Not a valid XGID" not in output
    assert re.findall(r"Position ID: (\S+)", output)[-1] == position_id(position)
