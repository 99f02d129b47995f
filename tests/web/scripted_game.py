"""A game against the computer whose rolls the test scripts one at a time, so it is short and leaves none over.

:class:`ScriptingDriver` plays the guest's seat over the WebSocket (as
:class:`tests.web.web_driver.Driver` does) and queues each roll just before it
is needed: with its own roll, the big roll it chooses, the computer's 1-2
reply. It never ends a game itself: when the next turn can be the last one
(a 6-6 bears off the one or two checkers left), it stops, and
:func:`play_the_last_turn` clicks that turn in the page, queuing its 6-6. So a
whole game from the start position takes a dozen turns over the socket and
one turn of clicks, and the server's dice queue is empty at its end: one
server can serve the next game, and a match's next game (tavli) starts with
the rolls it needs.

Against a person instead of the computer (``reply=None``), the other seat is
played by a :class:`TrailingDriver`, which queues its own 1-2 as it rolls and
never hits; :func:`play_to_the_leaders_last_turn` takes turns between the two.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from nardy.notation import position_from_dict
from nardy.rules import Play, Position
from tests.web.browser_client import Client
from tests.web.web_driver import Driver, Json, WebServer

Roll = tuple[int, int]
GUEST_ROLLS: tuple[Roll, ...] = ((6, 6), (5, 5), (4, 4), (3, 3), (6, 5), (2, 1))
"""The rolls the guest chooses from, each turn the one its play takes furthest (a small one near the end)."""
COMPUTER_ROLL: Roll = (1, 2)
"""Every roll of the computer: too small to race the guest."""
LAST_ROLL: Roll = (6, 6)
"""The page's last turn: a 6 bears off a checker from any point of home, so every click on a checker takes it off."""

Choose = Callable[[list[Play]], Play]


def pips_left(play: Play) -> int:
    return play.position.pip_counts()[0]


def fewest_pips(plays: list[Play]) -> Play:
    """The play leaving the mover the fewest pips."""
    return min(plays, key=pips_left)


def pins_first(plays: list[Play]) -> Play:
    """A play that pins (plakoto) or hits where there is one, the fewest pips among those; else the fewest pips."""
    return fewest_pips([play for play in plays if hits(play)] or plays)


def hits(play: Play) -> bool:
    return any(step.hit for step in play.steps)


def ends_the_game(position: Position, play: Play) -> bool:
    """Whether ``play`` from ``position`` wins the game: the last checker borne off, or plakoto's mother rule."""
    return play.position.winner_is_mover() or position.variant.early_end(play.position) is not None


def going_on(position: Position, dice: Roll) -> list[Play] | None:
    """The legal plays of ``dice`` that leave the game going (None: the roll cannot be played, a pass)."""
    plays = position.legal_plays(dice)
    return [play for play in plays if not ends_the_game(position, play)] if plays else None


def steps_of(play: Play) -> list[Json]:
    return [{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in play.steps]


class ScriptingDriver(Driver):
    """The guest's seat against the computer (or a person) over the WebSocket, queuing each roll as it plays
    (module doc)."""

    def __init__(self, server: WebServer, person: Client, *, pins: bool = False,
                 reply: Roll | None = COMPUTER_ROLL) -> None:
        """``pins``: the guest pins (plakoto) or hits wherever a roll lets it, before it races. ``reply``: the
        computer's roll queued after each of mine; None where a person sits opposite, who queues their own."""
        super().__init__(server, person.cookie_header(), person.table_id())
        self.server = server
        self.pins = pins
        self.reply = reply
        self.choose: Choose = pins_first if pins else fewest_pips
        self.seen: Counter[Position] = Counter()
        """How often each position began one of my rolling turns (:meth:`next_roll`)."""

    def position(self) -> Position:
        return position_from_dict(self.board())

    def next_roll(self, position: Position | None = None) -> Roll | None:
        """Of :data:`GUEST_ROLLS`, the one whose play (of those leaving the game going) takes me furthest, or pins
        first where I pin; else one that cannot be played (a pass; the computer rolls next); else None: every play
        of every roll ends the game.

        Where this turn's position came before, the next best roll instead, one further each time: the best play
        can be forced into a cycle (a 6-6 from the bar that must hit a blot where the computer's 1-2 hits back),
        and the same roll would then repeat the same turns until the driver gives up. ``position``: the board
        now, where the caller has it already."""
        if position is None:
            position = self.position()
        ranked: list[tuple[tuple[bool, int], Roll]] = []
        passes = []
        for roll in GUEST_ROLLS:
            plays = going_on(position, roll)
            if plays is None:
                passes.append(roll)
            elif plays:
                play = self.choose(plays)
                ranked.append(((self.pins and not hits(play), pips_left(play)), roll))
        if ranked:
            ranked.sort(key=lambda rank_and_roll: rank_and_roll[0])
            return ranked[self.seen[position] % len(ranked)][1]
        return passes[0] if passes else None

    def take_roll(self) -> Roll:
        """The roll to queue for this turn (:meth:`next_roll`), counted as taken at this position."""
        position = self.position()
        roll = self.next_roll(position)
        assert roll is not None, "every play of every roll ends the game"
        self.seen[position] += 1
        return roll

    def last_turn_next(self) -> bool:
        """At the start of my turn: all my checkers are home, free, and at most four, so the page's
        :data:`LAST_ROLL` takes each it clicks off and ends the game; and at most two are left (two checkers to
        click), or no other roll leaves the game going."""
        game = self.state["game"]
        if not (self.my_turn() and game["phase"] == "rolling"):
            return False
        board = self.board()
        home = sum(count for count in board["points"][:6] if count > 0)
        if home != self.checkers_on_board() or home > 4:
            return False
        return home <= 2 or self.next_roll() is None

    def play_turn(self) -> None:
        """Roll (queuing my roll and the computer's reply, if any: my play, or my pass, leaves the game going), or
        move the opening's dice (queuing the reply)."""
        game = self.state["game"]
        replies = () if self.reply is None else (self.reply,)
        if game["phase"] == "rolling":
            self.server.dice(self.take_roll(), *replies)
            self.act("roll")
        elif game["phase"] == "moving":
            plays = going_on(self.position(), tuple(game["dice"]))
            assert plays, "no play of these dice leaves the game going"
            if replies and self.server.dice() == 0:  # the opening's dice, which the guest plays: no reply queued yet
                self.server.dice(*replies)
            self.act("move", steps=steps_of(self.choose(plays)))
        else:
            super().play_turn()

    def play_to_the_last_turn(self) -> None:
        """Play my turns until the next one is the page's last (:meth:`last_turn_next`)."""
        self.play_until(lambda driver: self.last_turn_next())
        assert self.state["status"] == "playing", "the game ended before the page's last turn"


class TrailingDriver(Driver):
    """A person's seat opposite a :class:`ScriptingDriver` (``reply=None``) over the WebSocket: it queues
    :data:`COMPUTER_ROLL` as it rolls and plays it without hitting (or pinning) where it can, so it falls behind
    and never ends the game."""

    def __init__(self, server: WebServer, person: Client) -> None:
        super().__init__(server, person.cookie_header(), person.table_id())
        self.server = server

    def play_turn(self) -> None:
        game = self.state["game"]
        if game["phase"] == "rolling":
            self.server.dice(COMPUTER_ROLL)
            self.act("roll")
        elif game["phase"] == "moving":
            plays = going_on(position_from_dict(self.board()), tuple(game["dice"]))
            assert plays, "no play of these dice leaves the game going"
            self.act("move", steps=steps_of(fewest_pips([play for play in plays if not hits(play)] or plays)))
        else:
            super().play_turn()


def play_to_the_leaders_last_turn(leader: ScriptingDriver, trailer: TrailingDriver) -> None:
    """Take turns between two people's seats, each driver caught up with the other before the next turn, until
    the leader's next turn is the page's last (:meth:`ScriptingDriver.last_turn_next`)."""
    for _ in range(400):
        version = max(leader.version, trailer.version)
        leader.wait_version(version)
        trailer.wait_version(version)
        assert leader.state["status"] == "playing", "the game ended before the page's last turn"
        if leader.last_turn_next():
            return
        mover = leader if leader.my_turn() else trailer
        assert mover.my_turn(), f"neither seat is to act: {leader.state['game']['phase']}"
        mover.play_turn()
    raise AssertionError("the game did not reach the leader's last turn")


def play_the_last_turn(person: Client, driver: ScriptingDriver) -> str:
    """The page, caught up with the driver and drawing the server's board, rolls :data:`LAST_ROLL`, clicks every
    checker off and confirms; the end card shows, and the driver catches up. The card's ``data-end``: "game" (the
    match goes on) or "match"."""
    person.page.wait_for_function(
        "v => Number(document.querySelector('.game-page').dataset.version) >= v", arg=driver.version)
    assert person.game().get("myTurn") == "true" and person.game().get("phase") == "rolling"
    assert drawn_board(person) == driver.board()["points"], "the page draws the server's board"
    driver.server.dice(LAST_ROLL)
    for _ in range(12):  # roll, two clicks a checker, confirm
        if person.page.locator(".overlay:not([hidden])").count() or not person.play_one_action():
            break
    overlay = person.page.wait_for_selector(".overlay:not([hidden])")
    assert overlay is not None
    driver.wait_version(person.version())  # the driver sees what the page sees: a match's next game, say
    return overlay.get_attribute("data-end") or ""


def finish_over_the_socket(driver: ScriptingDriver) -> None:
    """At the start of the driver's last turn (:meth:`ScriptingDriver.last_turn_next`): roll :data:`LAST_ROLL` and
    play it to the game's end over the WebSocket, with no click in the page."""
    driver.server.dice(LAST_ROLL)
    driver.act("roll")
    position = driver.position()
    play = next(play for play in position.legal_plays(LAST_ROLL) if ends_the_game(position, play))
    driver.act("move", steps=steps_of(play))


def play_the_match_to_its_end(person: Client, games: int = 1) -> None:
    """Play ``person``'s match against the computer, its rolls scripted, to the match's end card: each of its
    ``games`` games to its last turn in the page, that turn over the WebSocket (:func:`finish_over_the_socket`)."""
    driver = ScriptingDriver(person.server, person)
    try:
        for _ in range(games):
            driver.play_to_the_last_turn()
            finish_over_the_socket(driver)
    finally:
        driver.close()
    person.page.wait_for_selector('.overlay[data-end="match"]')


def drawn_board(person: Client) -> list[int]:
    """The 24 points as the page draws them, signed from the guest's side (data-count and data-owner)."""
    cells: list[list[str]] = person.page.locator("g.hit[data-owner]").evaluate_all(
        "cells => cells.map((c) => [c.dataset.point, c.dataset.count, c.dataset.owner])")
    points = [0] * 24
    for point, count, owner in cells:
        if 1 <= int(point) <= 24:
            points[int(point) - 1] = int(count) * (1 if owner == "me" else -1 if owner == "opp" else 0)
    return points
