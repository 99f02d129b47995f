"""The scripted game's guest (:class:`tests.web.scripted_game.ScriptingDriver`) reaches its last turn whatever
the random computer plays: the driver's own choices, played against the rules offline, with no server."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from nardy.notation import position_to_dict
from nardy.rules import Position
from tests.web.scripted_game import COMPUTER_ROLL, ScriptingDriver, fewest_pips, going_on
from tests.web.web_driver import Json

OPENING = (6, 1)
MY_TURNS = 200
"""My turns a game may take before it counts as endless (a scripted game takes a dozen or two)."""


class OfflineGuest(ScriptingDriver):
    """The driver's choices on a position this test holds, in the table state a server would send: seat 0 is
    mine."""

    def __init__(self, variant: str) -> None:  # no server and no socket: only the choices are under test
        self.pins = False
        self.choose = fewest_pips
        self.seen = Counter()
        self.user: Json = {"id": 1}
        self.state: Json = {}
        self.hold(Position.start(variant))

    def hold(self, position: Position) -> None:
        """``position`` (mine to move) at the start of my turn, the dice not yet rolled."""
        self.state = {"status": "playing", "actor": 0, "seats": [{"user_id": 1}],
                      "game": {"phase": "rolling", "boards": [position_to_dict(position)]}}

    def play_my_turn(self, computer: random.Random) -> Position | None:
        """Roll as the driver would, play its choice, and let the random computer reply with its 1-2; the position
        at my next turn (None: the computer's reply ended the game)."""
        position = self.position()
        roll = self.take_roll()
        plays = going_on(position, roll)
        after = (self.choose(plays).position if plays else position).turned()
        replies = after.legal_plays(COMPUTER_ROLL)
        if replies:
            after = computer.choice(replies).position
        if after.is_game_over():
            return None
        return after.turned()


def play_to_the_last_turn(variant: str, seed: int) -> int:
    """From the opening (mine, 6-1), my turns against a random computer seeded ``seed`` until my next turn is the
    page's last; how many it took."""
    guest = OfflineGuest(variant)
    computer = random.Random(seed)
    opening = guest.choose(going_on(guest.position(), OPENING) or []).position.turned()
    guest.hold(computer.choice(opening.legal_plays(COMPUTER_ROLL)).position.turned())
    for turn in range(MY_TURNS):
        if guest.last_turn_next():
            return turn
        position = guest.play_my_turn(computer)
        assert position is not None, "the computer won"
        guest.hold(position)
    raise AssertionError(f"no last turn after {MY_TURNS} of mine")


@pytest.mark.parametrize(("variant", "seed"), [("georgian", 137), ("backgammon", 137), ("backgammon", 2404)])
def test_a_forced_hit_that_the_computer_answers_in_kind_does_not_repeat_forever(variant: str, seed: int) -> None:
    """These games reach a position where my best roll, 6-6, must enter and hit a blot on my 1-point, and the
    computer's 1-2 must enter and hit back, leaving the same position: the driver tries another roll there."""
    assert play_to_the_last_turn(variant, seed) < 40


@pytest.mark.parametrize("variant", ["backgammon", "dave", "georgian", "tavla", "portes", "fevga"])
def test_the_guest_reaches_its_last_turn_against_any_random_computer(variant: str) -> None:
    for seed in range(40):
        play_to_the_last_turn(variant, seed)
