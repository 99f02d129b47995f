"""Helpers for the match-file tests (.mat, SGF): the course of a replayed match, and hand-written matches.

Imported as ``from tests.notation.format_checks import ...``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from nardy.notation import parse_play
from nardy.notation.transcript import Action, GameTranscript, Transcript, replay
from nardy.rules import GameOptions, Match, WinKind

CASES = [
    ("backgammon", 3, GameOptions(cube=True)),
    ("backgammon", 0, GameOptions(cube=True, jacoby=True, beavers=True)),
    ("backgammon", 0, GameOptions(cube=True, automatic_doubles=1, backgammon_value=2)),
    ("dave", 3, GameOptions(cube=True)),
    ("georgian", 3, GameOptions()),
    ("long-traditional", 1, GameOptions()),
    ("long-tournament", 1, GameOptions()),
    ("long-bolshie", 1, GameOptions()),
    ("hypergammon", 3, GameOptions(cube=True)),
    ("nackgammon", 0, GameOptions(cube=True, jacoby=True)),
    ("portes", 3, GameOptions()),
    ("tavla", 3, GameOptions()),
    ("plakoto", 3, GameOptions()),
    ("fevga", 3, GameOptions()),
]
"""(variant, match length, options) of the random matches every format is tried on (where it holds the variant)."""


def course(transcript: Transcript) -> tuple[list[tuple[Any, ...]], tuple[Any, ...]]:
    """What a replay shows: per action its kind, player, dice, offered kind, forced flag and the game after
    it (position, result); and the final match (score, winner, timeouts, how it ended, results)."""
    steps = list(replay(transcript))
    actions = [
        (s.game_number, s.action.kind, s.action.player, s.action.dice, s.action.kind_offered, s.action.forced,
         s.game.position, s.game.result)
        for s in steps
    ]
    final = steps[-1].match
    return actions, (final.score, final.winner, final.timeouts, final.ended_by, final.results)


@dataclass
class Script:
    """A match written action by action, each checked by replaying through the rules."""

    transcript: Transcript

    @classmethod
    def new(cls, variant: str, length: int, options: GameOptions) -> Script:
        return cls(Transcript(variant, length, options, ("ann", "bob"), (GameTranscript(()),)))

    @property
    def match(self) -> Match:
        steps = list(replay(self.transcript))
        return steps[-1].match

    def do(self, *actions: Action) -> Script:
        games = self.transcript.games
        last = GameTranscript((*games[-1].actions, *actions))
        self.transcript = replace(self.transcript, games=(*games[:-1], last))
        list(replay(self.transcript))  # an illegal action fails here
        return self

    def play(self, player: int, *, forced: bool = False) -> Script:
        """``player`` plays the first legal play of the dice rolled (``forced``: the server did, after a timeout)."""
        plays = self.match.game.legal_plays()
        return self.do(Action("move", player, steps=plays[0].steps, forced=forced))

    def play_text(self, player: int, text: str) -> Script:
        """``player`` plays the move ``text`` describes (read by :func:`parse_play`)."""
        game = self.match.game
        assert game.dice is not None
        return self.do(Action("move", player, steps=parse_play(text, game.position, game.dice).steps))

    def roll_and_play(self, player: int, dice: tuple[int, int], *, forced: bool = False) -> Script:
        self.do(Action("roll", player, dice=dice, forced=forced))
        return self.play(player, forced=forced) if self.match.game.legal_plays() else self

    def next_game(self) -> Script:
        self.transcript = replace(self.transcript, games=(*self.transcript.games, GameTranscript(())))
        return self


def opening_ties_and_an_ambiguous_resignation() -> Transcript:
    """Money play with an automatic double and Jacoby: the first of two tied opening rolls doubles the
    cube; a gammon resignation, worth the same 2 points as a single while the cube is centred, is accepted."""
    script = Script.new("backgammon", 0, GameOptions(cube=True, jacoby=True, automatic_doubles=1))
    script.do(Action("opening", dice=(4, 4)), Action("opening", dice=(2, 2)), Action("opening", dice=(3, 5)))
    script.play(1).roll_and_play(0, (6, 2))
    return script.do(Action("resign", 1, kind_offered=WinKind.GAMMON), Action("accept_resignation", 0)).transcript


def timeouts_beavers_and_declines() -> Transcript:
    """A timeout between a roll and its move (the move is the server's), a beaver, a declined
    resignation, a resignation after rolling, a drop, and at last a forfeit mid-game."""
    script = Script.new("backgammon", 0, GameOptions(cube=True, beavers=True))
    script.do(Action("opening", dice=(6, 1))).play(0)
    script.do(Action("roll", 1, dice=(6, 5)), Action("timeout", 1)).play(1, forced=True)
    script.do(Action("double", 0), Action("beaver", 1)).roll_and_play(0, (4, 2))
    script.do(Action("resign", 1, kind_offered=WinKind.SINGLE), Action("decline_resignation", 0))
    script.roll_and_play(1, (3, 3))
    script.do(Action("roll", 0, dice=(5, 1)), Action("resign", 0, kind_offered=WinKind.SINGLE))
    script.do(Action("accept_resignation", 1)).next_game()
    script.do(Action("opening", dice=(2, 5))).play(1).roll_and_play(0, (1, 1))
    script.do(Action("double", 1), Action("drop", 0)).next_game()
    script.do(Action("opening", dice=(4, 1))).play(0)
    return script.do(Action("timeout", 1), Action("forfeit", 1)).transcript


def three_timeouts() -> Transcript:
    """Long nardy: a match lost on seat 1's third timeout (004), one of them between a roll and its move."""
    script = Script.new("long-traditional", 3, GameOptions())
    script.do(Action("opening", dice=(5, 2)), Action("timeout", 0)).roll_and_play(0, (6, 3), forced=True)
    script.do(Action("roll", 1, dice=(2, 1)), Action("timeout", 1)).play(1, forced=True)
    script.roll_and_play(0, (4, 4)).do(Action("timeout", 1)).roll_and_play(1, (5, 5), forced=True)
    return script.do(Action("timeout", 1)).transcript


TIED_PLAKOTO: tuple[tuple[int, tuple[int, int], str], ...] = (
    (0, (6, 4), "24/20 24/18"), (1, (4, 6), "24/20 24/18"), (0, (4, 3), "24/20 18/15"), (1, (2, 6), "24/22 18/12"),
    (0, (3, 4), "24/17"), (1, (5, 2), "24/22 24/19"), (0, (6, 5), "24/19 24/18"), (1, (1, 4), "24/23 24/20"),
    (0, (5, 3), "24/19 18/15"), (1, (4, 6), "24/14"), (0, (5, 6), "24/19 24/18"), (1, (6, 5), "24/19 22/16"),
    (0, (5, 5), "24/19(3) 20/15"), (1, (4, 5), "24/19 16/12"), (0, (1, 5), "24/23 24/19"), (1, (4, 5), "24/19 20/16"),
    (0, (2, 2), "18/10"), (1, (6, 1), "24/23 20/14"), (0, (1, 1), "23/22 19/18 17/16 10/9*"),
    (1, (1, 2), "24/23 24/22"), (0, (2, 6), "9/1*"), (1, (3, 3), "23/20 23/17 16/13"), (0, (2, 5), "22/20 19/14"),
    (1, (4, 1), "22/21 19/15"), (0, (6, 5), "19/14 16/10*"), (1, (1, 5), "19/14 17/16"), (0, (2, 3), "20/17 19/17"),
    (1, (3, 3), "23/20 22/19 16/13 12/9"), (0, (6, 2), "19/17 19/13*"), (1, (3, 3), "20/17 19/13 9/6*"),
    (0, (2, 4), "20/16 15/13"), (1, (2, 2), "21/17 19/17(2)"), (0, (5, 6), "16/10* 10/5*"), (1, (1, 4), "6/1*"),
)
"""A plakoto game from the opening roll 2-1 to a tie: seat 0 pins seat 1's mother (9/1*) while seat 1 still has
checkers at home, seat 1 pins seat 0's back (6/1*) with its own mother pinned: both mothers pinned (docs/rules.md
§9). Found by a seeded random search that prefers pinning plays; each move is checked by the rules as it is
replayed."""


def a_plakoto_tie() -> Transcript:
    """A plakoto game tied (both mothers pinned), played again from its opening roll, and won by resignation."""
    script = Script.new("plakoto", 3, GameOptions())
    script.do(Action("opening", dice=(2, 1)))
    for player, dice, move in TIED_PLAKOTO:
        script.do(Action("roll", player, dice=dice)).play_text(player, move)
    assert script.match.game.tied
    script.do(Action("opening", dice=(3, 5))).roll_and_play(1, (6, 5))
    return script.do(Action("resign", 0)).transcript


SCENARIOS = {
    "a plakoto tie": a_plakoto_tie,
    "ties and an ambiguous resignation": opening_ties_and_an_ambiguous_resignation,
    "timeouts, beavers and declines": timeouts_beavers_and_declines,
    "three timeouts": three_timeouts,
}
