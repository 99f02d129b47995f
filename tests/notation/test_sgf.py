"""SGF backgammon files (GM[6]) as gnubg saves and loads them: writing a transcript and reading it back.

The encoding was learnt from gnubg's sgf.c; ``GNUBG_SAVE`` below has the
shape of what gnubg 1.07's ``save match`` writes (its statistics ``GS``, an
``AP`` of its own), and tests/oracles/ has gnubg load our files.
"""

from __future__ import annotations

import pytest

from nardy.notation import NotationError
from nardy.notation.sgf import holds, transcript_from_sgf, transcript_to_sgf
from nardy.notation.transcript import Action, Transcript, transcript_from_record
from nardy.rules import GameOptions, WinKind, find_variant
from tests.match_records import random_record
from tests.notation.format_checks import CASES, SCENARIOS, Script, course

SHORT_CASES = [case for case in CASES if holds(find_variant(case[0]))]
LONG_CASES = [case for case in CASES if not holds(find_variant(case[0]))]


@pytest.mark.parametrize(("variant", "length", "options"), SHORT_CASES)
def test_random_matches_come_back_as_they_were_played(variant: str, length: int, options: GameOptions) -> None:
    for seed in range(3):
        record, _ = random_record(variant, seed, length=length, options=options)
        transcript = transcript_from_record(record)
        text = transcript_to_sgf(transcript)
        assert text.count("(;FF[4]GM[6]") == len(transcript.games)
        back = transcript_from_sgf(text)
        assert (back.variant, back.length, back.options, back.players) == (variant, length, options, ("ann", "bob"))
        assert course(back) == course(transcript)


@pytest.mark.parametrize("scenario", sorted(name for name in SCENARIOS if name != "three timeouts"))
def test_what_only_nardy_records_comes_back_from_na_nodes(scenario: str) -> None:
    transcript = SCENARIOS[scenario]()
    text = transcript_to_sgf(transcript)
    assert ";NA[" in text
    assert course(transcript_from_sgf(text)) == course(transcript)
    if scenario == "a plakoto tie":  # both mothers pinned (docs/rules.md §9): the tie is a node of its own
        assert ";B[14sttx]\n;NA[tie]\n;NA[opening 3 5]\n" in text


@pytest.mark.parametrize(("variant", "rule"), [("nackgammon", "Nackgammon"), ("hypergammon", "Hypergammon3")])
def test_gnubgs_variations_are_rules_as_gnubg_writes_them(variant: str, rule: str) -> None:
    """Beside our VA, the RU word of gnubg's sgf.c; a file with gnubg's word alone reads as the same variant."""
    record, _ = random_record(variant, 2, length=3, options=GameOptions(cube=True))
    transcript = transcript_from_record(record)
    text = transcript_to_sgf(transcript)
    assert text.count(f"VA[{variant}]RU[Crawford:") == text.count(f":{rule}]") == len(transcript.games)
    gnubg_style = transcript_from_sgf(text.replace(f"VA[{variant}]", ""))
    assert gnubg_style.variant == variant and course(gnubg_style) == course(transcript)


def test_plakoto_pins_come_back_from_the_steps() -> None:
    """SGF writes each step without a mark; a checker landing on a lone opposing one pins it on reading."""
    for seed in range(10):
        transcript = transcript_from_record(random_record("plakoto", seed, length=3, options=GameOptions())[0])
        if any(step.hit for game in transcript.games for a in game.actions for step in a.steps or ()):
            break
    else:
        pytest.fail("no random plakoto match had a pin")
    assert course(transcript_from_sgf(transcript_to_sgf(transcript))) == course(transcript)


@pytest.mark.parametrize(("variant", "length", "options"), LONG_CASES + [("tavli", 5, GameOptions())])
def test_the_long_board_is_refused_written_and_read(variant: str, length: int, options: GameOptions) -> None:
    """docs/formats.md: "The long board (long nardy, fevga) has no SGF", nor has tavli, whose third game is fevga
    (docs/rules.md §11); a file naming one is refused as its writing is: its letters name the short board's
    points."""
    with pytest.raises(NotationError, match=f"SGF holds backgammon-board games only; {variant} is played"):
        transcript_to_sgf(Transcript(variant, length, options))
    root = f"(;FF[4]GM[6]CA[UTF-8]AP[nardy]MI[length:{length}][game:0][ws:0][bs:0]VA[{variant}]PW[ann]PB[bob]\n;W[61])"
    with pytest.raises(NotationError, match=f"line 1: SGF holds backgammon-board games only; {variant} is played"):
        transcript_from_sgf(root)


def test_points_as_letters() -> None:
    script = Script.new("backgammon", 3, GameOptions(cube=True))
    script.do(Action("opening", dice=(3, 1))).play_text(0, "8/5 6/5")
    script.do(Action("roll", 1, dice=(6, 4))).play_text(1, "24/18 13/9")
    script.do(Action("roll", 0, dice=(6, 2))).play_text(0, "13/7* 13/11")
    script.do(Action("roll", 1, dice=(3, 1))).play_text(1, "bar/22 24/23")
    script.do(Action("double", 0), Action("take", 1))
    lines = transcript_to_sgf(script.transcript).splitlines()
    assert lines[0] == "(;FF[4]GM[6]CA[UTF-8]AP[nardy]MI[length:3][game:0][ws:0][bs:0]PW[ann]PB[bob]RU[Crawford]"
    # bob's 13/9 is l-p and 24/18 a-g; ann hits 13/7* on g, bob's 18; bob enters bar/22 as y-c.
    assert lines[1:] == [";W[31fehe]", ";B[64lpag]", ";W[62mkmg]", ";B[31ycab]", ";W[double]", ";B[take])"]


# ----- files from elsewhere

GNUBG_SAVE = r"""(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:3][game:0][ws:0][bs:0]PW[ann]PB[b\]ob]
RU[Crawford]RE[B+1]GS[M:0 0 2 2 0 0 0 0 0 0 2 2 0.000000 0.000000 0.000000 0.000000]
;B[42acqu]C[a comment]
;W[63xrmj]
;B[31qrlo]
;W[43yvmi]
;B[double]
;W[drop])
(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:3][game:1][ws:0][bs:1]PW[ann]PB[b\]ob]
RU[Crawford]RE[B+2R]
;W[52mhmk]
;B[64aggk]
;PL[W]DI[21])
"""


def test_reading_what_gnubg_saves() -> None:
    transcript = transcript_from_sgf(GNUBG_SAVE)
    assert (transcript.variant, transcript.length, transcript.players) == ("backgammon", 3, ("ann", "b]ob"))
    actions, final = course(transcript)
    assert [a[1:4] for a in actions[:3]] == [("opening", None, (2, 4)), ("move", 1, None), ("roll", 0, (6, 3))]
    assert final[:2] == ((0, 3), 1)
    resign = transcript.games[1].actions[-2]
    assert (resign.kind, resign.player, resign.kind_offered) == ("resign", 0, WinKind.GAMMON)


# ----- malformed files

ROOT = "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[ann]PB[bob]"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no game tree"),
        ("hello", "line 1: expected '\\('"),
        ("(;GM[6]\n;W[31", "line 2: a property value '\\[' is never closed"),
        ("(;GM[6]", "line 1: expected '\\)'"),
        ("(;GM[1])", "GM\\[1\\] is not backgammon"),
        ("(;GM[6]VA[chess])", "unknown variant 'chess'"),
        ("(;GM[6]RU[AutoDoubles=x])", "needs a whole number"),
        ("(;GM[6]RU[Crawford:Hypergammon2])", "line 1: RU\\[Hypergammon2\\] is a variation of gnubg that nardy does"),
        ("(;GM[6]VA[backgammon]RU[Nackgammon])", "line 1: VA and RU name different variants: backgammon, nackgammon"),
        (ROOT + "\n;W[31fehe]\n;B[99])", "line 3: cannot read the move '99'"),
        (ROOT + "\n;W[31fehe]\n;B[52a{])", "line 3: cannot read the move"),
        (ROOT + "\n;W[31heha])", "line 2: '8/5 8/1' lands on 1, which the opponent holds"),
        (ROOT + "\n;W[31fehe]B[52aclq])", "line 2: a node holds one move"),
        (ROOT + "\n;DI[52])", "line 2: DI needs PL"),
        (ROOT + "\n;W[31fehe]\n;NA[dance 1])", "line 3: cannot read the nardy action 'dance 1'"),
        (ROOT + "RE[W+1]\n;W[31fehe])", "the file says seat 0 won, but the game is not over"),
        (ROOT + "RE[W+9R]\n;W[31fehe])", "no resignation by seat 1 is worth 9 points"),
        (ROOT + "RE[X+1]\n;W[31fehe])", "RE\\[X\\+1\\] is not a result"),
        (ROOT + ")(;GM[6]VA[dave]MI[length:3])", "the same variant and match length"),
        (ROOT + "\n;W[31fehe])(;GM[6]MI[length:3][ws:1][bs:0])", "game 2 begins before game 1 ended"),
    ],
)
def test_malformed_files_are_refused_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        transcript_from_sgf(text)


def test_variations_are_passed_over_for_the_main_line() -> None:
    text = ROOT + "\n;W[31fehe]\n(;B[52aclq])\n(;B[64agmq]))"
    [game] = transcript_from_sgf(text).games
    assert [a.dice for a in game.actions if a.kind == "roll"] == [(5, 2)]
