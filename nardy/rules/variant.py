"""The variant base class: one engine, variants as configuration plus hooks.

A variant says how the board is seen from each side (:class:`Topology`),
where its checkers start and so how many each side has (``start_layout``,
``checkers``), which movement restrictions apply, how a finished game
is scored and which game options it accepts. The move generator and the game
state machine read these attributes; they never test a variant's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Literal, SupportsIndex

from nardy.rules.board import HOME, MAX_CHECKERS, NUM_POINTS
from nardy.rules.errors import IllegalActionError

if TYPE_CHECKING:
    from nardy.rules.position import Position


class WinKind(StrEnum):
    """How a game was won; the value is the name used in records and JSON."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    OIN = "oin"
    MARS = "mars"
    KOKS = "koks"


MAX_AUTOMATIC_DOUBLES = 1
"""000: «По соглашению допустимо лишь одно автоматическое удвоение за партию»."""

BlockRule = Literal["ahead", "behind"]
"""When a six-point block is banned: "ahead", unless an opposing checker has passed it (004);
"behind", while an opposing checker has yet to pass it (001 §1.12)."""


@dataclass(frozen=True, kw_only=True)
class GameOptions:
    """Options of one game or match that the position does not carry.

    ``cube``: the doubling cube is in play. ``jacoby``: gammons count single
    while the cube is centred (money play only). ``automatic_doubles``: how many
    opening doubles may double the centred cube, 0 or 1 (money play only; 000
    allows «лишь одно автоматическое удвоение за партию»).
    ``backgammon_value``: 3, or 2 as "in some countries" (000). ``beavers``:
    a taker may immediately redouble while keeping the cube.
    """

    cube: bool = False
    jacoby: bool = False
    automatic_doubles: int = 0
    backgammon_value: int = 3
    beavers: bool = False


@dataclass(frozen=True, kw_only=True)
class CubeRules:
    """Which cube options the games of a variant may take: what :meth:`Variant.check_options` accepts.

    ``allowed``: the doubling cube may be used; ``required``: it always is
    (dave, 003). ``jacoby`` and ``automatic_doubles`` (the most a game may
    have) are money play's (000: «В матчах, где нужно набрать определённое
    число очков, автоматическое удвоение и правило Якоби обычно не
    применяются. Это в основном правила свободной игры или игры на деньги»),
    so a variant without money play has neither. ``beavers``: a taker may
    beaver wherever the cube is in play, if the game enables them (docs/rules.md,
    "Where the seeds are silent": "no seed lists them, so the default game
    refuses one; a game may enable them").
    """

    allowed: bool
    required: bool
    jacoby: bool
    automatic_doubles: int
    beavers: bool


EarlyEnd = WinKind | Literal["tie"]
"""How a play ended a game before any bear-off (plakoto's mother rule): the mover won so, or nobody won."""

BoardName = Literal["short", "long"]
"""The two boards: backgammon's (000, 002, 003) and long nardy's (004, 001)."""

VariantGroup = Literal["short", "long", "greek", "turkish"]
"""Where a lobby lists a variant: short (backgammon's board and its relatives), long (long nardy),
greek (the games of tavli), turkish (tavla)."""

Layout = tuple[tuple[int, int], ...]
"""A start: (point, checkers) pairs for the side to move, points 1..24 as it numbers them."""

_OUR_NUMBERS = tuple(range(1, NUM_POINTS + 1))


class Topology:
    """How a board is seen by the other side.

    A topology names :meth:`opponent_point`; turning a board and
    counting pips follow from that numbering, worked out once per topology
    (every view of a table turns its board and counts its pips). ``name`` says
    which board it is, for whatever depends on the board alone (the engine that
    rates its positions, how a client turns the opponent's moves)."""

    name: ClassVar[BoardName]

    def __init__(self) -> None:
        self._opponent_numbers = tuple(self.opponent_point(point) for point in _OUR_NUMBERS)
        order = [0] * NUM_POINTS
        for index, theirs in enumerate(self._opponent_numbers):
            order[theirs - 1] = index
        self._turned_order = tuple(order)
        """For each point of the turned board, the index of our point that stands there."""

    def opponent_point(self, point: int) -> int:
        """The number the opponent gives to our point ``point`` (1..24)."""
        raise NotImplementedError

    def opponent_numbers(self) -> tuple[int, ...]:
        """For each number 0..25 the opponent gives a place, the number we give it: the bar (25) and off (0)
        are each side's own, the points follow :meth:`opponent_point` (which is its own inverse)."""
        return (0, *self._opponent_numbers, 25)

    def flip_points(self, points: tuple[int, ...]) -> tuple[int, ...]:
        """The same board seen from the other side, signs swapped: what stands on our point p stands, negated,
        on point :meth:`opponent_point` (p) of the board returned."""
        return tuple([-points[index] for index in self._turned_order])

    def pip_counts(self, points: tuple[int, ...], bar: tuple[int, int]) -> tuple[int, int]:
        """Pips left to bear off everything: (side to move, opponent); an opponent's checker on our point p is
        :meth:`opponent_point` (p) pips from home, one on the bar 25."""
        mover, opponent = 25 * bar[0], 25 * bar[1]
        for count, ours, theirs in zip(points, _OUR_NUMBERS, self._opponent_numbers):
            if count > 0:
                mover += ours * count
            elif count < 0:
                opponent -= theirs * count
        return mover, opponent


BACKGAMMON_START: Layout = ((24, 2), (13, 5), (8, 3), (6, 5))
"""Backgammon's start (000): two on the 24-point, five on the 13, three on the 8, five on the 6."""

LONG_START: Layout = ((24, 15),)
"""Long nardy's start (004, 001): all fifteen on the head, the 24-point."""


class ShortTopology(Topology):
    """Backgammon's board: the opponent travels 1 → 24 towards home 19..24."""

    name = "short"

    def opponent_point(self, point: int) -> int:
        return 25 - point


class LongTopology(Topology):
    """Long nardy's board: both heads opposite, the opponent's head on our 12."""

    name = "long"

    def opponent_point(self, point: int) -> int:
        return (point + 11) % NUM_POINTS + 1


@dataclass(frozen=True, eq=False)
class Variant:
    """One rule set. Instances are singletons kept in :data:`nardy.rules.variants.VARIANTS`.

    Movement attributes read by the move generator:
    ``hitting`` (a lone opposing checker can be hit to the bar; otherwise any
    opposing checker closes a point); ``head_limit`` (checkers that may leave
    point 24 per turn, ``None`` for no limit); ``head_exception_doubles``
    (doubles that allow two on a player's first roll); ``block_rule`` and
    ``block_each_step`` (the six-point block ban and when it is checked);
    ``hit_home_stay`` (Georgian: a hit in one's home keeps that point occupied
    for the rest of the turn, unless a die has no other step to play it);
    ``pinning`` (plakoto: a checker landing on a lone opposing checker pins it
    where it stands instead of hitting it; positions then carry their pins,
    :attr:`~nardy.rules.position.Position.pinned`, and the search is
    :mod:`nardy.rules.pinning`'s).
    ``first_checker_away`` (fevga: until a checker of ours has passed the
    opponent's starting point, no second checker leaves our own, see
    docs/rules.md §10); the hooks :meth:`closed_sixes` and :meth:`yielding_sixes`
    (six-point runs the side to move may not hold at the end of its turn).
    ``resignation_offers``: a resigning player may offer one of ``kinds``
    (single, gammon or backgammon; oin, mars or koks in dave) that the opponent
    accepts or declines (backgammon, dave). ``resignation_default``: what a
    resignation naming no kind offers (backgammon: a single); ``None``: it ends
    the game at once, scored from the position as it stands, as every
    resignation does where nothing is offered (and as dave's did before it
    took offers, so its older records replay the same).
    ``kinds`` names the single, double and triple wins (long nardy has no triple;
    tavla and portes count a triple as a double).
    ``start_layout``: where the side to move's checkers start, (point, count)
    pairs; the opponent's stand on the same points as it numbers them.
    ``checkers``: how many each side has, the sum of the layout (15, or 3 in
    hypergammon): what a position holds, bears off and is scored by.
    ``group``: where a lobby lists the variant (:data:`VariantGroup`).
    ``family``: the game this rule set is a form of, the same for variants
    that differ only in regulation or cube: dave is backgammon "with *dave*
    (doubling cube)" (003), and long nardy comes in three regulations
    (docs/rules.md §6: 004's traditional and tournament, 001's bolshie);
    ratings are kept per family. ``match_lengths``: the lengths a match may have, ``None`` for any
    length from 1 (long nardy: 004 sets none); ``money_play``: whether single
    games may be played for a running total (match length 0).
    ``games``: the rule sets a match's games play in turn, the first game
    the first of them, and round again after the last (tavli: portes,
    plakoto, fevga, :mod:`nardy.rules.variants.tavli`); empty, as for every
    single game's rule set, when each game is played by this variant itself.
    A variant naming games is a match's rules: its own movement data are its
    first game's, and each game (and each position of it) is played by the
    game's own variant (:meth:`game_variant`).
    ``moves_final``: 004's platform, «Ходы окончательны: сделанный ход нельзя
    отменить»; tables of this variant are played without undo unless their
    creator chooses otherwise (the server's table option; the rules of a play
    are the same either way).
    """

    name: str
    title: str
    family: str
    topology: Topology = field(repr=False)
    group: VariantGroup
    start_layout: Layout
    checkers: int = field(init=False)
    plain_search: bool = field(init=False, repr=False)
    """No search hook is in play (no first checker away, no closed or yielding sixes): the move generator
    runs the one walk with the rules its other attributes name, as it does for all but fevga."""
    hitting: bool = True
    head_limit: int | None = None
    head_exception_doubles: frozenset[int] = frozenset()
    block_rule: BlockRule | None = None
    block_each_step: bool = False
    hit_home_stay: bool = False
    pinning: bool = False
    first_checker_away: bool = False
    cube_allowed: bool = False
    cube_required: bool = False
    dave_restrictions: bool = False
    match_lengths: tuple[int, ...] | None = None
    money_play: bool = False
    previous_winner_starts: bool = False
    resignation_offers: bool = False
    resignation_default: WinKind | None = None
    moves_final: bool = False
    kinds: tuple[WinKind, WinKind, WinKind] = (WinKind.SINGLE, WinKind.GAMMON, WinKind.BACKGAMMON)
    games: tuple[Variant, ...] = ()

    def __post_init__(self) -> None:
        if any(game.games for game in self.games):
            raise ValueError(f"{self.name}: the games of a rotation are single games' rule sets")
        points = [point for point, _ in self.start_layout]
        if not all(1 <= point <= NUM_POINTS for point in points) or len(set(points)) != len(points):
            raise ValueError(f"{self.name}: a start names each point 1..{NUM_POINTS} once, got {self.start_layout}")
        if any(count <= 0 for _, count in self.start_layout):
            raise ValueError(f"{self.name}: a start places at least one checker on each point it names")
        if any(self.topology.opponent_point(point) in points for point in points):
            raise ValueError(f"{self.name}: the two sides' starts share a point")
        checkers = sum(count for _, count in self.start_layout)
        if not 1 <= checkers <= MAX_CHECKERS:
            raise ValueError(f"{self.name}: a side has 1 to {MAX_CHECKERS} checkers, not {checkers}")
        object.__setattr__(self, "checkers", checkers)
        rules = type(self)
        hooked = rules.closed_sixes is not Variant.closed_sixes or rules.yielding_sixes is not Variant.yielding_sixes
        object.__setattr__(self, "plain_search", not self.first_checker_away and not hooked)

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[Any, ...]:
        """A registered variant unpickles as the same singleton, so positions still compare equal."""
        if _registered(self.name) is self:
            return (_registered, (self.name,))
        return super().__reduce_ex__(protocol)

    def start_points(self) -> tuple[int, ...]:
        """The starting board seen by the first player to move: :attr:`start_layout` for it, and the same
        layout, negated, on the points the opponent numbers so (:meth:`Topology.opponent_point`)."""
        points = [0] * NUM_POINTS
        for point, count in self.start_layout:
            points[point - 1] = count
            points[self.topology.opponent_point(point) - 1] = -count
        return tuple(points)
    def closed_sixes(self, points: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """Runs of six points (our numbers, in the order the opponent travels them) that the side to move may
        not all hold when its turn ends, on the board ``points`` it starts the turn with; none by default.

        A hook for bans the six-block rule (``block_rule``) does not name; each run must be six points in a
        row along the opponent's route (the move generator checks it as a block ending on the run's last point).
        """
        return ()

    def yielding_sixes(self, points: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """Like :meth:`closed_sixes`, but binding only where the roll can obey it: when no sequence of steps,
        the empty one included, leaves each of them open, the roll is played as if they were not named; none by
        default."""
        return ()

    def game_variant(self, index: int) -> Variant:
        """The rule set of a match's game ``index`` (0 for the first): the rotation's, round and round
        (:attr:`games`), or this variant itself when it names no games.

        >>> from nardy.rules.variants import find_variant
        >>> [find_variant("tavli").game_variant(index).name for index in range(4)]
        ['portes', 'plakoto', 'fevga', 'portes']
        """
        if index < 0:
            raise ValueError(f"games are numbered from 0, got {index}")
        return self.games[index % len(self.games)] if self.games else self

    @property
    def game_variants(self) -> tuple[Variant, ...]:
        """Every rule set a game of this variant's matches may be played by, each once, in rotation order."""
        return tuple(dict.fromkeys(self.games)) if self.games else (self,)

    @property
    def has_bar(self) -> bool:
        """Whether checkers can be hit to the bar in this variant."""
        return self.hitting

    @property
    def board(self) -> BoardName:
        """Which board the variant is played on, short or long (its topology's name)."""
        return self.topology.name

    @property
    def cube_rules(self) -> CubeRules:
        """The cube options this variant's games may take (:meth:`check_options` holds them to it)."""
        money_cube = self.cube_allowed and self.money_play
        return CubeRules(
            allowed=self.cube_allowed,
            required=self.cube_required,
            jacoby=money_cube,
            automatic_doubles=MAX_AUTOMATIC_DOUBLES if money_cube else 0,
            beavers=self.cube_allowed,
        )

    @property
    def win_kinds(self) -> tuple[WinKind, ...]:
        """The names of this variant's wins, smallest first, each once (long nardy: oin and mars)."""
        return tuple(dict.fromkeys(self.kinds))

    @property
    def backgammon_values(self) -> tuple[int, ...]:
        """What a backgammon may count, the usual first: 3, or 2 by agreement (000: «в некоторых странах
        бэкгаммон считается удвоенным, а не утроенным»); none where no win is called a backgammon."""
        return (3, 2) if WinKind.BACKGAMMON in self.kinds else ()

    def win_kind(self, loser_points: tuple[int, ...], loser_bar: int, loser_off: int) -> WinKind:
        """How a finished game was won, from the loser's checkers.

        ``loser_points`` is the board from the winner's perspective (the
        loser's checkers negative), as it stands when the winner bore off the
        last checker.
        """
        single, double, triple = self.kinds
        if loser_off > 0:
            return single
        if self.hitting and (loser_bar > 0 or any(loser_points[p - 1] < 0 for p in HOME)):
            return triple
        return double

    def early_end(self, position: Position) -> EarlyEnd | None:
        """Whether the play that left ``position`` (still seen from its mover) ended the game before any
        bear-off: the kind of the mover's win, ``"tie"``, or ``None`` (the game goes on). No variant but
        plakoto ends a game so (its mother rule, :mod:`nardy.rules.variants.greek`)."""
        return None

    def win_points(self, kind: WinKind, options: GameOptions) -> int:
        """The points a win of ``kind`` is worth before the cube multiplies it."""
        if kind in (WinKind.SINGLE, WinKind.OIN):
            return 1
        if kind in (WinKind.GAMMON, WinKind.MARS):
            return 2
        return options.backgammon_value if kind == WinKind.BACKGAMMON else 3

    def default_options(self) -> GameOptions:
        """Options a game of this variant gets when the caller names none."""
        return GameOptions(cube=self.cube_required)

    def check_options(self, options: GameOptions, match_length: int) -> None:
        """Raise :class:`IllegalActionError` when options or match length do not fit."""
        if options.cube and not self.cube_allowed:
            raise IllegalActionError(f"{self.name} is played without the doubling cube")
        if self.cube_required and not options.cube:
            raise IllegalActionError(f"{self.name} is always played with the cube")
        if options.backgammon_value not in (2, 3):
            raise IllegalActionError("a backgammon counts 3 points, or 2 by agreement")
        if not 0 <= options.automatic_doubles <= MAX_AUTOMATIC_DOUBLES:
            raise IllegalActionError(
                f"automatic doubles are 0 (off) or {MAX_AUTOMATIC_DOUBLES}: only one automatic double"
                f" per game is allowed (000), not {options.automatic_doubles}"
            )
        if options.beavers and not options.cube:
            raise IllegalActionError("beavers need the doubling cube")
        if match_length < 0:
            raise IllegalActionError("the match length cannot be negative")
        if match_length == 0:
            if not self.money_play:
                raise IllegalActionError(f"{self.name} is played as a match to 1 point or more")
            return
        if options.jacoby or options.automatic_doubles:
            raise IllegalActionError("Jacoby and automatic doubles apply to money play only, not to matches")
        if self.match_lengths is not None and match_length not in self.match_lengths:
            allowed = ", ".join(map(str, self.match_lengths))
            raise IllegalActionError(f"{self.name} matches are played to {allowed} points")


def _registered(name: str) -> Variant | None:
    """The registered variant called ``name`` (None if there is none)."""
    from nardy.rules.variants import VARIANTS

    return VARIANTS.get(name)
