"""Jellyfish / gnubg .mat match files: writing a transcript and reading it back through the rules.

The layout was learnt from gnubg's own import and export (import.c,
export.c); ``GNUBG_EXPORT`` below is the kind of text gnubg 1.07's ``export
match mat`` writes (bar as 25, each die a path of its own, a drop and the
win on one line), and tests/oracles/ has gnubg read our files.
"""

from __future__ import annotations

import doctest
import re
from types import ModuleType

import pytest

import nardy.notation.gnubg_variations as gnubg_variations
import nardy.notation.matfile as matfile_module
from nardy.notation import NotationError, format_steps
from nardy.notation.matfile import transcript_from_mat, transcript_to_mat
from nardy.notation.transcript import Action, GameTranscript, Transcript, replay, transcript_from_record
from nardy.rules import GameOptions, WinKind, find_variant
from tests.match_records import random_record
from tests.notation.format_checks import CASES, SCENARIOS, Script, course


@pytest.mark.parametrize(("variant", "length", "options"), CASES)
def test_random_matches_come_back_as_they_were_played(variant: str, length: int, options: GameOptions) -> None:
    for seed in range(3):
        record, _ = random_record(variant, seed, length=length, options=options)
        transcript = transcript_from_record(record)
        text = transcript_to_mat(transcript)
        assert text.startswith(f'; [Variant "{variant}"]')
        back = transcript_from_mat(text)
        assert (back.variant, back.length, back.options, back.players) == (variant, length, options, ("ann", "bob"))
        assert course(back) == course(transcript)


def test_a_tavli_match_comes_back_each_game_by_its_own_rules() -> None:
    """docs/rules.md §11 (Wikipedia, "Tavli": "played in succession: Portes, Plakoto and Fevga"): the file names
    the match, and reading it back plays each game by the rules of its place in the rotation."""
    rotation = ("portes", "plakoto", "fevga")
    for seed in range(2):
        record, _ = random_record("tavli", seed, length=7)
        transcript = transcript_from_record(record)
        text = transcript_to_mat(transcript)
        assert text.startswith('; [Variant "tavli"]')
        back = transcript_from_mat(text)
        assert (back.variant, back.length) == ("tavli", 7) and course(back) == course(transcript)
        played = {(step.game_number, step.before.variant.name) for step in replay(back)}
        games = max(number for number, _ in played)
        assert played == {(number, rotation[(number - 1) % 3]) for number in range(1, games + 1)}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_what_only_nardy_records_comes_back_from_comment_lines(scenario: str) -> None:
    transcript = SCENARIOS[scenario]()
    text = transcript_to_mat(transcript)
    assert "; nardy " in text
    assert course(transcript_from_mat(text)) == course(transcript)


def test_the_layout_gnubg_reads() -> None:
    script = Script.new("backgammon", 5, GameOptions(cube=True))
    script.do(Action("opening", dice=(1, 3))).play_text(1, "8/5 6/5")
    script.do(Action("roll", 0, dice=(6, 6))).play_text(0, "24/18(2) 13/7(2)")
    script.do(Action("double", 1), Action("take", 0), Action("roll", 1, dice=(5, 2))).play_text(1, "13/11 13/8")
    script.do(Action("double", 0), Action("drop", 1))
    assert transcript_to_mat(script.transcript).splitlines() == [
        '; [Variant "backgammon"]',
        "",
        " 5 point match",
        "",
        " Game 1",
        " ann : 0                        bob : 0",
        "  1)                             31: 8/5 6/5",
        "  2) 66: 24/18(2) 13/7(2)         Doubles => 2",
        "  3)  Takes                      52: 13/11 13/8",
        "  4)  Doubles => 4                Drops",
        "      Wins 2 points",
    ]


def test_the_end_of_the_match_and_an_unnamed_player() -> None:
    script = Script(Transcript("georgian", 1, GameOptions(), ("", "bob"), (GameTranscript(()),)))
    script.do(Action("opening", dice=(6, 5))).play(0)
    script.do(Action("roll", 1, dice=(1, 1)), Action("resign", 1))
    text = transcript_to_mat(script.transcript)
    assert " Player 1 : 0                   bob : 0" in text
    assert re.search(r"^      Wins \d points and the match$", text, re.MULTILINE)
    back = transcript_from_mat(text)
    assert back.players == ("Player 1", "bob") and course(back) == course(script.transcript)


def test_a_roll_that_cannot_be_played_is_its_dice_alone() -> None:
    for seed in range(20):
        transcript = transcript_from_record(random_record("backgammon", seed)[0])
        passes = [s.action for s in replay(transcript) if s.action.kind == "roll" and s.game.turn != s.action.player]
        if passes:
            break
    else:
        pytest.fail("no random match had a pass")
    text = transcript_to_mat(transcript)
    assert passes[0].dice is not None
    first, second = passes[0].dice
    assert re.search(rf"[ )]{first}{second}:(  |$)", text, re.MULTILINE)
    assert course(transcript_from_mat(text)) == course(transcript)


def test_long_nardy_names_its_variant_and_its_opening_roll() -> None:
    record, _ = random_record("long-bolshie", 2, length=1)
    text = transcript_to_mat(transcript_from_record(record))
    lines = text.splitlines()
    assert lines[0] == '; [Variant "long-bolshie"]'
    assert lines[lines.index(" Game 1") + 2].startswith("; nardy opening ")
    assert "bar" not in text and "*" not in text


def test_options_are_header_tags() -> None:
    options = GameOptions(cube=True, jacoby=True, beavers=True, automatic_doubles=1, backgammon_value=2)
    text = transcript_to_mat(Transcript("backgammon", 0, options, ("ann", "bob")))
    assert text.splitlines()[:5] == [
        '; [Variant "backgammon"]', '; [Jacoby "On"]', '; [Beaver "On"]', '; [AutomaticDoubles "1"]',
        '; [BackgammonValue "2"]',
    ]
    assert transcript_from_mat(text).options == options
    no_cube = transcript_to_mat(Transcript("backgammon", 1, GameOptions(), ("ann", "bob")))
    assert '; [Cube "Off"]' in no_cube and transcript_from_mat(no_cube).options == GameOptions()


@pytest.mark.parametrize(("variant", "variation"), [("nackgammon", "NackGammon"), ("hypergammon", "HyperGammon (3)")])
def test_gnubgs_variations_carry_the_tag_gnubg_reads(variant: str, variation: str) -> None:
    """Beside our [Variant], the [Variation] tag of gnubg's export.c, which its import.c reads; a file with
    gnubg's tag alone (as gnubg exports it) reads as the same variant."""
    record, _ = random_record(variant, 1, length=3, options=GameOptions(cube=True))
    transcript = transcript_from_record(record)
    lines = transcript_to_mat(transcript).splitlines()
    assert lines[:2] == [f'; [Variant "{variant}"]', f'; [Variation "{variation}"]']
    gnubg_style = transcript_from_mat("\n".join(lines[1:]))
    assert gnubg_style.variant == variant and course(gnubg_style) == course(transcript)


@pytest.mark.parametrize("variant", ["backgammon", "dave", "georgian", "portes", "tavla", "plakoto", "fevga"])
def test_other_variants_have_no_gnubg_variation_tag(variant: str) -> None:
    text = transcript_to_mat(Transcript(variant, 3, GameOptions(cube=find_variant(variant).cube_allowed), ("ann", "bob")))
    assert text.startswith(f'; [Variant "{variant}"]\n') and "[Variation" not in text


def test_plakoto_pins_are_written_as_hits_and_come_back() -> None:
    """A step that pins has ``hit`` set and is written with ``*``; the file replays to the same pins."""
    for seed in range(10):
        transcript = transcript_from_record(random_record("plakoto", seed, length=3, options=GameOptions())[0])
        pins = [s.game.position.pinned for s in replay(transcript) if s.action.kind == "move"
                and any(step.hit for step in s.action.steps or ())]
        if pins:
            break
    else:
        pytest.fail("no random plakoto match had a pin")
    text = transcript_to_mat(transcript)
    assert re.search(r"\d+/\d+\*", text)
    back = transcript_from_mat(text)
    assert course(back) == course(transcript)
    assert any(any(pinned) for pinned in pins)
    assert _move_texts(back) == _move_texts(transcript)


def _move_texts(transcript: Transcript) -> list[str]:
    return [format_steps(action.steps or ()) for game in transcript.games for action in game.actions
            if action.kind == "move"]


# ----- files from elsewhere

GNUBG_EXPORT = """\ufeff; [Site "somewhere"]
; [EventDate "2026.12.03"]
; [CubeLimit "1024"]

 3 point match

 Game 1
 ann : 0                        bob : 0
  1)                             42: 24/22 8/4
  2) 63: 24/18 13/10             31: 8/7* 13/10
  3) 43: 25/22 13/9               Doubles => 2
  4)  Drops                       Wins 1 point

 Game 2
 ann : 0                        bob : 1
  1) 52: 13/8 13/11              64: 24/18 18/14
  2) 21:                         Wins 2 points
"""


def test_reading_what_gnubg_exports() -> None:
    transcript = transcript_from_mat(GNUBG_EXPORT)
    assert (transcript.variant, transcript.length, transcript.players) == ("backgammon", 3, ("ann", "bob"))
    actions, final = course(transcript)
    assert [a[1:4] for a in actions[:3]] == [("opening", None, (2, 4)), ("move", 1, None), ("roll", 0, (6, 3))]
    assert final[:2] == ((0, 3), 1)
    resign = transcript.games[1].actions[-2]
    assert (resign.kind, resign.player, resign.kind_offered) == ("resign", 0, WinKind.GAMMON)


def test_gnubg_plain_point_numbers_for_the_bar_and_off() -> None:
    transcript = transcript_from_record(random_record("backgammon", 0)[0])
    text = transcript_to_mat(transcript)
    assert "bar/" in text and "/off" in text
    plain = text.replace("bar/", "25/").replace("/off", "/0")
    assert course(transcript_from_mat(plain)) == course(transcript)


# ----- malformed files


def _file(*game_lines: str, header: str = " 3 point match") -> str:
    return "\n".join([header, "", " Game 1", " ann : 0                        bob : 0", *game_lines]) + "\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no ' N point match' line"),
        ("hello\n 3 point match\n", "line 1: expected ' N point match'"),
        ('; [Variant "chess"]\n 3 point match\n', "line 1: unknown variant 'chess'"),
        ('; [Cube "maybe"]\n 3 point match\n', r'line 1: \[Cube\] is "On" or "Off"'),
        ('; [Variation "HyperGammon (2)"]\n 3 point match\n', "line 1: .* a variation of gnubg that nardy does not"),
        ('; [Variant "backgammon"]\n; [Variation "NackGammon"]\n 3 point match\n',
         "line 2: .* is gnubg's nackgammon, but line 1 names backgammon"),
        (" 4 point match\n\n Game 1\n a : 0  b : 0\n", r"the match cannot be played"),
        (" 3 point match\n\n stray text\n", "line 3: expected ' Game 1'"),
        (" 3 point match\n\n Game 2\n", "line 3: expected game 1, got game 2"),
        (" 3 point match\n\n Game 1\n ann bob\n", "line 4: expected the players and score"),
        (_file("  1) 31: 8/5 6/5 6/3"), r"line 5: .*moves more checkers from 6|line 5: .*not a legal play"),
        (_file("  1) 31: 8/2"), "line 5: '8/2' is not a legal play of 3-1"),
        (_file("  1) 31: 8/5 6/5                 52: 24/22 13/8", "  2)  Takes"), "line 6: the game is rolling"),
        (_file("  1) 31: 8/5 6/5", "  2) hello"), "line 6: cannot read 'hello'"),
        (_file("  1) 31: 8/5 6/5", "; nardy timeout 7"), "line 6: cannot read the nardy action 'timeout 7'"),
        (_file("  1) 31: 8/5 6/5", "; nardy tie"), "line 6: the file says the game is tied here, but the rules did not"),
        (_file("  1) 31: 8/5 6/5", "      Wins 9 points"), "line 6: no resignation by seat 1 is worth 9 points"),
        (_file("  1)                             31: 8/5 6/5", "  2) 11: 24/22 6/5 6/4"), r"line 6: .*is not a legal"),
    ],
)
def test_malformed_files_are_refused_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        transcript_from_mat(text)


def test_a_plakoto_tie_is_a_line_of_its_own_that_the_rules_must_agree_with() -> None:
    """docs/rules.md §9: both mothers pinned is a tie, and the game starts again from its opening roll. The file
    says so where it happened; a reader checks the rules tied the game there, and a file without the line (as
    written before it was) replays the same."""
    transcript = SCENARIOS["a plakoto tie"]()
    text = transcript_to_mat(transcript)
    assert "  14: 6/1*\n; nardy tie\n; nardy opening 3 5\n" in text
    assert course(transcript_from_mat(text.replace("; nardy tie\n", ""))) == course(transcript)
    early = text.replace("; nardy tie\n", "").replace("  9) ", "; nardy tie\n  9) ")
    with pytest.raises(NotationError, match="the file says the game is tied here, but the rules did not tie it"):
        transcript_from_mat(early)


def test_a_game_that_begins_before_the_last_one_ended() -> None:
    text = _file("  1) 31: 8/5 6/5", "", " Game 2", " ann : 0                        bob : 0")
    with pytest.raises(NotationError, match="line 7: game 2 begins before game 1 ended"):
        transcript_from_mat(text)


def test_a_score_line_that_does_not_follow_from_the_games_before() -> None:
    record, _ = random_record("backgammon", 1, length=5, options=GameOptions(cube=True))
    lines = transcript_to_mat(transcript_from_record(record)).splitlines()
    lines[lines.index(" Game 2") + 1] = " ann : 0                        bob : 0"
    with pytest.raises(NotationError, match="the game begins at 0-0, but the games before it leave the score at"):
        transcript_from_mat("\n".join(lines))


def test_names_a_score_line_cannot_hold_are_refused() -> None:
    with pytest.raises(NotationError, match="cannot hold the player name 'a:b'"):
        transcript_to_mat(Transcript("backgammon", 1, GameOptions(), ("a:b", "bob")))


def test_a_transcript_that_does_not_replay_is_refused() -> None:
    broken = Transcript("backgammon", 1, GameOptions(), ("ann", "bob"), (GameTranscript((Action("take", 0),)),))
    with pytest.raises(NotationError, match=r"game 1, action 1 \(take\)"):
        transcript_to_mat(broken)


@pytest.mark.parametrize("module", [matfile_module, gnubg_variations], ids=lambda module: module.__name__)
def test_the_docstring_examples(module: ModuleType) -> None:
    failures, tried = doctest.testmod(module)
    assert tried and not failures
